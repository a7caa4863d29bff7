import Foundation
import Subprocess
#if canImport(System)
import System
#else
import SystemPackage
#endif

/// A test harness that could not do its part (a program that did not start, end or answer).
public struct HarnessFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A child process of a test, started and watched through swift-subprocess, with its output in a
/// file, and HTTP to it through curl.
///
/// The tests' one way to run a program. Not Foundation's `Process`: on Linux that learns of a
/// child's end through one shared manager thread, which blocks in `waitpid` for a process whose
/// notification socket closed (a child holding it passed on, a pid reaped and reused), and its
/// `waitUntilExit` parks the calling thread; with a few such waits on the 2 threads of a 2-core
/// machine's cooperative pool, every suite of the run stopped (seen as a CI that never ended).
/// swift-subprocess watches each child through its own pidfd, closes every other descriptor in
/// the child, and waits without holding a thread. Output goes to a file, not a pipe, so a
/// daemon the program leaves behind (`pg_ctl start`) cannot keep a reader waiting for EOF.
public final class CommandProcess: @unchecked Sendable {
    /// Where standard output (and standard error, unless kept apart) is written.
    public let log: URL
    /// Where standard error is written when it is kept apart from the output.
    public let errorLog: URL?
    public let baseURL: String?

    private let lock = NSLock()
    private var pid: pid_t = 0
    /// A duplicate of the child's pidfd, ours to close: its end is read from here, in the caller's
    /// own task, not from the task that runs it (which waits for a thread of the cooperative pool
    /// behind every busy test; seen to notice an exit 30 s late on a loaded 2-core machine).
    private var pidfd: CInt = -1
    private var ended: Int32?
    private var launch: CheckedContinuation<Void, any Error>?
    private var launchFailure: (any Error)?

    private init(log: URL, errorLog: URL?, baseURL: String?) {
        self.log = log
        self.errorLog = errorLog
        self.baseURL = baseURL
    }

