import CityModel
import Foundation
import GeoCore
import ProcessRuntime
import Sensing
import Signals
import TwinStore

/// Builds SensorThings writes: deep inserts (a Thing with its Locations and Datastreams, their
/// Sensor and ObservedProperty, in one POST), updates, deletes and observation batches, checked
/// whole before anything is written (400 naming the member by its JSON path), then applied
/// in one store transaction with its audit entries.
final class STAWriter: @unchecked Sendable {
    let reader: STAReader
    var store: any SensingStore { reader.store }
    private(set) var change: SensingChange
    /// Checks the whole change may be written, after it is read and before anything is (the
    /// traffic-count feed's: Routes/SensorThings/TrafficCountRecording.swift).
    var beforeCommit: (@Sendable (STAWriter) async throws -> Void)?
    private var nextTemp: Int64 = -1
    /// Existing entities loaded for links and type checks.
    private var known = [Int64: SensingEntity]()
    /// Datastream → its Thing's generated FeatureOfInterest, within this request.
    private var generatedFOI = [Int64: Int64]()

    init(reader: STAReader, caller: Caller, auditLayer: String) {
        self.reader = reader
        self.change = SensingChange(caller: caller, auditLayer: auditLayer)
    }

    static func invalid(_ path: String, _ reason: String) -> Problem {
        Problem(.invalidBody, "\(path): \(reason)", parameter: path.split(separator: ".").last.map(String.init), position: path)
    }

    private func temp() -> Int64 {
        defer { nextTemp -= 1 }
        return nextTemp
    }

    private func existing(_ kind: SensingKind, _ id: Int64, _ path: @autoclosure () -> String) async throws -> Int64 {
        if let e = known[id], e.kind == kind { return id }
        guard let e = try await store.sensingEntity(kind, id: id) else {
            throw Self.invalid(path(), "no \(kind.rawValue) with @iot.id \(id)")
        }
        known[id] = e
        return id
    }

    /// The traffic-count binding of each Datastream the change's new or replaced observations belong
    /// to (ids as in the change: before `commit`, a Datastream new in this request has a temporary id).
    func trafficCountStreams() -> [Int64: TrafficCountStream] {
        var out: [Int64: TrafficCountStream] = [:]
        for o in change.observations + change.observationUpdates where out[o.datastream] == nil {
            if let s = trafficCountStream(of: o.datastream) { out[o.datastream] = s }
        }
        return out
    }

    /// What a Datastream's `properties.traffic_count` binds it to (checked when it was written), read
    /// once per Datastream of the request: every row of a batch asks.
    private func trafficCountStream(of datastream: Int64) -> TrafficCountStream? {
        if let known = boundStreams[datastream] { return known }
        let found = TrafficCountStream.bound(by: entity(datastream)?.body["properties"])
        boundStreams[datastream] = .some(found)
        return found
    }
    private var boundStreams = [Int64: TrafficCountStream?]()

    /// The stored Observations this change takes back, with their Datastream's `properties` (read
    /// before the write, for the feeds recorded from them: traffic counts, parking occupancy): deleted
    /// ones, and the stored versions of replaced ones whose phenomenonTime or Datastream changes (a new
    /// result at the same time simply replaces the old one).
    private(set) var withdrawn: [(observation: SensingObservation, properties: JSONValue?)] = []

