import Foundation
import GeoCore

/// Where a job stands (OGC API Processes 1.0 `statusCode`).
public enum JobStatus: String, Hashable, Sendable, CaseIterable {
    /// Submitted, waiting for a worker to claim it.
    case accepted
    /// Claimed by a worker (`JobRecord.claimedBy`) and running.
    case running
    /// Finished with a result.
    case successful
    /// Finished with an error message.
    case failed
    /// Dismissed by a client: its result is gone and a running worker stops at its next progress report.
    case dismissed

    /// Whether the job will not change any more.
    public var isFinal: Bool { self == .successful || self == .failed || self == .dismissed }
}

/// How a running job ended.
public enum JobOutcome: Hashable, Sendable {
    /// The process's result document (output id → value).
    case successful(JSONValue)
    /// Why the process failed, for the job's status message, and the error as its worker
    /// describes it (a JSON object, e.g. its kind and the input at fault), kept for the results.
    case failed(String, error: JSONValue? = nil)
}

/// One row of the store's job table: a process run with its inputs, the caller it acts for,
/// its progress and its outcome.
public struct JobRecord: Hashable, Sendable {
    /// A UUID in lower case.
    public var id: String
    /// The process id (e.g. `features-in-area`).
    public var process: String
    public var status: JobStatus
    /// Progress in percent, 0…100.
    public var progress: Double
    /// The execution inputs as the client sent them (input id → value).
    public var inputs: JSONValue
    /// Whom the job acts for: the store applies this caller's access rules while it runs, and
    /// only this caller (or the admin) may see the job.
    public var caller: Caller
    /// The result document of a successful job.
    public var result: JSONValue?
    /// Why a failed job failed.
    public var message: String?
    /// The error that ended a failed job as its worker described it (`JobOutcome.failed`).
    public var error: JSONValue?
    public var created: Date
    public var updated: Date
    /// The worker that claimed the job (`citytwin worker` name, or the server's in-process runner).
    public var claimedBy: String?

    public init(id: String, process: String, status: JobStatus, progress: Double, inputs: JSONValue, caller: Caller,
                result: JSONValue? = nil, message: String? = nil, error: JSONValue? = nil, created: Date, updated: Date,
                claimedBy: String? = nil) {
        self.id = id
        self.process = process
        self.status = status
        self.progress = progress
        self.inputs = inputs
        self.caller = caller
        self.result = result
        self.message = message
        self.error = error
        self.created = created
        self.updated = updated
        self.claimedBy = claimedBy
    }

    /// Whether `other` may see this job: its own caller (same department, or both anonymous) or the admin.
    public func isVisible(to other: Caller) -> Bool {
        switch (caller, other) {
        case (_, .admin): true
        case (.anonymous, .anonymous): true
        case (.department(let a, _, _), .department(let b, _, _)): a == b
        default: false
        }
    }
}

// MARK: Row encoding, shared by both backends

extension JobRecord {
    /// The `inputs` column: `{"inputs": …, "caller": …}` (the table has no caller column).
    static func inputsColumn(_ inputs: JSONValue, caller: Caller) -> String {
        JobColumns.text(["inputs": inputs, "caller": JobColumns.json(caller)])
    }

    /// The `result` column: `{"outputs": …}` or `{"failure": "…", "error": {…}}`.
    static func resultColumn(_ outcome: JobOutcome) -> String {
        switch outcome {
        case .successful(let value): JobColumns.text(["outputs": value])
        case .failed(let message, nil): JobColumns.text(["failure": .string(message)])
        case .failed(let message, let error?): JobColumns.text(["failure": .string(message), "error": error])
        }
    }

    /// A record from the columns of one row.
    init(id: String, process: String, status statusText: String, progress: Double, inputs: String, result: String?,
         createdAt: Int64, updatedAt: Int64, claimedBy: String?) throws {
        guard let status = JobStatus(rawValue: statusText) else {
            throw StoreError(.backend, "job \(id) has an unknown status \"\(statusText)\"")
        }
        let stored = try JobColumns.value(inputs, job: id)
        let outcome = try result.map { try JobColumns.value($0, job: id) }
        self.init(id: id, process: process, status: status, progress: progress,
                  inputs: stored["inputs"] ?? .object([:]), caller: try JobColumns.caller(stored["caller"], job: id),
                  result: outcome?["outputs"], message: outcome?["failure"]?.stringValue, error: outcome?["error"],
                  created: RFC3339.date(microseconds: createdAt), updated: RFC3339.date(microseconds: updatedAt),
                  claimedBy: claimedBy)
    }
}

/// JSON text of the job table's columns.
enum JobColumns {
    static func text(_ value: JSONValue) -> String { CanonicalJSON.text(value) }

    static func value(_ text: String, job: String) throws -> JSONValue {
        do {
            return try JSONValue(json: text)
        } catch {
            throw StoreError(.backend, "job \(job) has a malformed JSON column: \(error)")
        }
    }

    static func json(_ caller: Caller) -> JSONValue {
        switch caller {
        case .anonymous: ["kind": "anonymous"]
        case .admin: ["kind": "admin"]
        case .department(let name, let role, let user):
            ["kind": "department", "name": .string(name), "role": .string(role.rawValue), "user": user.map(JSONValue.string) ?? .null]
        }
    }

    static func caller(_ value: JSONValue?, job: String) throws -> Caller {
        switch value?["kind"]?.stringValue {
        case "anonymous": return .anonymous
        case "admin": return .admin
        case "department":
            guard let name = value?["name"]?.stringValue,
                  let role = value?["role"]?.stringValue.flatMap(Caller.DepartmentRole.init(rawValue:)) else { break }
            return .department(name: name, role: role, user: value?["user"]?.stringValue)
        default: break
        }
        throw StoreError(.backend, "job \(job) names no valid caller")
    }
}
