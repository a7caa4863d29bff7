import Foundation
import GeoCore

/// The SensorThings entities and observations in the store, with the same behaviour in both
/// backends (`SpatiaLiteStore`, `PostGISStore`).
///
/// Entities live in `sta_entities` (kind, id, JSON body) with their outgoing links in
/// `sta_links`; observations in `sta_observations`, unique and indexed by (datastream,
/// phenomenon start), so one datastream's last day is one index range read.
/// Access rules are the server's (the governing layer's sharing class); the store checks
/// references and writes every change, with its audit entries, in one transaction.
public protocol SensingStore: Sendable {
    /// `count` fresh ids (one sequence for every kind), ascending: ids of a deep insert are known
    /// before the write, so links between new entities need no second pass.
    func reserveSensingIDs(_ count: Int) async throws -> [Int64]

    /// Applies `change` in ONE transaction: every reference checked, nothing half-written.
    /// - Returns: the id each observation of `change.observations` has (a re-sent observation,
    ///   same datastream, phenomenon time and result, keeps the id it was first stored under).
    /// - Throws: `invalidFeature` naming the field for an unknown reference or a different
    ///   result at a datastream's existing phenomenon time; `featureNotFound` for an unknown
    ///   entity to update or delete.
    func applySensing(_ change: SensingChange) async throws -> [Int64]

    /// Entities of `kind` by id (missing ids are left out), in id order.
    func sensingEntities(_ kind: SensingKind, ids: [Int64]) async throws -> [SensingEntity]

    /// Every entity of `kind`, or those whose outgoing link `link.name` holds `link.id`, in id order.
    func sensingEntities(_ kind: SensingKind, linkedBy link: SensingLink?) async throws -> [SensingEntity]

    /// Observations of `range`, in its order.
    func observations(_ range: ObservationRange) async throws -> [SensingObservation]

    /// How many observations `range` selects (its limit and offset ignored).
    func observationCount(_ range: ObservationRange) async throws -> Int
}

extension SensingStore {
    public func sensingEntity(_ kind: SensingKind, id: Int64) async throws -> SensingEntity? {
        try await sensingEntities(kind, ids: [id]).first
    }

    public func observation(id: Int64) async throws -> SensingObservation? {
        try await observations(ObservationRange(ids: [id], limit: 1)).first
    }
}

/// An outgoing link to match: entities whose `name` link holds `id`.
public struct SensingLink: Sendable, Hashable {
    public var name: String
    public var id: Int64
    public init(_ name: String, _ id: Int64) {
        self.name = name
        self.id = id
    }
}

/// The members of an observation a read needs besides its id, Datastream and phenomenon start
/// (always read): the store reads only these columns, and leaves the others `nil` (`result`
/// `.null`). A last-day read for `$select=phenomenonTime,result` reads four of eleven columns.
public struct ObservationFields: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let featureOfInterest = ObservationFields(rawValue: 1 << 0)
    /// The end of an interval phenomenonTime.
    public static let phenomenonEnd = ObservationFields(rawValue: 1 << 1)
    public static let resultTime = ObservationFields(rawValue: 1 << 2)
    public static let result = ObservationFields(rawValue: 1 << 3)
    public static let resultQuality = ObservationFields(rawValue: 1 << 4)
    public static let validTime = ObservationFields(rawValue: 1 << 5)
    public static let parameters = ObservationFields(rawValue: 1 << 6)
    public static let all: ObservationFields = [.featureOfInterest, .phenomenonEnd, .resultTime, .result, .resultQuality, .validTime, .parameters]
}

/// A selection of observations the store answers with an index read.
public struct ObservationRange: Sendable, Hashable {
    public enum Order: Sendable, Hashable {
        case id, phenomenonTime
    }

    public var ids: [Int64]?
    public var datastream: Int64?
    public var featureOfInterest: Int64?
    /// Phenomenon start ≥ `from` (microseconds).
    public var from: Int64?
    /// Phenomenon start < `to` (microseconds).
    public var to: Int64?
    public var order: Order
    public var descending: Bool
    public var limit: Int
    public var offset: Int
    /// What `observations(_:)` reads of each observation (`observationCount` ignores it).
    public var fields: ObservationFields

