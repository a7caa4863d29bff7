import CityModel
import Foundation
import GeoCore
import Hummingbird
import HummingbirdTesting
import Scenarios
import Signals
import SignalSim
import TestSupport
import Testing
import TwinStore
@testable import Server

/// Live traffic counts: detectors the platform registers on the SensorThings API (Datastreams with
/// `properties.traffic_count`), whose readings the counts' owner sends, become `traffic_counts` rows
/// the plans read.
@Suite("Traffic counts from the SensorThings API")
struct TrafficCountFeedTests {
    static let police = "公安局"

    /// The sample district's signals and counts beside the SensorThings layer.
    static func run(signalRetiming: SignalPlanning.Retiming? = nil, _ body: @Sendable (SensorThingsAPI) async throws -> Void) async throws {
        try await SensorThingsAPI.run(seed: { store in
            let layers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Layers")
            let catalog = try LayerCatalog.load(directory: layers)
            let district = try SampleDistrict.generate()
            for id in ["signalized_intersections", "traffic_counts", "signal_plans"] {
                try await store.createLayer(try #require(catalog[id]))
                try await store.insert(layer: id, features: district[layer: id], by: .admin, at: nil)
            }
        }, signalRetiming: signalRetiming, body)
    }

    /// A video detector on one approach of SI-009 (default the north): one Datastream per movement.
    static func detector(intersection: String = "SI-009", approach: String = "N", movements: [String] = ["left", "through", "right"],
                         detector: String = "video") -> String {
        let streams = movements.map { m in
            """
            {"name": "\(intersection) \(approach) \(m)", "description": "vehicles counted per interval",
             "observationType": "http://www.opengis.net/def/observationType/OGC-OM/2.0/OM_CountObservation",
             "unitOfMeasurement": {"name": "vehicle", "symbol": "veh", "definition": "https://example.org/vehicle"},
             "properties": {"traffic_count": {"intersection": "\(intersection)", "approach": "\(approach)", "movement": "\(m)", "detector": "\(detector)"}},
             "Sensor": {"name": "video detector", "description": "视频检测器", "encodingType": "text/html", "metadata": "https://example.org/video"},
             "ObservedProperty": {"name": "vehicle count", "definition": "https://example.org/count", "description": "vehicles counted"}}
            """
        }
        return """
            {"name": "\(intersection) \(approach) 进口 视频检测器", "description": "video detector", "Datastreams": [\(streams.joined(separator: ","))]}
            """
    }

    /// The Datastream ids of the detectors of `approach`, by movement.
    static func streams(_ api: SensorThingsAPI, approach: String = "N") async throws -> [String: Int64] {
        let r = try await api.get("/sta/v1.1/Datastreams")
        var out: [String: Int64] = [:]
        for d in try r.json["value"]?.arrayValue ?? [] where d["properties"]?["traffic_count"]?["approach"]?.stringValue == approach {
            if let m = d["properties"]?["traffic_count"]?["movement"]?.stringValue, let id = d["@iot.id"]?.integerValue { out[m] = id }
        }
        return out
    }

    static func counts(_ ds: [String: Int64], _ values: [String: Int], interval: String) -> String {
        let entries = values.map { m, n in
            "{\"Datastream\": {\"@iot.id\": \(ds[m]!)}, \"components\": [\"phenomenonTime\", \"result\"], \"dataArray\": [[\"\(interval)\", \(n)]]}"
        }
        return "[" + entries.joined(separator: ",") + "]"
    }

    static let interval = "2026-11-24T08:00:00+08:00/2026-11-24T08:15:00+08:00"
    static let row = "TC-SI-009-N-202611240800-15"

    @Test("readings of one interval recorded at the same instant by separate writers (server processes on one store) all land in its row")
    func concurrentRecording() async throws {
        try await Self.run { api in
            let store = api.store
            let police = Caller.department(name: Self.police, role: .editor, user: "视频检测网关")
            let first = Int64(ISO8601DateFormatter().date(from: "2026-11-24T06:00:00+08:00")!.timeIntervalSince1970) * 1_000_000
            // Each movement's reading is recorded by its own writer, without the server's in-process lock,
            // as three `citytwin serve` processes behind a load balancer would; each reads the row, then
            // writes it back with its movement set.
            let intervals = 16
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (k, movement) in ["left", "through", "right"].enumerated() {
                    group.addTask {
                        var stream = try #require(TrafficCountStream.bound(by: ["traffic_count": ["intersection": "SI-009", "approach": "N",
                                                                                                    "movement": "left", "detector": "video"]]))
                        stream.movement = movement
                        for i in 0..<intervals {
                            let reading = TrafficCountFeed.Reading(stream: stream, start: first + Int64(i) * 900_000_000, minutes: 15, count: 100 * k + i)
                            try await TrafficCountFeed.record([reading], into: store, by: police)
                        }
                    }
                }
                try await group.waitForAll()
            }
            for i in 0..<intervals {
                let start = first + Int64(i) * 900_000_000
                let id = "TC-SI-009-N-20261124\(TrafficCountFeed.localStart(start).dropFirst(11).prefix(5).replacingOccurrences(of: ":", with: ""))-15"
                let row = try #require(try await store.feature(layer: "traffic_counts", id: id, by: .admin), "\(id)")
                #expect(row.properties["left"] == .integer(Int64(i)) && row.properties["through"] == .integer(Int64(100 + i))
                        && row.properties["right"] == .integer(Int64(200 + i)), "\(id): \(row.properties)")
            }
        }
    }

    @Test("the platform registers a detector, the counts' owner sends its readings: one traffic_counts row per approach and interval, audited under the sender, read by the plans")
    func readingsBecomeCounts() async throws {
        try await Self.run { api in
            let registered = try await api.send(.post, "/sta/v1.1/Things", token: api.token(), body: Self.detector())
            #expect(registered.status == .created, "\(registered.text)")
            let ds = try await Self.streams(api)
            #expect(ds.count == 3)
            let police = api.token(Self.police)
            let sent = try await api.send(.post, "/sta/v1.1/CreateObservations", token: police,
                                          body: Self.counts(ds, ["left": 31, "through": 142, "right": 17], interval: Self.interval))
            #expect(sent.status == .created, "\(sent.text)")
            let row = try #require(try await api.store.feature(layer: "traffic_counts", id: Self.row, by: .admin))
            #expect(row.properties["intersection"] == "SI-009" && row.properties["approach"] == "N")
            #expect(row.properties["start"] == "2026-11-24T08:00:00+08:00" && row.properties["minutes"] == 15)
            #expect(row.properties["left"] == 31 && row.properties["through"] == 142 && row.properties["right"] == 17)
            #expect(row.properties["detector"] == "video")
            let audit = try await api.store.auditLog(layer: "traffic_counts", after: 0, limit: 100_000, by: .admin)
            #expect(audit.contains { $0.featureID == Self.row && $0.department == Self.police }, "\(audit)")

            // Sent again: the same row, nothing doubled. A corrected count (PATCH) replaces its movement's.
            #expect(try await api.send(.post, "/sta/v1.1/CreateObservations", token: police,
                                       body: Self.counts(ds, ["through": 142], interval: Self.interval)).status == .created)
            let observations = try await api.send(.get, "/sta/v1.1/Datastreams(\(ds["left"]!))/Observations", token: police)
            let left = try #require(try observations.json["value"]?.arrayValue?.first?["@iot.id"]?.integerValue)
            let patched = try await api.send(.patch, "/sta/v1.1/Observations(\(left))", token: police, body: "{\"result\": 29}")
            #expect(patched.status == .ok, "\(patched.text)")
            let corrected = try #require(try await api.store.feature(layer: "traffic_counts", id: Self.row, by: .admin))
            #expect(corrected.properties["left"] == 29 && corrected.properties["through"] == 142 && corrected.properties["right"] == 17)

            // The plans read an interval once every approach has been counted in it: until then the north
            // approach alone does not make the other three carry no traffic.
            let si = try #require(try await SignalizedIntersection.load(id: "SI-009", from: api.store, by: .admin))
            #expect(try await si.counts(from: api.store, day: .latest, by: .admin).intervals.count == 96, "the sample day")
            for (approach, flows) in [("S", ["left": 20, "through": 130, "right": 15]), ("E", ["left": 11, "through": 90, "right": 12]),
                                      ("W", ["left": 13, "through": 95, "right": 10])] {
                #expect(try await api.send(.post, "/sta/v1.1/Things", token: api.token(), body: Self.detector(approach: approach)).status == .created)
                let ds = try await Self.streams(api, approach: approach)
                #expect(try await api.send(.post, "/sta/v1.1/CreateObservations", token: police,
                                           body: Self.counts(ds, flows, interval: Self.interval)).status == .created)
            }
            // The latest day, which re-timing reads, holds the interval's flows; the day's plans keep to the
            // last day that has ended until the live day is over.
            let live = try await si.counts(from: api.store, day: .latest, by: .admin)
            #expect(live.intervals.count == 1 && live.intervals[0].start == 8 * 60)
            let north = si.laneGroups.filter { $0.approach == "N" }.map(\.id)
            let volumes = north.compactMap { live.intervals[0].volumes[$0] }
            #expect(abs(volumes.reduce(0) { $0 + $1.left } - 29) < 1e-9 && abs(volumes.reduce(0) { $0 + $1.through } - 142) < 1e-9)
            let sameDay = try await si.counts(from: api.store, now: ISO8601DateFormatter().date(from: "2026-11-24T10:00:00+08:00")!, by: .admin)
            #expect(sameDay.intervals.count == 96, "the sample day (2026-06-17), not the day still being counted")
            // Once over, a day counted for one interval is a partial day: the plans stay on the whole one and name it (issue 58 §8).
            let nextDay = try await si.counts(from: api.store, now: ISO8601DateFormatter().date(from: "2026-11-25T00:30:00+08:00")!, by: .admin)
            #expect(nextDay.day == "2026-06-17" && nextDay.intervals.count == 96)
            #expect(nextDay.partialDays.map(\.day) == ["2026-11-24"] && nextDay.leftOutNote?.contains("2026-11-24 is a partial day: its counts cover 1 of its 96") == true,
                    "\(nextDay.leftOutNote ?? "no note")")
        }
    }

    @Test("a count taken back: deleting a reading clears its movement and the last one its row, a reading moved to another interval takes its count along, another detector's reading of the movement stays; the platform may not take counts back, and a Datastream with readings keeps its binding")
    func countsTakenBack() async throws {
        try await Self.run { api in
            #expect(try await api.send(.post, "/sta/v1.1/Things", token: api.token(), body: Self.detector()).status == .created)
            let ds = try await Self.streams(api)
            let police = api.token(Self.police)
            #expect(try await api.send(.post, "/sta/v1.1/CreateObservations", token: police,
                                       body: Self.counts(ds, ["left": 31, "through": 142, "right": 17], interval: Self.interval)).status == .created)
            func reading(_ movement: String) async throws -> Int64 {
                let r = try await api.send(.get, "/sta/v1.1/Datastreams(\(ds[movement]!))/Observations", token: police)
                return try #require(try r.json["value"]?.arrayValue?.first?["@iot.id"]?.integerValue)
            }
            func row(_ id: String = Self.row) async throws -> [String: Int?]? {
                try await api.store.feature(layer: "traffic_counts", id: id, by: .admin).map { f in
                    Dictionary(uniqueKeysWithValues: ["left", "through", "right"].map { ($0, f.properties[$0]?.integerValue.map(Int.init)) })
                }
            }
            // The platform registers detectors; the counts are 公安局's to take back.
            let left = try await reading("left")
            let refused = try await api.send(.delete, "/sta/v1.1/Observations(\(left))", token: api.token())
            try expectProblem(refused, status: 403, type: "forbidden")
            #expect(try await row() == ["left": 31, "through": 142, "right": 17])
            let deleted = try await api.send(.delete, "/sta/v1.1/Observations(\(left))", token: police)
            #expect(deleted.status == .ok, "\(deleted.text)")
            #expect(try await row() == ["left": 0, "through": 142, "right": 17])

            // A coil on the same movement counts the next interval; the video's through reading is moved there.
            let next = "2026-11-24T08:15:00+08:00/2026-11-24T08:30:00+08:00", nextRow = "TC-SI-009-N-202611240815-15"
            #expect(try await api.send(.post, "/sta/v1.1/Things", token: api.token(),
                                       body: Self.detector(movements: ["through"], detector: "coil")).status == .created)
            let all = try await api.get("/sta/v1.1/Datastreams")
            let coil = try #require(try all.json["value"]?.arrayValue?.first {
                $0["properties"]?["traffic_count"]?["detector"]?.stringValue == "coil" }?["@iot.id"]?.integerValue)
            #expect(try await api.send(.post, "/sta/v1.1/CreateObservations", token: police,
                                       body: Self.counts(["through": coil], ["through": 140], interval: next)).status == .created)
            let through = try await reading("through")
            let moved = try await api.send(.patch, "/sta/v1.1/Observations(\(through))", token: police, body: "{\"phenomenonTime\": \"\(next)\"}")
            #expect(moved.status == .ok, "\(moved.text)")
            #expect(try await row() == ["left": 0, "through": 0, "right": 17])
            #expect(try await row(nextRow) == ["left": 0, "through": 142, "right": 0])
            #expect(try await api.send(.delete, "/sta/v1.1/Observations(\(through))", token: police).status == .ok)
            #expect(try await row(nextRow) == ["left": 0, "through": 140, "right": 0], "the coil's reading of the interval stays")

            // The last reading of an interval taken back: the row goes, and the interval is no longer whole.
            #expect(try await api.send(.delete, "/sta/v1.1/Observations(\(try await reading("right")))", token: police).status == .ok)
            #expect(try await row() == nil)
            let history = try await api.store.history(layer: "traffic_counts", featureID: Self.row, by: .admin)
            #expect(history.count >= 3, "every change is a version: \(history.count)")

            // A Datastream with readings keeps its binding; its other properties change as usual.
            let rebound = try await api.send(.patch, "/sta/v1.1/Datastreams(\(coil))", token: api.token(), body: """
                {"properties": {"traffic_count": {"intersection": "SI-009", "approach": "S", "movement": "through", "detector": "coil"}}}
                """)
            try expectProblem(rebound, status: 409, type: "conflict")
            #expect(try rebound.json["position"]?.stringValue == "$.properties.traffic_count", "\(rebound.text)")
            #expect(try await api.send(.patch, "/sta/v1.1/Datastreams(\(coil))", token: api.token(),
                                       body: "{\"description\": \"inductive loop, lane 2\"}").status == .ok)
            // Without readings (the left's was deleted) a Datastream may be re-bound.
            let free = try await api.send(.patch, "/sta/v1.1/Datastreams(\(ds["left"]!))", token: api.token(), body: """
                {"properties": {"traffic_count": {"intersection": "SI-009", "approach": "N", "movement": "left", "detector": "radar"}}}
                """)
            #expect(free.status == .ok, "\(free.text)")
        }
    }

    @Test("adaptive control (serve --signal-retiming): the reading that makes an intersection's newest interval whole re-times its running plan once, a bounded step written under the sender; without the option plans stay as they are")
    func liveRetiming() async throws {
        for method in [SignalPlanning.Retiming?.none, .webster] {
            try await Self.run(signalRetiming: method) { api in
                let police = api.token(Self.police)
                func running() async throws -> Feature {
                    let plans = try await SignalPlanLayer.plans(of: "SI-009", from: api.store, by: .admin)
                    return try #require(SignalPlanLayer.running(at: 8 * 60 + 15, among: plans)).feature
                }
                let before = try await running()
                // Every approach but the west counted: the interval is not whole yet, nothing moves.
                let flows = ["N": ["left": 60, "through": 300, "right": 40], "S": ["left": 50, "through": 280, "right": 35],
                             "E": ["left": 20, "through": 90, "right": 15], "W": ["left": 25, "through": 95, "right": 15]]
                for approach in ["N", "S", "E", "W"] {
                    #expect(try await api.send(.post, "/sta/v1.1/Things", token: api.token(), body: Self.detector(approach: approach)).status == .created)
                }
                for approach in ["N", "S", "E"] {
                    let ds = try await Self.streams(api, approach: approach)
                    #expect(try await api.send(.post, "/sta/v1.1/CreateObservations", token: police, body: Self.counts(ds, flows[approach]!, interval: Self.interval)).status == .created)
                }
                #expect(try await running() == before)
                let west = try await Self.streams(api, approach: "W")
                #expect(try await api.send(.post, "/sta/v1.1/CreateObservations", token: police, body: Self.counts(west, flows["W"]!, interval: Self.interval)).status == .created)
                let after = try await running()
                guard method != nil else {
                    #expect(after == before, "no re-timing without --signal-retiming")
                    return
                }
                #expect(after.id == before.id && after != before, "a new version of the running plan")
                #expect(after.properties["method"] == "webster-retiming")
                #expect(after.properties["inputs"]?["retimed_at"] == "2026-11-24T08:15", "\(after.properties["inputs"] ?? .null)")
                // One bounded step: each green within 5 s of the running one, unless raised to its minimum at once (and said so).
                let greens = { (f: Feature) in (f.properties["stages"]?.arrayValue ?? []).compactMap { $0["green_s"]?.doubleValue } }
                let warnings = (after.properties["warnings"]?.arrayValue ?? []).compactMap(\.stringValue)
                for (i, (g0, g1)) in zip(greens(before), greens(after)).enumerated() where abs(g1 - g0) > 5 + 1e-9 {
                    #expect(warnings.contains { $0.contains("stage \(i + 1) raised from \(Int(g0)) s to its minimum green") }, "stage \(i + 1): \(g0) → \(g1) s; \(warnings)")
                }
                let audit = try await api.store.auditLog(layer: "signal_plans", after: 0, limit: 100_000, by: .admin)
                #expect(audit.last?.department == Self.police && audit.last?.featureID == after.id?.description)
                // The interval's reading sent again takes no second step.
                #expect(try await api.send(.post, "/sta/v1.1/CreateObservations", token: police, body: Self.counts(west, ["through": 95], interval: Self.interval)).status == .created)
                #expect(try await running() == after)
            }
        }
    }

    @Test("adaptive control also follows counts rows written through the features API (saturation balancing): the row that makes the interval whole re-times the running plan")
    func rowsRetime() async throws {
        try await Self.run(signalRetiming: .saturationBalancing) { api in
            let police = api.token(Self.police)
            func running() async throws -> Feature {
                try #require(SignalPlanLayer.running(at: 8 * 60 + 15, among: try await SignalPlanLayer.plans(of: "SI-009", from: api.store, by: .admin))).feature
            }
            let before = try await running()
            for (k, approach) in ["N", "S", "E", "W"].enumerated() {
                let row = """
                    {"type": "Feature", "geometry": null, "properties": {"intersection": "SI-009", "approach": "\(approach)", "start": "2026-11-24T08:00:00+08:00",
                     "minutes": 15, "left": 30, "through": 200, "right": 20, "detector": "coil"}}
                    """
                let r = try await api.send(.post, "/collections/traffic_counts/items", token: police, basic: false, body: row)
                #expect(r.status == .created, "\(r.text)")
                let now = try await running()
                if k < 3 { #expect(now == before, "not whole after \(approach)") } else {
                    #expect(now.properties["method"] == "saturation-balancing" && now.properties["inputs"]?["retimed_at"] == "2026-11-24T08:15",
                            "\(now.properties["method"] ?? .null) \(now.properties["inputs"] ?? .null)")
                }
            }
        }
    }

    @Test("who may send what: the platform's editors may not write the counts, the counts' owner sends readings of bound Datastreams only; nothing is written when refused")
    func access() async throws {
        try await Self.run { api in
            #expect(try await api.send(.post, "/sta/v1.1/Things", token: api.token(), body: Self.detector()).status == .created)
            #expect(try await api.send(.post, "/sta/v1.1/Things", token: api.token(), body: SensorThingsAPI.gauge).status == .created)
            let ds = try await Self.streams(api)
            let platform = try await api.send(.post, "/sta/v1.1/CreateObservations", token: api.token(),
                                              body: Self.counts(ds, ["left": 3], interval: Self.interval))
            try expectProblem(platform, status: 403, type: "forbidden")
            #expect(platform.text.contains("公安局"))
            let police = api.token(Self.police)
            let thing = try await api.send(.post, "/sta/v1.1/Things", token: police, body: Self.detector())
            try expectProblem(thing, status: 403, type: "forbidden")
            let gauge = try await api.get("/sta/v1.1/Datastreams?$filter=name eq 'water level'")
            let level = try #require(try gauge.json["value"]?.arrayValue?.first?["@iot.id"]?.integerValue)
            let unbound = try await api.send(.post, "/sta/v1.1/Observations", token: police,
                                             body: "{\"Datastream\": {\"@iot.id\": \(level)}, \"phenomenonTime\": \"2026-11-24T08:00:00Z\", \"result\": 27.1}")
            try expectProblem(unbound, status: 403, type: "forbidden")
            let viewer = try await api.send(.post, "/sta/v1.1/CreateObservations", token: api.token(Self.police, .viewer),
                                            body: Self.counts(ds, ["left": 3], interval: Self.interval))
            #expect(viewer.status == .forbidden)
            let total = try await api.get("/sta/v1.1/Observations?$count=true")
            #expect(try total.json["@iot.count"] == 0)
            #expect(try await api.store.feature(layer: "traffic_counts", id: Self.row, by: .admin) == nil)
        }
    }

    @Test("bad bindings and readings are refused naming the member: an unknown movement, intersection or approach, an instant, a fraction or a negative count, an interval off the minute",
          arguments: [
              ("movement", "$.Datastreams[0].properties.traffic_count.movement"),
              ("intersection", "properties.traffic_count.intersection"),
              ("approach", "$.Datastreams[0].properties.traffic_count.approach"),
          ])
    func badBindings(_ member: String, _ position: String) async throws {
        try await Self.run { api in
            var body = Self.detector(movements: ["left"])
            switch member {
            case "movement": body = body.replacingOccurrences(of: "\"movement\": \"left\"", with: "\"movement\": \"uturn\"")
            case "intersection": body = body.replacingOccurrences(of: "\"intersection\": \"SI-009\"", with: "\"intersection\": \"SI-999\"")
            default: body = body.replacingOccurrences(of: "\"approach\": \"N\"", with: "\"approach\": \"Q\"")
            }
            let r = try await api.send(.post, "/sta/v1.1/Things", token: api.token(), body: body)
            try expectProblem(r, status: 400, type: "invalid-body")
            #expect(try r.json["position"]?.stringValue == position, "\(r.text)")
            #expect(try await api.get("/sta/v1.1/Things?$count=true").json["@iot.count"] == 0)
        }
    }

    @Test("a reading that is no count over an interval is refused naming it", arguments: [
        ("\"2026-11-24T08:00:00+08:00\"", "12", "phenomenonTime"),
        ("\"\(TrafficCountFeedTests.interval)\"", "12.5", "result"),
        ("\"\(TrafficCountFeedTests.interval)\"", "-3", "result"),
        ("\"2026-11-24T08:00:30+08:00/2026-11-24T08:15:30+08:00\"", "12", "phenomenonTime"),
        ("\"2026-11-24T08:00:00+08:00/2026-11-24T10:00:00+08:00\"", "12", "phenomenonTime"),
    ])
    func badReadings(_ time: String, _ result: String, _ member: String) async throws {
        try await Self.run { api in
            #expect(try await api.send(.post, "/sta/v1.1/Things", token: api.token(), body: Self.detector(movements: ["left"])).status == .created)
            let ds = try #require(try await Self.streams(api)["left"])
            let r = try await api.send(.post, "/sta/v1.1/CreateObservations", token: api.token(Self.police), body: """
                [{"Datastream": {"@iot.id": \(ds)}, "components": ["phenomenonTime", "result"], "dataArray": [[\(time), \(result)]]}]
                """)
            try expectProblem(r, status: 400, type: "invalid-body")
            #expect(try r.json["position"]?.stringValue == "$[0].dataArray[0].\(member)", "\(r.text)")
        }
    }
}
