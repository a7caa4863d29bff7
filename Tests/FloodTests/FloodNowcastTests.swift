import CityModel
import Flood
import FloodSim
import Foundation
import GeoCore
import ProcessRuntime
import Scenarios
import TestSupport
import Testing
import TwinStore

/// A flood nowcast: rain observed at rain gauges (SensorThings Datastreams in the store, written
/// as the SensorThings API writes them) drives the district's coupled flood run through the
/// `flood-scenario` process (as `citytwin simulate nowcast` runs it); its flooded roads and
/// cut-off resources become alerts in `alerts`, cleared by a later dry nowcast.
/// The district test runs two coupled runs (≈ 150 s of CPU in a debug build, like
/// `FloodScenarioDistrictTests`, whose district store it shares).
@Suite("Flood nowcast from rain-gauge observations", .serialized)
struct FloodNowcastTests {
    static let t0: Int64 = 1_782_892_800_000_000  // 2026-07-01T08:00:00Z
    static let minute: Int64 = 60_000_000

    /// A rain gauge (Thing, Sensor, ObservedProperty, Datastream in `unit`) in `store`; its Datastream id.
    static func gauge(_ store: any SensingStore, unit: String, name: String = "邾城 雨量站") async throws -> Int64 {
        try await RainGauges.register(store, unit: unit, name: name)
    }

    /// Observations `(minutes from t0, minutes long or nil for an instant, value)` of `datastream`.
    static func observe(_ store: any SensingStore, _ datastream: Int64, _ readings: [(Int64, Int64?, Double)]) async throws {
        try await RainGauges.observe(store, datastream, readings.map { r in (t0 + r.0 * minute, r.1.map { t0 + (r.0 + $0) * minute }, r.2) })
    }

    static func rainfall(_ datastreams: [Int64], from: Int64 = 0, to: Int64, forecast: JSONValue? = nil) -> JSONValue {
        var o: [String: JSONValue] = ["datastreams": .array(datastreams.map { .integer($0) }),
                                      "from": .string(SensingTime.format(t0 + from * minute)), "to": .string(SensingTime.format(t0 + to * minute))]
        if let forecast { o["forecast"] = forecast }
        return .object(o)
    }