    /// Starts `executable` with `arguments`; returns once it runs. `environment` adds to, replaces
    /// in or (nil) removes from this process's environment; every child gets a token secret in it.
    public static func start(_ executable: String, _ arguments: [String], baseURL: String? = nil,
                             environment: [String: String?] = [:], directory: String? = nil,
                             separateErrors: Bool = false) async throws -> CommandProcess {
        let temporary = FileManager.default.temporaryDirectory
        let name = "command-\(UUID().uuidString)"
        let child = CommandProcess(log: temporary.appendingPathComponent("\(name).log"),
                                   errorLog: separateErrors ? temporary.appendingPathComponent("\(name).err") : nil, baseURL: baseURL)
        let permissions: FilePermissions = [.ownerReadWrite]
        let out = try FileDescriptor.open(FilePath(child.log.path), .writeOnly, options: [.create, .truncate], permissions: permissions)
        let err = try child.errorLog.map { try FileDescriptor.open(FilePath($0.path), .writeOnly, options: [.create, .truncate], permissions: permissions) }
        var updates: [Environment.Key: String?] = ["CITYTWIN_TOKEN_SECRET": "outage-test-secret-0123456789abcdef0123456789"]
        for (key, value) in environment { updates[Environment.Key(stringLiteral: key)] = value }
        let configuration = Configuration(executable: .path(FilePath(executable)), arguments: Arguments(arguments),
                                          environment: .inherit.updating(updates),
                                          workingDirectory: directory.map { FilePath($0) })
        Task.detached(priority: .high) {
            do {
                let output = FileDescriptorOutput.fileDescriptor(out, closeAfterSpawningProcess: true)
                let status = if let err {
                    try await Subprocess.run(configuration, input: .none, output: output,
                                             error: .fileDescriptor(err, closeAfterSpawningProcess: true)) { child.started($0.processIdentifier) }.terminationStatus
                } else {
                    try await Subprocess.run(configuration, input: .none, output: output,
                                             error: .combinedWithOutput) { child.started($0.processIdentifier) }.terminationStatus
                }
                child.finished(status)
            } catch {
                child.failed(error)
            }
        }
        // A spawn that never reports back fails the test that asked, naming the program, instead of holding it.
        let timer = Task {
            guard (try? await Task.sleep(for: .seconds(Self.launchLimit))) != nil else { return }
            child.launchTimedOut(HarnessFailure("\(executable) \(arguments.prefix(3).joined(separator: " ")) did not start within \(Self.launchLimit) s"))
        }
        defer { timer.cancel() }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            child.lock.withLock {
                if child.pid != 0 || child.ended != nil { continuation.resume() }
                else if let failure = child.launchFailure { continuation.resume(throwing: failure) }
                else { child.launch = continuation }
            }
        }
        return child
    }

    /// How long `start` waits for the program to be running.
    static let launchLimit = 60.0

    /// Runs `executable` to its end within `limit` seconds (killed and a failure after that).
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String?] = [:],
                           directory: String? = nil, separateErrors: Bool = false, within limit: Double = 300) async throws -> CommandProcess {
        let child = try await start(executable, arguments, environment: environment, directory: directory, separateErrors: separateErrors)
        guard await child.waitForExit(within: limit) else {
            child.kill()
            throw HarnessFailure("\(executable) \(arguments.prefix(3).joined(separator: " ")) did not end within \(limit) s")
        }
        return child
    }

    /// The pidfd closed and the output files removed: nothing reads them once the test lets go
    /// (a CI run starts thousands of `curl`s).
    deinit {
        if pidfd >= 0 { close(pidfd) }
        try? FileManager.default.removeItem(at: log)
        if let errorLog { try? FileManager.default.removeItem(at: errorLog) }
    }

    private func started(_ processIdentifier: ProcessIdentifier) {
        lock.withLock {
            pid = processIdentifier.value
            pidfd = fcntl(processIdentifier.processDescriptor, F_DUPFD_CLOEXEC, 0)
            launch?.resume()
            launch = nil
        }
    }

    private func finished(_ status: TerminationStatus) {
        lock.withLock {
            switch status {
            case .exited(let code): ended = code
            case .signaled(let signal): ended = 128 + signal
            }
            launch?.resume()
            launch = nil
        }
    }

    private func failed(_ error: any Error) {
        lock.withLock {
            launchFailure = error
            if pid != 0 && ended == nil { ended = 255 }
            launch?.resume(throwing: error)
            launch = nil
        }
    }

    /// The launch wait ends with `failure` unless the program started (or failed) first.
    private func launchTimedOut(_ failure: HarnessFailure) {
        lock.withLock {
            guard pid == 0, ended == nil, launchFailure == nil else { return }
            launchFailure = failure
            launch?.resume(throwing: failure)
            launch = nil
        }
    }

    /// Whether the process still runs. Its end is read from its pidfd without reaping it
    /// (`WNOWAIT`: swift-subprocess reaps it).
    public var isRunning: Bool {
        lock.withLock {
            if ended == nil, launchFailure == nil, pidfd >= 0 {
                var info = siginfo_t()
                if waitid(idtype_t(rawValue: 3) /* P_PIDFD */, id_t(pidfd), &info, WEXITED | WNOHANG | WNOWAIT) == 0,
                   info._sifields._sigchld.si_pid != 0 {
                    let status = info._sifields._sigchld.si_status
                    ended = info.si_code == CLD_EXITED ? status : 128 + status
                }
            }
            return ended == nil && launchFailure == nil
        }
    }
    /// The exit status (128 + the signal for a process killed by one); -1 while it runs.
    public var exitStatus: Int32 { lock.withLock { ended ?? -1 } }
    /// The process's id.
    public var processIdentifier: pid_t { lock.withLock { pid } }
    /// What the process wrote; bytes that are not UTF-8 (an MVT body through curl) read as U+FFFD.
    public var output: String { String(decoding: outputData, as: UTF8.self) }
    /// What the process wrote, as bytes.
    public var outputData: Data { (try? Data(contentsOf: log)) ?? Data() }
    /// What the process wrote to standard error, when kept apart.
    public var errors: String { errorLog.map { String(decoding: (try? Data(contentsOf: $0)) ?? Data(), as: UTF8.self) } ?? "" }

    /// Sends `number` to the process while it runs.
    public func signal(_ number: Int32) {
        lock.withLock {
            if ended == nil && pid > 0 { _ = Glibc.kill(pid, number) }
        }
    }

    /// Whether the process exited within `limit` seconds.
    public func waitForExit(within limit: Double) async -> Bool {
        let end = ContinuousClock.now + .seconds(limit)
        while isRunning && ContinuousClock.now < end {
            // A cancelled test stops waiting (a sleep that throws at once would spin on the thread).
            guard (try? await Task.sleep(for: .milliseconds(20))) != nil else { break }
        }
        return !isRunning
    }

    /// Ends the process for good (test clean-up): SIGKILL; its end is collected in the background.
    public func kill() { signal(SIGKILL) }

    /// HTTP to the process (`baseURL`).
    public var endpoint: HTTPEndpoint { HTTPEndpoint(baseURL: baseURL ?? "") }

    public func http(_ path: String, method: String = "GET", body: String? = nil, headers: [String] = [],
                     within limit: Double) async throws -> HTTPEndpoint.Response? {
        try await endpoint.http(path, method: method, body: body, headers: headers, within: limit)
    }

    public func http(_ path: String, method: String = "GET", body: String? = nil, headers: [String] = []) async throws -> HTTPEndpoint.Response {
        try await endpoint.http(path, method: method, body: body, headers: headers)
    }
}

