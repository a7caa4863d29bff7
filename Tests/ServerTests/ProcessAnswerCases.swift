import Foundation
import GeoCore

/// One recorded request: a process's inputs on the sample district, answered into
/// `Fixtures/ProcessAnswers/<process>-<name>.json`.
struct ProcessAnswerCase: Sendable {
    let process: String
    let name: String
    let inputs: JSONValue
    /// Scenarios (`POST /scenarios` bodies) created before the case runs.
    var scenarios: [JSONValue] = []

    var file: String { "\(process)-\(name).json" }
}

/// What every process answers on the sample district (issue 51): at least one case per process
/// of `ProcessRegistry.forStore`, from the README's examples and the processes' own tests. Every
/// input that would otherwise default to the server's clock (`at`) or a random draw (`seed`) is
/// fixed here. The cases run in this order on one store (the scenarios last: they write layers).
enum ProcessAnswerCases {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A JSON file of the repository (Models/signals' inline intersection and corridor).
    static func model(_ path: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: repository.appendingPathComponent(path)))
    }

    static func box(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> JSONValue {
        ["type": "Polygon", "coordinates": [[[.number(x0), .number(y0)], [.number(x1), .number(y0)], [.number(x1), .number(y1)],
                                             [.number(x0), .number(y1)], [.number(x0), .number(y0)]]]]
    }

    /// The first `days` rows of the sponge tests' rainfall record (NOAA's Seattle daily rainfall) as CSV text.
    static func seattle(days: Int) throws -> String {
        let text = try String(contentsOf: repository.appendingPathComponent("Tests/SpongeTests/Fixtures/seattle-weather-daily.csv"), encoding: .utf8)
        return text.split(separator: "\n", omittingEmptySubsequences: true).prefix(days + 1).joined(separator: "\n") + "\n"
    }

    /// The district's centre (README: `network route --from 114.80,30.84`).
    static let centre: JSONValue = [114.80, 30.84]

    static func all() throws -> [ProcessAnswerCase] {
        [
            ProcessAnswerCase(process: "features-in-area", name: "shelters-centre",
                              inputs: ["layer": "shelters", "area": box(114.795, 30.835, 114.810, 30.848), "properties": ["capacity", "class"]]),
            ProcessAnswerCase(process: "features-in-area", name: "buildings-within",
                              inputs: ["layer": "buildings", "area": box(114.798, 30.838, 114.803, 30.842), "relation": "within"]),
            ProcessAnswerCase(process: "route", name: "driving",
                              inputs: ["from": centre, "to": [114.82, 30.85]]),
            ProcessAnswerCase(process: "route", name: "walking-around-closure",
                              inputs: ["from": centre, "to": [114.82, 30.85], "profile": "walking",
                                       "avoidArea": box(114.806, 30.842, 114.811, 30.846)]),
            ProcessAnswerCase(process: "geocoding", name: "forward",
                              inputs: ["addresses": ["邾城七路26号", "沿江大道", "邾城七路9999号", "火星路1号"]]),
            ProcessAnswerCase(process: "geocoding", name: "reverse",
                              inputs: ["points": [centre, ["type": "Point", "coordinates": [114.8031, 30.8429]]], "maximumDistance": 300]),
            ProcessAnswerCase(process: "geocoding", name: "csv",
                              inputs: ["csv": "name,address\na,邾城七路26号\nb,\"沿江大道\"\nc,\n"]),
            ProcessAnswerCase(process: "nearest-resources", name: "shelters-800",
                              inputs: ["incident": centre, "layer": "shelters", "count": 3, "minimumCapacity": 800]),
            ProcessAnswerCase(process: "nearest-resources", name: "hospitals-walking",
                              inputs: ["incident": [114.8031, 30.8429], "layer": "hospitals", "count": 2, "profile": "walking"]),
            ProcessAnswerCase(process: "service-area", name: "driving-2-5",
                              inputs: ["origin": [114.803, 30.842], "breaks": [2, 5]]),
            ProcessAnswerCase(process: "coverage", name: "defaults-listed-20",
                              inputs: ["listLimit": 20]),
            ProcessAnswerCase(process: "hazard-overlay", name: "area-origin-route",
                              inputs: ["area": box(114.798, 30.838, 114.804, 30.843), "origin": [114.79, 30.835],
                                       "route": ["from": [114.79, 30.835], "to": [114.81, 30.846]]]),
            ProcessAnswerCase(process: "network-trace", name: "drainage-down",
                              inputs: ["network": "drainage", "from": "YS-J00001", "direction": "down"]),
            ProcessAnswerCase(process: "network-trace", name: "drainage-up",
                              inputs: ["network": "drainage", "from": "YS-J00001", "direction": "up"]),
            ProcessAnswerCase(process: "network-trace", name: "water-wm-0001-valves-closed",
                              inputs: ["network": "water", "from": "WM-0001", "closedValves": ["WV-0001", "WV-0002", "WV-0323"]]),
            ProcessAnswerCase(process: "valve-isolation", name: "wm-0001",
                              inputs: ["main": "WM-0001"]),
            ProcessAnswerCase(process: "valve-isolation", name: "wm-0001-failed-wv-0003",
                              inputs: ["main": "WM-0001", "failedValves": ["WV-0003"]]),
            ProcessAnswerCase(process: "hydrant-coverage", name: "listed-20",
                              inputs: ["maximumListed": 20]),
            ProcessAnswerCase(process: "fire-pre-plan", name: "bld-00033-high-rise",
                              inputs: ["building": "BLD-00033", "hydrants": 3]),
            ProcessAnswerCase(process: "fire-station-coverage", name: "listed-20",
                              inputs: ["maximumListed": 20]),
            ProcessAnswerCase(process: "parking-guidance", name: "history-0930",
                              inputs: ["from": [114.780, 30.830], "to": [114.7985, 30.8405], "at": "2026-06-17T09:30:00", "drivers": 20]),
            ProcessAnswerCase(process: "parking-guidance", name: "readings-heading",
                              inputs: ["from": [114.780, 30.830], "to": [114.7985, 30.8405], "heading": 90, "at": "2026-06-17T09:30:00",
                                       "occupancy": [["lot": "PK-001", "occupied": 400, "age_s": 30], ["lot": "PK-002", "occupied": 10, "age_s": 4000]]]),
            ProcessAnswerCase(process: "parking-forecast", name: "0930",
                              inputs: ["at": "2026-06-17T09:30:00"]),
            // A fifth of the berths and of the default demand: the lots still fill to about 90 %.
            ProcessAnswerCase(process: "parking-simulation", name: "capacity-0.2-seed-17",
                              inputs: ["capacityScale": 0.2, "seed": 17]),
            ProcessAnswerCase(process: "signal-timing", name: "si-009-am",
                              inputs: ["intersections": ["SI-009"], "period": "07:00-09:00"]),
            ProcessAnswerCase(process: "signal-timing", name: "si-009-retiming-0800",
                              inputs: ["intersections": ["SI-009"], "method": "webster-retiming", "at": "08:00"]),
            ProcessAnswerCase(process: "signal-timing", name: "inline-example",
                              inputs: ["intersection": try model("Models/signals/intersection-example.json")]),
            ProcessAnswerCase(process: "green-wave", name: "sc-001-pm",
                              inputs: ["corridor": "SC-001", "period": "17:00-18:00"]),
            ProcessAnswerCase(process: "green-wave", name: "inline-example",
                              inputs: ["corridor": try model("Models/signals/corridor-example.json")]),
            ProcessAnswerCase(process: "signal-evaluate", name: "si-009-pm-analytic",
                              inputs: ["intersection": "SI-009", "period": "17:00-18:00", "simulate": "none"]),
            // SUMO itself (Scripts/setup.sh --test installs it): required, so an answer without it is a 400, never a skip.
            ProcessAnswerCase(process: "signal-evaluate", name: "si-009-sumo-300s-seed-2",
                              inputs: ["intersection": "SI-009", "period": "10:00-11:00", "simulate": "sumo", "sumoSeconds": 300, "seed": 2]),
            // The sponge city over NOAA's Seattle record, inline CSV: the design rainfall from the first 91 days
            // (2012-01-01 … 2012-03-31); the continuous run over the first 31 (a quarter's run took 80 s of
            // the test command's budget on each backend, and its month tells the same).
            ProcessAnswerCase(process: "sponge-design-rainfall", name: "seattle-91-days-0.75",
                              inputs: ["dailyRainfall": .string(try seattle(days: 91)), "rate": 0.75]),
            ProcessAnswerCase(process: "sponge-evaluate", name: "base-seattle-31-days",
                              inputs: ["dailyRainfall": .string(try seattle(days: 31))]),
            // Asynchronous only: answered by GET /jobs/{id}/results. The README's quick storm (3 % of
            // 180 min on 100 m cells): the shortest that still surcharges the sewers.
            ProcessAnswerCase(process: "flood-scenario", name: "p50-quick",
                              inputs: ["scenario": "p50-waterlogging", "durationScale": 0.03, "demCoarsening": 10]),
            // Asynchronous only as well; each scenario is created (POST /scenarios) just before its run.
            ProcessAnswerCase(process: "scenario-run", name: "signal-am", inputs: ["scenario": "golden-signal"],
                              scenarios: [["id": "golden-signal", "kind": "signal", "parameters": ["period": "07:00-09:00"]]]),
            ProcessAnswerCase(process: "scenario-run", name: "parking-unguided", inputs: ["scenario": "golden-park-u"],
                              scenarios: [["id": "golden-park-u", "kind": "parking", "parameters": ["guidance": "unguided", "seed": 17]]]),
            ProcessAnswerCase(process: "scenario-run", name: "parking-guided", inputs: ["scenario": "golden-park-g"],
                              scenarios: [["id": "golden-park-g", "kind": "parking", "parameters": ["guidance": "guided", "seed": 17]]]),
            ProcessAnswerCase(process: "compare-scenarios", name: "parking-guidance",
                              inputs: ["a": "golden-park-u", "b": "golden-park-g"]),
        ]
    }

    /// Values that differ from run to run however the inputs are fixed, each with its reason.
    /// Nothing else is left out of the comparison.
    static let scrubbed: [ScrubbedField] = {
        let clock = "the wall clock when the job ran (the process has no input that fixes it)"
        let storm = "the storm starts when the run starts (flood-scenario takes no start; FloodScenarioProcess sets it to Date())"
        let runTime = "the CPU time the run took"
        let base = "a scenario's base map instant: the instant it was created (POST /scenarios), since a base may be neither in the future nor before the district was loaded, which is at test time"
        var fields = [ScrubbedField]()
        // The flood run's record holds its summary again: each field in both places.
        for prefix in ["summary", "run.summary"] {
            fields += [ScrubbedField("flood-scenario", "\(prefix).runSeconds", runTime),
                       ScrubbedField("flood-scenario", "\(prefix).timeSteps.start", storm),
                       ScrubbedField("flood-scenario", "\(prefix).timeSteps.steps.*.datetime", storm)]
        }
        fields += [ScrubbedField("flood-scenario", "run.started_at", clock), ScrubbedField("flood-scenario", "run.finished_at", clock)]
        // The city's conditions hold at the request's time unless `at` is given (issue 77).
        for process in ["nearest-resources", "route", "service-area", "fire-pre-plan", "fire-station-coverage", "hydrant-coverage"] {
            fields.append(ScrubbedField(process, "conditions.at", "the request's time: the instant the city's conditions are read at"))
        }
        fields += [ScrubbedField("scenario-run", "scenario.base", base),
                   ScrubbedField("scenario-run", "scenario.start", base + " (a traffic scenario's start is its base)")]
        return fields
    }()
}