    @Test("depth readings over intervals and intensity readings are binned into the scenario's step; the areal rain is the mean of the gauges that reported")
    func hyetograph() async throws {
        try await withTemporaryDirectory("nowcast") { dir in
            let store = try dir.openStore("rain.sqlite")
            let depth = try await Self.gauge(store, unit: "mm")
            let intensity = try await Self.gauge(store, unit: "mm/h", name: "二号 雨量站")
            let silent = try await Self.gauge(store, unit: "mm", name: "三号 雨量站")
            // Gauge 1: 6 mm over 08:00–08:10 (an interval reading), 3 mm in the instant reading at
            // 08:15 (since the previous one: 08:10–08:15). Gauge 2: 12 mm/h from 07:55 (held into the
            // window until its next reading), 0 from 08:10.
            try await Self.observe(store, depth, [(0, 10, 6), (15, nil, 3)])
            try await Self.observe(store, intensity, [(-5, nil, 12), (10, nil, 0)])
            let rain = try ObservedRainfall(json: Self.rainfall([depth, intensity, silent], to: 20,
                                                                forecast: ["interval_min": 10, "depths_mm": [4, 2]]))
            let (h, summary) = try await rain.hyetograph(step: 5, sensing: store)
            #expect(h.starts == [0, 300, 600, 900, 1200, 1800])
            // Bins of 5 min: gauge 1 gives 3, 3, 3, 0 mm; gauge 2 gives 1, 1, 0, 0 mm (12 mm/h × 5 min).
            let expected = [2.0, 2.0, 1.5, 0, 4, 2]
            for (got, want) in zip(h.depths, expected) { #expect(abs(got - want) < 1e-9, "\(h.depths)") }
            #expect(summary.silentDatastreams == [silent])
            #expect(summary.gauges.map(\.millimetres) == [9, 2])
            #expect(summary.observedMillimetres == 5.5 && summary.forecastMillimetres == 6)

            // Bad rainfall names the field.
            let level = try await Self.gauge(store, unit: "m", name: "水位站")
            await #expect(throws: ScenarioError.self) { try await ObservedRainfall(json: Self.rainfall([level], to: 20)).hyetograph(step: 5, sensing: store) }
            do {
                _ = try await ObservedRainfall(json: Self.rainfall([depth, 999_999], to: 20)).hyetograph(step: 5, sensing: store)
                Issue.record("an unknown Datastream must be refused")
            } catch let e as ScenarioError {
                #expect(e.field == "rainfall.datastreams[1]")
            }
            do {
                _ = try ObservedRainfall(json: Self.rainfall([depth], from: 20, to: 10))
                Issue.record("to before from must be refused")
            } catch let e as ScenarioError {
                #expect(e.field == "rainfall.to")
            }
            do {
                _ = try await ObservedRainfall(json: Self.rainfall([silent], to: 20)).hyetograph(step: 5, sensing: store)
                Issue.record("a window without any reading must be refused")
            } catch let e as ScenarioError {
                #expect(e.field == "rainfall")
            }
        }
    }

    @Test("a district nowcast from gauge observations: flooded roads and cut-off resources are alerts, cleared by a dry nowcast")
    func districtNowcast() async throws {
        let (store, dir) = try await FloodScenarioDistrictTests.districtStore()
        let gauge = try await Self.gauge(store, unit: "mm")
        // A cloudburst: 50 mm in each of three 5-minute intervals, as a gauge's aggregator reports
        // it. On the test's 100 m cells (the DEM coarsened 10×) street water spreads thin, so it
        // takes a burst this absurd to pass 15 cm; the 10 m grid floods streets at design intensities.
        try await Self.observe(store, gauge, [(0, 5, 50), (5, 5, 50), (10, 5, 50)])
        let registry = ProcessRegistry.forStore(directory: dir)
        let process = try #require(registry["flood-scenario"])
        let inputs: [String: JSONValue] = ["scenario": "p50-waterlogging", "rainfall": Self.rainfall([gauge], to: 15), "demCoarsening": 10]
        let result = try await registry.run(process.id, inputs: inputs, caller: .admin, store: store)
        let summary = try #require(result["summary"])
        #expect(summary["scenario"] == "nowcast-p50-waterlogging")
        #expect(abs((summary["rainfallMillimetres"]?.doubleValue ?? 0) - 150) < 1e-6, "the rain the gauge observed")
        #expect(summary["observedRainfall"]?["gauges"]?.arrayValue?.first?["observations"] == 3)
        // Observed rain: its time steps are real times, on the wall clock (a design storm's are T+, issue 77 §6).
        #expect(summary["timeSteps"]?["clock"] == "wall")
        // The nowcast is a flood run of its own (a draft of the water authority's), its layers under the run's stem.
        let run = try #require(result["run"]?["id"]?.stringValue)
        #expect(run.hasPrefix("nowcast-p50-waterlogging-") && result["run"]?["state"] == "draft")
        let stem = "flood_" + run.replacingOccurrences(of: "-", with: "_")
        #expect(result["layers"]?.arrayValue?.first == .string(stem + "_depth"))

        let roads = try await store.query(layer: stem + "_roads", FeatureQuery(limit: 10_000), by: .admin).features
        let flooded = Set(roads.filter { ($0.properties["max_depth_m"]?.doubleValue ?? 0) > 0.15 }.compactMap { $0.id?.description })
        try #require(!flooded.isEmpty, "360 mm/h for 10 minutes floods streets")
        let open = try CQL2.parseText("source = 'flood-nowcast' AND cleared_at IS NULL", queryables: nil)
        let alerts = try await store.query(layer: SensingAlerts.layer, FeatureQuery(filter: open, limit: 10_000), by: .admin).features
        let roadAlerts = alerts.filter { $0.properties["resource_id"] == nil || $0.properties["resource_id"] == .null }
        #expect(Set(roadAlerts.compactMap { $0.properties["road_id"]?.stringValue }) == flooded, "one alert per road over 15 cm")
        for a in roadAlerts {
            let depth = a.properties["value"]?.doubleValue ?? 0
            #expect(depth > 0.15)
            #expect(a.properties["level"] == (depth >= 0.3 ? "danger" : "warning"))
            #expect(a.properties["phenomenonTime"] == "2026-07-01T08:15:00Z")
            #expect(a.properties["scenario"] == "nowcast-p50-waterlogging")
            guard case .point? = a.geometry else { Issue.record("an alert is a point on the road"); continue }
        }
        let cutoff = try await store.query(layer: stem + "_cutoff", FeatureQuery(limit: 10_000), by: .admin).features
            .filter { $0.properties["kind"] == "resource" }
        let cutAlerts = alerts.filter { $0.properties["level"] == "cut-off" }
        #expect(Set(cutAlerts.compactMap { $0.properties["resource_id"]?.stringValue })
                == Set(cutoff.compactMap { $0.properties["resource_id"]?.stringValue }), "the hazard overlay's cut-off resources are alerts")
        #expect(summary["alerts"]?["raised"]?.integerValue == Int64(alerts.count))

        // The next nowcast, of a dry half hour later on, clears them.
        try await Self.observe(store, gauge, [(30, 5, 0), (35, 5, 0)])
        let dry = ["scenario": "p50-waterlogging", "rainfall": Self.rainfall([gauge], from: 30, to: 40), "demCoarsening": 10] as [String: JSONValue]
        let second = try await registry.run(process.id, inputs: dry, caller: .admin, store: store)
        #expect(second["summary"]?["alerts"]?["cleared"]?.integerValue == Int64(alerts.count))
        #expect(try await store.count(layer: SensingAlerts.layer, FeatureQuery(filter: open), by: .admin) == 0)
        let first = try #require(alerts.first?.id?.description)
        let cleared = try #require(try await store.feature(layer: SensingAlerts.layer, id: first, by: .admin))
        #expect(cleared.properties["cleared_phenomenonTime"] == "2026-07-01T08:40:00Z")

        // A scale of the design storm has no meaning for observed rain; the caller is told which input.
        do {
            try await registry.validate(dry.merging(["durationScale": 0.5]) { a, _ in a }, for: process, store: store, caller: .admin)
            Issue.record("durationScale with rainfall must be refused")
        } catch let e as ProcessInputError {
            #expect(e.input == "durationScale")
        }
        do {
            try await registry.validate(["scenario": "p50-waterlogging", "rainfall": Self.rainfall([gauge, 424_242], to: 10)],
                                        for: process, store: store, caller: .admin)
            Issue.record("an unknown Datastream must be refused before the job is accepted")
        } catch let e as ProcessInputError {
            #expect(e.input == "rainfall" && e.description.contains("rainfall.datastreams[1]"))
        }
    }
}