    public init(ids: [Int64]? = nil, datastream: Int64? = nil, featureOfInterest: Int64? = nil, from: Int64? = nil, to: Int64? = nil,
                order: Order = .id, descending: Bool = false, limit: Int = 100, offset: Int = 0, fields: ObservationFields = .all) {
        self.ids = ids
        self.datastream = datastream
        self.featureOfInterest = featureOfInterest
        self.from = from
        self.to = to
        self.order = order
        self.descending = descending
        self.limit = limit
        self.offset = offset
        self.fields = fields
    }

    /// The WHERE clause with `?`/`$n` placeholders from `mark` (called once per value, in order).
    func whereClause(mark: (Int) -> String) -> (String, [Int64]) {
        var parts = [String](), values = [Int64]()
        func add(_ sql: (String) -> String, _ v: Int64) {
            values.append(v)
            parts.append(sql(mark(values.count)))
        }
        if let ids {
            if ids.isEmpty { parts.append("1 = 0") }
            let marks = ids.map { id -> String in values.append(id); return mark(values.count) }
            if !ids.isEmpty { parts.append("id IN (\(marks.joined(separator: ", ")))") }
        }
        if let datastream { add({ "datastream = \($0)" }, datastream) }
        if let featureOfInterest { add({ "foi = \($0)" }, featureOfInterest) }
        if let from { add({ "phenomenon_start >= \($0)" }, from) }
        if let to { add({ "phenomenon_start < \($0)" }, to) }
        return (parts.isEmpty ? "" : "WHERE " + parts.joined(separator: " AND "), values)
    }

    var orderClause: String {
        let d = descending ? " DESC" : ""
        return switch order {
        case .id: "ORDER BY id\(d)"
        // Unique per datastream: within one the index order is the whole order; across datastreams
        // ties go by ascending id, as the in-memory order of `$orderby` breaks them.
        case .phenomenonTime: datastream != nil ? "ORDER BY phenomenon_start\(d)" : "ORDER BY phenomenon_start\(d), id"
        }
    }
}

/// One write of the SensorThings API: a deep insert, an update, a delete or a batch of
/// observations, applied whole or not at all, with one audit entry per entity (and one per
/// datastream for the observations of a batch) in the governing layer's audit log.
public struct SensingChange: Sendable {
    /// Who writes, for the audit log.
    public var caller: Caller
    /// The layer whose audit log records the change (the governing layer's id).
    public var auditLayer: String
    public var inserts: [SensingEntity] = []
    /// Replacements of existing entities (body and links).
    public var updates: [SensingEntity] = []
    /// The entities `updates` were computed from, as read: the change is written only if each is
    /// still stored so when its transaction reads it (else `versionChanged`, nothing written), so a
    /// PATCH through one server cannot drop what another wrote to the entity meanwhile.
    public var basis: [Int64: SensingEntity] = [:]
    /// The observations `observationUpdates` were computed from, as read, checked as `basis` is:
    /// two corrections of one reading through two servers both keep their members.
    public var observationBasis: [Int64: SensingObservation] = [:]
    /// Entities to delete, with what depends on them (a Thing's Datastreams and their Observations).
    public var deletes: [(SensingKind, Int64)] = []
    /// New observations (reserved ids), or re-sent ones.
    public var observations: [SensingObservation] = []
    /// Replacements of existing observations.
    public var observationUpdates: [SensingObservation] = []
    public var observationDeletes: [Int64] = []

    public init(caller: Caller, auditLayer: String) {
        self.caller = caller
        self.auditLayer = auditLayer
    }

    /// Throws `versionChanged` when the entity `stored` (as the transaction reads it; `nil`: gone)
    /// is not the basis it was read as.
    func checkBasis(_ id: Int64, stored: SensingEntity?) throws {
        guard let expected = basis[id], stored != expected else { return }
        throw StoreError(.versionChanged, "\(expected.kind.rawValue) \(id) was changed by another writer after it was read", feature: String(id))
    }