    private func loadWithdrawn() async throws {
        let ids = change.observationDeletes + change.observationUpdates.map(\.id)
        guard !ids.isEmpty else { return }
        let replacements = Dictionary(change.observationUpdates.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
        withdrawn = []
        for old in try await store.observations(ObservationRange(ids: ids, limit: ids.count, fields: [.phenomenonEnd, .result])) {
            if let new = replacements[old.id], new.datastream == old.datastream, new.phenomenonStart == old.phenomenonStart,
               new.phenomenonEnd == old.phenomenonEnd { continue }
            if known[old.datastream] == nil, let d = try await store.sensingEntity(.datastream, id: old.datastream) { known[old.datastream] = d }
            withdrawn.append((old, known[old.datastream]?.body["properties"]))
        }
    }

    /// The readings of bound Datastreams among `withdrawn`, by Observation id.
    func withdrawnTrafficCounts() -> [(observation: Int64, reading: TrafficCountFeed.Reading)] {
        withdrawn.compactMap { old, properties in
            guard let stream = TrafficCountStream.bound(by: properties), case .integer(let n) = old.result,
                  let minutes = try? TrafficCountStream.checkReading(result: old.result, start: old.phenomenonStart, end: old.phenomenonEnd) else { return nil }
            return (old.id, .init(stream: stream, start: old.phenomenonStart, minutes: minutes, count: Int(n)))
        }
    }

    /// The entity with `id`, new in this request or stored.
    private func entity(_ id: Int64) -> SensingEntity? {
        change.inserts.first { $0.id == id } ?? change.updates.first { $0.id == id } ?? known[id]
    }

    // MARK: Create

    /// Adds the entity `json` describes (a reference `{"@iot.id": n}` to an existing one, or a
    /// new one with its nested entities); `back` is the link the parent gives it.
    @discardableResult
    func create(_ kind: SensingKind, _ json: JSONValue, path: String, back: (name: String, id: Int64)? = nil) async throws -> Int64 {
        guard case .object(let o) = json else { throw Self.invalid(path, "must be a JSON object") }
        if let ref = o["@iot.id"] {
            guard let id = ref.integerValue ?? ref.stringValue.flatMap({ Int64($0) }) else { throw Self.invalid(path + ".@iot.id", "must be an integer") }
            if kind == .observation { throw Self.invalid(path, "an Observation cannot be linked by @iot.id; post it") }
            let found = try await existing(kind, id, path)
            if let back { try await addLink(to: found, back, path: path) }
            return found
        }
        if kind == .observation { return try await observation(o, path: path, back: back) }
        let id = temp()
        var e = SensingEntity(kind: kind, id: id, body: [:])
        let properties = Set(STAProperties.of[kind] ?? [])
        let navigation = SensingNavigation.properties(of: kind)
        var nested = [(String, JSONValue)]()
        for (key, value) in o.sorted(by: { $0.key < $1.key }) {
            if properties.contains(key) {
                e.body[key] = try Self.checkProperty(kind, key, value, path: "\(path).\(key)")
            } else if navigation[key] != nil {
                nested.append((key, value))
            } else if key.hasSuffix("@iot.navigationLink") || key == "@iot.selfLink" {
                continue
            } else {
                throw Self.invalid("\(path).\(key)", "\(kind.rawValue) has no member '\(key)'")
            }
        }
        for name in STAProperties.required[kind] ?? [] where e.body[name] == nil {
            throw Self.invalid("\(path).\(name)", "required for a new \(kind.rawValue)")
        }
        if let back {
            let many = SensingNavigation.outgoing[kind]?[back.name]?.1 ?? false
            e.links[back.name] = many ? (e.links[back.name] ?? []) + [back.id] : [back.id]
        }
        change.inserts.append(e)
        for (name, value) in nested {
            let (target, many) = navigation[name]!
            let memberPath = "\(path).\(name)"
            let items: [(JSONValue, String)]
            if many {
                guard case .array(let list) = value else { throw Self.invalid(memberPath, "must be an array") }
                items = list.enumerated().map { ($1, "\(memberPath)[\($0)]") }
            } else {
                items = [(value, memberPath)]
            }
            for (item, itemPath) in items {
                if SensingNavigation.outgoing[kind]?[name] != nil {
                    let child = try await create(target, item, path: itemPath)
                    update(id) { $0.links[name, default: []].append(child) }
                } else if name == "Observations" || kind == .observation {
                    try await create(target, item, path: itemPath, back: (kind.rawValue, id))
                } else if let (_, backName) = SensingNavigation.incoming[kind]?[name] {
                    try await create(target, item, path: itemPath, back: (backName, id))
                }
            }
        }
        if kind == .thing, let locations = entity(id)?.links["Locations"], !locations.isEmpty {
            addHistoricalLocation(thing: id, locations: locations)
        }
        if kind == .datastream {
            for name in ["Thing", "Sensor", "ObservedProperty"] where entity(id)?.link(name) == nil {
                throw Self.invalid("\(path).\(name)", "a Datastream needs its \(name)")
            }
        }
        if kind == .historicalLocation, entity(id)?.link("Thing") == nil {
            throw Self.invalid("\(path).Thing", "a HistoricalLocation needs its Thing")
        }
        return id
    }

    private func update(_ id: Int64, _ body: (inout SensingEntity) -> Void) {
        if let i = change.inserts.firstIndex(where: { $0.id == id }) { body(&change.inserts[i]); return }
        if let i = change.updates.firstIndex(where: { $0.id == id }) { body(&change.updates[i]); return }
        if var e = known[id] {
            body(&e)
            change.updates.append(e)
        }
    }

    /// Gives an existing entity the link its new parent asks for (a Location posted under a Thing).
    private func addLink(to id: Int64, _ back: (name: String, id: Int64), path: String) async throws {
        guard let e = entity(id) else { return }
        guard let (_, many) = SensingNavigation.outgoing[e.kind]?[back.name] else {
            throw Self.invalid(path, "an existing \(e.kind.rawValue) is linked from its own side; PATCH it")
        }
        update(id) { $0.links[back.name] = many ? Array(Set(($0.links[back.name] ?? []) + [back.id])).sorted() : [back.id] }
        if e.kind == .thing, back.name == "Locations" { addHistoricalLocation(thing: id, locations: [back.id]) }
    }

    /// Adds `id` to the to-many link `name` of the existing `kind(holder)`: a Location posted to
    /// `Things(1)/Locations` (with a new HistoricalLocation, as STA 1.1 §10.2 asks).
    func link(_ kind: SensingKind, _ holder: Int64, _ name: String, to id: Int64) async throws {
        _ = try await existing(kind, holder, "$")
        update(holder) { $0.links[name] = ($0.links[name] ?? []) + [id] }
        if kind == .thing, name == "Locations" { addHistoricalLocation(thing: holder, locations: [id]) }
    }

    private func addHistoricalLocation(thing: Int64, locations: [Int64]) {
        change.inserts.append(SensingEntity(kind: .historicalLocation, id: temp(), body: ["time": .string(SensingTime.format(reader.now))],
                                            links: ["Thing": [thing], "Locations": locations]))
    }

    // MARK: Observations

    private func observation(_ o: [String: JSONValue], path: String, back: (name: String, id: Int64)?) async throws -> Int64 {
        var datastream: Int64?, foi: Int64?
        if back?.name == SensingKind.datastream.rawValue { datastream = back?.id }
        if back?.name == SensingKind.featureOfInterest.rawValue { foi = back?.id }
        var fields = [String: JSONValue]()
        for (key, value) in o.sorted(by: { $0.key < $1.key }) {
            switch key {
            case "Datastream": datastream = try await create(.datastream, value, path: "\(path).Datastream")
            case "FeatureOfInterest": foi = try await create(.featureOfInterest, value, path: "\(path).FeatureOfInterest")
            case "phenomenonTime", "resultTime", "result", "resultQuality", "validTime", "parameters": fields[key] = value
            default:
                if key.hasSuffix("@iot.navigationLink") || key == "@iot.selfLink" { continue }
                throw Self.invalid("\(path).\(key)", "Observation has no member '\(key)'")
            }
        }
        guard let datastream else { throw Self.invalid("\(path).Datastream", "an Observation needs its Datastream") }
        let id = temp()
        var obs = try await makeObservation(id: id, datastream: datastream, foi: foi, fields, path: path)
        if obs.featureOfInterest == nil { obs.featureOfInterest = try await featureOfInterest(for: datastream, path: path) }
        change.observations.append(obs)
        return id
    }

    /// An observation from its members, its result checked against the Datastream's observationType.
    func makeObservation(id: Int64, datastream: Int64, foi: Int64?, _ fields: [String: JSONValue], path: @autoclosure () -> String) async throws -> SensingObservation {
        var start = reader.now, end: Int64?
        if let t = fields["phenomenonTime"], !t.isNull {
            guard let s = t.stringValue, let p = SensingTime.period(s) else {
                throw Self.invalid("\(path()).phenomenonTime", "must be an RFC 3339 instant or interval start/end")
            }
            (start, end) = p
        }
        var resultTime: Int64?
        if let t = fields["resultTime"], !t.isNull {
            guard let s = t.stringValue, let v = SensingTime.instant(s) else { throw Self.invalid("\(path()).resultTime", "must be an RFC 3339 instant or null") }
            resultTime = v
        }
        var validStart: Int64?, validEnd: Int64?
        if let t = fields["validTime"], !t.isNull {
            guard let s = t.stringValue, let p = SensingTime.period(s) else { throw Self.invalid("\(path()).validTime", "must be an RFC 3339 interval") }
            (validStart, validEnd) = (p.start, p.end)
        }
        if let p = fields["parameters"], !p.isNull, p.objectValue == nil { throw Self.invalid("\(path()).parameters", "must be a JSON object") }
        guard let result = fields["result"] else { throw Self.invalid("\(path()).result", "required for a new Observation") }
        for name in ["result", "parameters", "resultQuality"] {
            if let v = fields[name] { try Self.checkText(v, path: "\(path()).\(name)") }
        }
        if datastream > 0 { _ = try await existing(.datastream, datastream, "\(path()).Datastream") }
        if let type = entity(datastream)?.body["observationType"]?.stringValue {
            try Self.checkResult(result, type: type, path: "\(path()).result")
        }
        if trafficCountStream(of: datastream) != nil {
            do { _ = try TrafficCountStream.checkReading(result: result, start: start, end: end) } catch let e as any InputFailure {
                throw Self.invalid("\(path()).\(e.failedInput)", e.failureReason)
            }
        }
        return SensingObservation(id: id, datastream: datastream, featureOfInterest: foi, phenomenonStart: start, phenomenonEnd: end,
                                  resultTime: resultTime, result: result, resultQuality: fields["resultQuality"].flatMap { $0.isNull ? nil : $0 },
                                  validStart: validStart, validEnd: validEnd, parameters: fields["parameters"].flatMap { $0.isNull ? nil : $0 })
    }

    /// The FeatureOfInterest generated from the Location of the Datastream's Thing (STA 1.1
    /// §8.2.7): reused when one was generated from that Location before; `nil` without a Location.
    private func featureOfInterest(for datastream: Int64, path: String) async throws -> Int64? {
        if let f = generatedFOI[datastream] { return f }
        guard let thingID = entity(datastream)?.link("Thing") else { return nil }
        if entity(thingID) == nil, let t = try await store.sensingEntity(.thing, id: thingID) { known[thingID] = t }
        guard let location = entity(thingID)?.links["Locations"]?.max() else { return nil }
        var foi: Int64?
        if location > 0, let found = try await store.sensingEntities(.featureOfInterest, linkedBy: SensingLink("_Location", location)).first {
            foi = found.id
        } else if let made = change.inserts.first(where: { $0.kind == .featureOfInterest && $0.link("_Location") == location }) {
            foi = made.id
        } else {
            if entity(location) == nil, let l = try await store.sensingEntity(.location, id: location) { known[location] = l }
            guard let loc = entity(location) else { return nil }
            let id = temp()
            change.inserts.append(SensingEntity(kind: .featureOfInterest, id: id, body: [
                "name": loc.body["name"] ?? "", "description": loc.body["description"] ?? "",
                "encodingType": loc.body["encodingType"] ?? "application/geo+json", "feature": loc.body["location"] ?? .null,
            ], links: ["_Location": [location]]))
            foi = id
        }
        generatedFOI[datastream] = foi
        return foi
    }

    /// `POST CreateObservations` (Data Array extension): one entry per Datastream with its
    /// `components` and rows.
    func createObservations(_ json: JSONValue) async throws -> [Int64] {
        guard case .array(let entries) = json else { throw Self.invalid("$", "must be an array of {Datastream, components, dataArray}") }
        let allowed: Set<String> = ["phenomenonTime", "resultTime", "result", "resultQuality", "validTime", "parameters", "FeatureOfInterest/id"]
        for (i, entryValue) in entries.enumerated() {
            let path = "$[\(i)]"
            guard case .object(let entry) = entryValue else { throw Self.invalid(path, "must be a JSON object") }
            guard let ds = entry["Datastream"]?.objectValue?["@iot.id"]?.integerValue else {
                throw Self.invalid("\(path).Datastream", "must be {\"@iot.id\": n}")
            }
            let datastream = try await existing(.datastream, ds, "\(path).Datastream")
            guard let components = entry["components"]?.arrayValue?.compactMap(\.stringValue), !components.isEmpty else {
                throw Self.invalid("\(path).components", "must be an array of member names")
            }
            for (k, c) in components.enumerated() where !allowed.contains(c) {
                throw Self.invalid("\(path).components[\(k)]", "'\(c)' is not one of \(allowed.sorted().joined(separator: ", "))")
            }
            guard components.contains("result") else { throw Self.invalid("\(path).components", "must contain result") }
            guard let rows = entry["dataArray"]?.arrayValue else { throw Self.invalid("\(path).dataArray", "must be an array of rows") }
            if let n = entry["dataArray@iot.count"]?.integerValue, n != rows.count {
                throw Self.invalid("\(path).dataArray@iot.count", "is \(n) but dataArray holds \(rows.count) rows")
            }
            let ids = (0..<rows.count).map { _ in temp() }
            var cachedFOI: Int64??
            var checkedFOI = Set<Int64>()
            for (r, rowValue) in rows.enumerated() {
                func rowPath() -> String { "\(path).dataArray[\(r)]" }  // for errors only: not built per row
                guard let row = rowValue.arrayValue, row.count == components.count else {
                    throw Self.invalid(rowPath(), "must be an array of \(components.count) values (components)")
                }
                var fields = [String: JSONValue]()
                var foi: Int64?
                for (c, name) in components.enumerated() {
                    if name == "FeatureOfInterest/id" {
                        guard let f = row[c].integerValue else { throw Self.invalid("\(rowPath())[\(c)]", "FeatureOfInterest/id must be an integer") }
                        if !checkedFOI.contains(f) { _ = try await existing(.featureOfInterest, f, "\(rowPath())[\(c)]"); checkedFOI.insert(f) }
                        foi = f
                    } else {
                        fields[name] = row[c]
                    }
                }
                var obs = try await makeObservation(id: ids[r], datastream: datastream, foi: foi, fields, path: rowPath())
                if obs.featureOfInterest == nil {
                    if cachedFOI == nil { cachedFOI = .some(try await featureOfInterest(for: datastream, path: rowPath())) }
                    obs.featureOfInterest = cachedFOI!
                }
                change.observations.append(obs)
            }
        }
        return try await commit()
    }

    // MARK: Update and delete

    /// `PATCH` of an entity: the members given replace the stored ones; to-one links by
    /// `{"@iot.id": n}`, a Thing's Locations by an array of them (a new HistoricalLocation).
    func patch(_ kind: SensingKind, _ id: Int64, _ json: JSONValue) async throws {
        guard case .object(let o) = json else { throw Self.invalid("$", "must be a JSON object") }
        if kind == .observation {
            guard let old = try await store.observation(id: id) else { throw Problem(.notFound, "no Observation with @iot.id \(id)") }
            change.observationBasis[id] = old  // written only if still stored so (`SensingChange.observationBasis`)
            let row = STARow(old)
            var fields = row.json
            var datastream = old.datastream, foi = old.featureOfInterest
            for (key, value) in o {
                switch key {
                case "Datastream": datastream = try await create(.datastream, value, path: "$.Datastream")
                case "FeatureOfInterest": foi = try await create(.featureOfInterest, value, path: "$.FeatureOfInterest")
                case "phenomenonTime", "resultTime", "result", "resultQuality", "validTime", "parameters": fields[key] = value
                case "@iot.id", "@iot.selfLink": continue
                default: throw Self.invalid("$.\(key)", "Observation has no member '\(key)'")
                }
            }
            change.observationUpdates.append(try await makeObservation(id: id, datastream: datastream, foi: foi, fields, path: "$"))
            _ = try await commit()
            return
        }
        guard var e = try await store.sensingEntity(kind, id: id) else { throw Problem(.notFound, "no \(kind.rawValue) with @iot.id \(id)") }
        known[id] = e
        change.basis[id] = e  // written only if still stored so (`SensingChange.basis`)
        let properties = Set(STAProperties.of[kind] ?? [])
        var newLocations: [Int64]?
        for (key, value) in o.sorted(by: { $0.key < $1.key }) {
            if properties.contains(key) {
                e.body[key] = try Self.checkProperty(kind, key, value, path: "$.\(key)")
            } else if let (target, many) = SensingNavigation.outgoing[kind]?[key], !key.hasPrefix("_") {
                if many {
                    guard case .array(let list) = value else { throw Self.invalid("$.\(key)", "must be an array") }
                    var ids = [Int64]()
                    for (i, item) in list.enumerated() { ids.append(try await create(target, item, path: "$.\(key)[\(i)]")) }
                    e.links[key] = ids
                    if kind == .thing, key == "Locations" { newLocations = ids }
                } else {
                    e.links[key] = [try await create(target, value, path: "$.\(key)")]
                }
            } else if key == "@iot.id" || key == "@iot.selfLink" || key.hasSuffix("@iot.navigationLink") {
                continue
            } else {
                throw Self.invalid("$.\(key)", "\(kind.rawValue) has no member or link that PATCH changes named '\(key)'")
            }
        }
        change.updates.append(e)
        if let newLocations, !newLocations.isEmpty { addHistoricalLocation(thing: id, locations: newLocations) }
        _ = try await commit()
    }

    func delete(_ kind: SensingKind, _ id: Int64) async throws {
        if kind == .observation { change.observationDeletes.append(id) } else { change.deletes.append((kind, id)) }
        _ = try await commit()
    }

    // MARK: Commit

    /// Replaces temporary ids with reserved ones and writes the change; the stored ids of the
    /// observations, in order.
    @discardableResult
    func commit() async throws -> [Int64] {
        try await loadWithdrawn()
        try await beforeCommit?(self)
        // A co-built register: each department writes its own entities (SensingOwnership.swift).
        if let catalogue = store as? any FeatureStore, let governing = try await catalogue.layerDefinition(change.auditLayer, for: .admin) {
            try await SensingOwnership.apply(&change, governing: governing, store: store)
        }
        let temps = -nextTemp - 1
        let reserved = try await store.reserveSensingIDs(Int(temps))
        let real: @Sendable (Int64) -> Int64 = { id in id < 0 ? reserved[Int(-id - 1)] : id }
        change.inserts = change.inserts.map { e in
            var e = e
            e.id = real(e.id)
            e.links = e.links.mapValues { $0.map(real) }
            return e
        }
        change.updates = change.updates.map { e in
            var e = e
            e.links = e.links.mapValues { $0.map(real) }
            return e
        }
        change.observations = change.observations.map { o in
            var o = o
            o.id = real(o.id)
            o.datastream = real(o.datastream)
            o.featureOfInterest = o.featureOfInterest.map(real)
            return o
        }
        change.observationUpdates = change.observationUpdates.map { o in
            var o = o
            o.datastream = real(o.datastream)
            o.featureOfInterest = o.featureOfInterest.map(real)
            return o
        }
        mapping = real
        let ids = try await store.applySensing(change)
        return ids
    }

    /// Temporary id → stored id, after `commit`.
    private(set) var mapping: @Sendable (Int64) -> Int64 = { $0 }
}
