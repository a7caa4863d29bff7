import Foundation
import GeoCore
import Testing
@testable import TwinStore

/// SensorThings entities and observations in the store: deep-insert batches with links,
/// reference checks, idempotent observations by (datastream, phenomenonTime), range reads,
/// cascading deletes, audit entries — the same on SpatiaLite and PostGIS.
@Suite("SensorThings store", .dropsTestSchemas)
struct SensingStoreTests {
    /// The layer whose audit log records the writes (any layer serves the store; the server uses iot_devices).
    static let layer = "shelters"

    func sensing(_ backend: StoreBackend) async throws -> (any FeatureStore, any SensingStore) {
        let store = try await backend.makeStore()
        return (store, try #require(store as? any SensingStore, "every CityTwin store keeps SensorThings entities"))
    }

    /// A Thing with a Location, a Sensor, an ObservedProperty and a Datastream, in one change.
    func seed(_ s: any SensingStore) async throws -> (thing: Int64, datastream: Int64, location: Int64) {
        let ids = try await s.reserveSensingIDs(5)
        #expect(ids.count == 5 && Set(ids).count == 5)
        let (thing, loc, sensor, prop, ds) = (ids[0], ids[1], ids[2], ids[3], ids[4])
        var c = SensingChange(caller: Fixtures.emergency, auditLayer: Self.layer)
        c.inserts = [
            SensingEntity(kind: .location, id: loc, body: ["name": "G1", "description": "gauge", "encodingType": "application/geo+json",
                                                           "location": ["type": "Point", "coordinates": [114.8, 30.84]]]),
            SensingEntity(kind: .thing, id: thing, body: ["name": "Gauge 1", "description": "river gauge"], links: ["Locations": [loc]]),
            SensingEntity(kind: .sensor, id: sensor, body: ["name": "radar", "description": "", "encodingType": "text/html", "metadata": "x"]),
            SensingEntity(kind: .observedProperty, id: prop, body: ["name": "level", "definition": "urn:level", "description": ""]),
            SensingEntity(kind: .datastream, id: ds, body: ["name": "level", "description": "", "observationType": "OM_Measurement",
                                                            "unitOfMeasurement": ["symbol": "m"]],
                          links: ["Thing": [thing], "Sensor": [sensor], "ObservedProperty": [prop]]),
        ]
        _ = try await s.applySensing(c)
        return (thing, ds, loc)
    }

    static let hour: Int64 = 3_600_000_000
    static let t0: Int64 = 1_767_225_600_000_000  // 2026-01-01T00:00:00Z

    /// Stores a feature of interest, an observation with every field set (starting at `start`, with
    /// `result` and `parameters`) and a bare one (`bare` given its id); answers the two observations.
    func storeFullAndBare(_ s: any SensingStore, _ ds: Int64, start: Int64, result: JSONValue, parameters: JSONValue,
                          bare: (Int64) -> SensingObservation) async throws -> (full: SensingObservation, bare: SensingObservation) {
        let ids = try await s.reserveSensingIDs(3)
        var c = SensingChange(caller: Fixtures.emergency, auditLayer: Self.layer)
        c.inserts = [SensingEntity(kind: .featureOfInterest, id: ids[0], body: [
            "name": "reach", "description": "", "encodingType": "application/geo+json",
            "feature": ["type": "Point", "coordinates": [114.8, 30.84]]])]
        let full = SensingObservation(id: ids[1], datastream: ds, featureOfInterest: ids[0], phenomenonStart: start,
                                      phenomenonEnd: Self.t0 + Self.hour, resultTime: Self.t0 + 2 * Self.hour, result: result,
                                      resultQuality: "good", validStart: Self.t0 - 3 * Self.hour, validEnd: Self.t0 + 4 * Self.hour,
                                      parameters: parameters)
        c.observations = [full, bare(ids[2])]
        _ = try await s.applySensing(c)
        return (full, c.observations[1])
    }

    func observations(_ s: any SensingStore, datastream: Int64, count: Int, value: (Int) -> Double = { Double($0) }) async throws -> [SensingObservation] {
        let ids = try await s.reserveSensingIDs(count)
        return (0..<count).map { i in
            SensingObservation(id: ids[i], datastream: datastream, phenomenonStart: Self.t0 + Int64(i) * Self.hour, result: .number(value(i)))
        }
    }

    @Test("a deep insert stores entities with their links both ways", arguments: StoreBackend.available)
    func deepInsert(_ backend: StoreBackend) async throws {
        let (_, s) = try await sensing(backend)
        let (thing, ds, loc) = try await seed(s)
        let stream = try #require(try await s.sensingEntity(.datastream, id: ds))
        #expect(stream.link("Thing") == thing)
        #expect(stream.body["unitOfMeasurement"] == ["symbol": "m"])
        #expect(try await s.sensingEntities(.datastream, linkedBy: SensingLink("Thing", thing)).map(\.id) == [ds])
        #expect(try await s.sensingEntities(.thing, linkedBy: SensingLink("Locations", loc)).map(\.id) == [thing])
        #expect(try await s.sensingEntity(.thing, id: ds) == nil, "an id of another kind is not a Thing")
    }

    @Test("a link to a missing entity fails the whole change", arguments: StoreBackend.available)
    func unknownLink(_ backend: StoreBackend) async throws {
        let (_, s) = try await sensing(backend)
        let ids = try await s.reserveSensingIDs(2)
        var c = SensingChange(caller: Fixtures.emergency, auditLayer: Self.layer)
        c.inserts = [
            SensingEntity(kind: .thing, id: ids[0], body: ["name": "T", "description": ""]),
            SensingEntity(kind: .datastream, id: ids[1], body: ["name": "d", "description": ""],
                          links: ["Thing": [ids[0]], "Sensor": [999_999], "ObservedProperty": [999_998]]),
        ]
        let error = try await #require(throws: StoreError.self) { _ = try await s.applySensing(c) }
        #expect(error.code == .invalidFeature)
        #expect(error.field == "Sensor" || error.field == "ObservedProperty")
        #expect(try await s.sensingEntity(.thing, id: ids[0]) == nil, "nothing half-written")
    }

    @Test("observations are read by datastream and time range, and re-sent ones are idempotent", arguments: StoreBackend.available)
    func observationRanges(_ backend: StoreBackend) async throws {
        let (_, s) = try await sensing(backend)
        let (_, ds, _) = try await seed(s)
        let batch = try await observations(s, datastream: ds, count: 48)
        let stored = try await s.applySensing({ var c = SensingChange(caller: Fixtures.emergency, auditLayer: Self.layer); c.observations = batch; return c }())
        #expect(stored == batch.map(\.id))

        // The last day: 24 hourly readings, newest first.
        let day = ObservationRange(datastream: ds, from: Self.t0 + 24 * Self.hour, to: Self.t0 + 48 * Self.hour,
                                   order: .phenomenonTime, descending: true, limit: 100)
        let read = try await s.observations(day)
        #expect(read.count == 24)
        #expect(read.first?.result == .number(47))
        #expect(read.last?.result == .number(24))
        #expect(try await s.observationCount(day) == 24)

        // Re-sending the same readings (new ids reserved by the client's retry) changes nothing.
        var again = try await observations(s, datastream: ds, count: 3)
        again = again.enumerated().map { i, o in var o = o; o.featureOfInterest = nil; _ = i; return o }
        let ids = try await s.applySensing({ var c = SensingChange(caller: Fixtures.emergency, auditLayer: Self.layer); c.observations = again; return c }())
        #expect(ids == Array(batch.prefix(3).map(\.id)), "a re-sent reading keeps the id it was stored under")
        #expect(try await s.observationCount(ObservationRange(datastream: ds)) == 48)
    }

    @Test("every field of an observation reads back, set or absent", arguments: StoreBackend.available)
    func observationFields(_ backend: StoreBackend) async throws {
        let (_, s) = try await sensing(backend)
        let (_, ds, _) = try await seed(s)
        let (full, bare) = try await storeFullAndBare(s, ds, start: Self.t0 - 1, result: ["level": 2.5, "ok": true],
                                                      parameters: ["method": "radar", "n": 3],
                                                      bare: { SensingObservation(id: $0, datastream: ds, phenomenonStart: Self.t0 + 7, result: "dry") })
        #expect(try await s.observations(ObservationRange(datastream: ds, order: .phenomenonTime)) == [full, bare])
        #expect(try await s.observations(ObservationRange(ids: [bare.id, full.id])) == [full, bare])
        #expect(try await s.observation(id: bare.id) == bare)
    }

    @Test("a read of some fields reads those (and id, Datastream, phenomenon start) alone", arguments: StoreBackend.available)
    func someObservationFields(_ backend: StoreBackend) async throws {
        let (_, s) = try await sensing(backend)
        let (_, ds, _) = try await seed(s)
        let (full, plain) = try await storeFullAndBare(s, ds, start: Self.t0, result: ["level": 2.5], parameters: ["n": 3],
                                                       bare: { SensingObservation(id: $0, datastream: ds, phenomenonStart: Self.t0 + Self.hour, result: .number(-0.25)) })
        func read(_ fields: ObservationFields) async throws -> [SensingObservation] {
            try await s.observations(ObservationRange(datastream: ds, order: .phenomenonTime, fields: fields))
        }
        #expect(try await read(.all) == [full, plain])
        #expect(try await read([.result]) == [
            SensingObservation(id: full.id, datastream: ds, phenomenonStart: Self.t0, result: ["level": 2.5]),
            SensingObservation(id: plain.id, datastream: ds, phenomenonStart: Self.t0 + Self.hour, result: .number(-0.25)),
        ])
        #expect(try await read([]).map(\.result) == [.null, .null], "a result not asked for is not read")
        let some = try await read([.phenomenonEnd, .validTime, .featureOfInterest])
        #expect(some.first == SensingObservation(id: full.id, datastream: ds, featureOfInterest: full.featureOfInterest, phenomenonStart: Self.t0,
                                                 phenomenonEnd: Self.t0 + Self.hour, result: .null,
                                                 validStart: Self.t0 - 3 * Self.hour, validEnd: Self.t0 + 4 * Self.hour))
        #expect(try await read([.resultTime, .resultQuality, .parameters]).first == SensingObservation(
            id: full.id, datastream: ds, phenomenonStart: Self.t0, resultTime: Self.t0 + 2 * Self.hour, result: .null,
            resultQuality: "good", parameters: ["n": 3]))
    }

    @Test("a different result at a stored phenomenonTime, or twice in one batch, is refused whole", arguments: StoreBackend.available)
    func conflictingObservations(_ backend: StoreBackend) async throws {
        let (_, s) = try await sensing(backend)
        let (_, ds, _) = try await seed(s)
        let batch = try await observations(s, datastream: ds, count: 2)
        _ = try await s.applySensing({ var c = SensingChange(caller: Fixtures.emergency, auditLayer: Self.layer); c.observations = batch; return c }())

        var changed = try await observations(s, datastream: ds, count: 4, value: { Double($0) + 100 })
        changed[0].phenomenonStart = Self.t0 + 10 * Self.hour  // new
        changed[1].phenomenonStart = Self.t0 + Self.hour       // conflicts with reading 1
        let conflict = changed
        let error = try await #require(throws: StoreError.self) {
            _ = try await s.applySensing({ var c = SensingChange(caller: Fixtures.emergency, auditLayer: Self.layer); c.observations = conflict; return c }())
        }
        #expect(error.field == "phenomenonTime")
        #expect(try await s.observationCount(ObservationRange(datastream: ds)) == 2, "the new reading of the refused batch is not stored")

        var twice = try await observations(s, datastream: ds, count: 2)
        twice[1].phenomenonStart = twice[0].phenomenonStart + 0
        twice[0].phenomenonStart = Self.t0 + 20 * Self.hour
        twice[1].phenomenonStart = Self.t0 + 20 * Self.hour
        let duplicate = twice
        let e2 = try await #require(throws: StoreError.self) {
            _ = try await s.applySensing({ var c = SensingChange(caller: Fixtures.emergency, auditLayer: Self.layer); c.observations = duplicate; return c }())
        }
        #expect(e2.field == "phenomenonTime")
    }

    @Test("an observation of an unknown datastream is refused", arguments: StoreBackend.available)
    func unknownDatastream(_ backend: StoreBackend) async throws {
        let (_, s) = try await sensing(backend)
        let (thing, _, _) = try await seed(s)
        var c = SensingChange(caller: Fixtures.emergency, auditLayer: Self.layer)
        c.observations = [SensingObservation(id: try await s.reserveSensingIDs(1)[0], datastream: thing, phenomenonStart: Self.t0, result: 1.5)]
        let error = try await #require(throws: StoreError.self) { _ = try await s.applySensing(c) }
        #expect(error.field == "Datastream")
    }

    @Test("deleting a Thing deletes its Datastreams and their Observations; writes are audited", arguments: StoreBackend.available)
    func cascadeAndAudit(_ backend: StoreBackend) async throws {
        let (store, s) = try await sensing(backend)
        let (thing, ds, loc) = try await seed(s)
        let batch = try await observations(s, datastream: ds, count: 5)
        _ = try await s.applySensing({ var c = SensingChange(caller: Fixtures.emergency, auditLayer: Self.layer); c.observations = batch; return c }())
        var c = SensingChange(caller: Fixtures.emergency, auditLayer: Self.layer)
        c.deletes = [(.thing, thing)]
        _ = try await s.applySensing(c)
        #expect(try await s.sensingEntity(.thing, id: thing) == nil)
        #expect(try await s.sensingEntity(.datastream, id: ds) == nil)
        #expect(try await s.observationCount(ObservationRange(datastream: ds)) == 0)
        #expect(try await s.sensingEntity(.location, id: loc) != nil, "a Location outlives its Thing")

        let audit = try await store.auditLog(layer: Self.layer, after: 0, limit: 100, by: .admin)
        #expect(audit.contains { $0.featureID == "sta:Things(\(thing))" && $0.kind == .insert })
        #expect(audit.contains { $0.featureID == "sta:Datastreams(\(ds))/Observations" })
        #expect(audit.contains { $0.featureID == "sta:Things(\(thing))" && $0.kind == .delete })
        #expect(try await ManagedRasterStoreTests.chain(store).isIntact, "SensorThings entries continue the one (keyed) audit chain")
    }
}