    /// Throws `versionChanged` when the observation `stored` (as the transaction reads it; `nil`:
    /// gone) is not the one its update was computed from.
    func checkObservationBasis(_ id: Int64, stored: SensingObservation?) throws {
        guard let expected = observationBasis[id], stored != expected else { return }
        throw StoreError(.versionChanged, "Observation \(id) was changed by another writer after it was read", feature: String(id))
    }

    /// Checks what needs no database: distinct phenomenon times per datastream in the batch.
    func checkBatch() throws {
        var seen = Set<[Int64]>()
        for o in observations where !seen.insert([o.datastream, o.phenomenonStart]).inserted {
            throw StoreError(.invalidFeature, "two observations of Datastream \(o.datastream) at phenomenonTime \(RFC3339.format(RFC3339.date(microseconds: o.phenomenonStart))) in one request",
                             field: "phenomenonTime")
        }
    }

    /// The audit rows of this change, chained from `previous`, at `time`, signed with `key` (`nil`: unkeyed).
    func auditRows(previous: String, time: Int64, key: AuditKey?) -> [(fid: String, kind: ChangeKind, before: String?, after: String?, entry: String)] {
        var out = [(fid: String, kind: ChangeKind, before: String?, after: String?, entry: String)]()
        var chain = previous
        func add(_ fid: String, _ kind: ChangeKind, _ after: String?) {
            chain = AuditChain.entryHash(previous: chain, at: time, actor: caller.author, department: caller.departmentName,
                                         role: caller.auditRole, layer: auditLayer, featureID: fid, kind: kind, before: nil, after: after,
                                         key: key)
            out.append((fid, kind, nil, after, chain))
        }
        for e in inserts { add("sta:\(e.kind.entitySet)(\(e.id))", .insert, Self.hash(e)) }
        for e in updates { add("sta:\(e.kind.entitySet)(\(e.id))", .update, Self.hash(e)) }
        for (k, id) in deletes { add("sta:\(k.entitySet)(\(id))", .delete, nil) }
        var byStream = [Int64: [SensingObservation]]()
        for o in observations + observationUpdates { byStream[o.datastream, default: []].append(o) }
        for (ds, list) in byStream.sorted(by: { $0.key < $1.key }) {
            // `id|phenomenonStart|result` lines, written straight into one buffer (thousands a batch).
            var text = [UInt8]()
            text.reserveCapacity(list.count * 48)
            for (k, o) in list.enumerated() {
                if k > 0 { text.append(10) }
                Self.appendDecimal(o.id, to: &text)
                text.append(124)
                Self.appendDecimal(o.phenomenonStart, to: &text)
                text.append(124)
                text.append(contentsOf: CanonicalJSON.text(o.result).utf8)
            }
            add("sta:Datastreams(\(ds))/Observations", .insert, SHA256.hex(text))
        }
        for id in observationDeletes { add("sta:Observations(\(id))", .delete, nil) }
        return out
    }

    /// `String(v)`'s digits, without making the string.
    static func appendDecimal(_ v: Int64, to out: inout [UInt8]) {
        if v < 0 { out.append(45) }
        var m = v.magnitude
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = 0
        withUnsafeMutableBytes(of: &digits) { d in
            repeat {
                d[n] = UInt8(48 + m % 10)
                m /= 10
                n += 1
            } while m > 0
            for i in stride(from: n - 1, through: 0, by: -1) { out.append(d[i]) }
        }
    }

    static func hash(_ e: SensingEntity) -> String {
        let links = e.links.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.map(String.init).joined(separator: ","))" }
        return SHA256.hex(Array((CanonicalJSON.text(e.body) + "\n" + links.joined(separator: ";")).utf8))
    }

    /// Kind → the outgoing links of other kinds whose holders go with a deleted entity of that kind.
    static let cascades: [SensingKind: [(SensingKind, String)]] = [
        .thing: [(.datastream, "Thing"), (.historicalLocation, "Thing")],
        .sensor: [(.datastream, "Sensor")],
        .observedProperty: [(.datastream, "ObservedProperty")],
    ]
}