/// A server's base URL, and HTTP to it through curl (client timeouts as an orchestrator's).
public struct HTTPEndpoint: Sendable {
    public let baseURL: String

    public init(baseURL: String) { self.baseURL = baseURL }

    public struct Response: Sendable {
        public var status: Int
        /// Header names in lower case.
        public var headers: [String: String]
        public var body: String
        /// How long the exchange took as curl measured it (`time_total`): the server's answer time,
        /// apart from when this test process, sharing the cores with the other suites, got to read it.
        public var seconds: Double = 0
    }

    /// Written by curl after the response (`-w`), so the exchange's own duration is known.
    static let timeMarker = "\n@@citytwin-test-time_total="

    /// `curl -m within`: the response, or `nil` when none came in time.
    public func http(_ path: String, method: String = "GET", body: String? = nil, headers: [String] = [],
                     within limit: Double) async throws -> Response? {
        var arguments = ["-s", "-i", "--noproxy", "*", "-m", String(limit), "-X", method, "-w", Self.timeMarker + "%{time_total}"]
        for h in headers { arguments += ["-H", h] }
        if let body { arguments += ["-H", "Content-Type: application/json", "--data-binary", body] }
        arguments.append(baseURL + path)
        let curl = try await CommandProcess.run("/usr/bin/curl", arguments, within: limit + 30)
        if curl.exitStatus == 28 { return nil }  // operation timed out
        guard curl.exitStatus == 0 else { throw HarnessFailure("curl \(path): exit \(curl.exitStatus)") }
        var text = curl.output
        var seconds = 0.0
        if let marker = text.range(of: Self.timeMarker, options: .backwards) {
            seconds = Double(text[marker.upperBound...].trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            text = String(text[..<marker.lowerBound])
        }
        guard let split = text.range(of: "\r\n\r\n") else { throw HarnessFailure("curl \(path): no header end in \(text)") }
        let lines = text[..<split.lowerBound].components(separatedBy: "\r\n")
        let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        var fields = [String: String]()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Response(status: status, headers: fields, body: String(text[split.upperBound...]), seconds: seconds)
    }

    /// `http` with a generous limit, for requests that must answer.
    public func http(_ path: String, method: String = "GET", body: String? = nil, headers: [String] = []) async throws -> Response {
        guard let r = try await http(path, method: method, body: body, headers: headers, within: 60) else {
            throw HarnessFailure("\(method) \(path): no answer within 60 s")
        }
        return r
    }
}
