import Foundation
import GeoCore
import ProcessRuntime
import Scenarios
import Testing

/// The typed processes' served input schemas are derived from the reads that check the inputs
/// (`ProcessInputReader`): every bound a schema states is the bound the process enforces. A
/// range changed in one place and not the other fails here.
@Suite("Typed processes: derived input schemas")
struct TypedProcessSchemaTests {
    /// Inputs each typed process accepts without a store (its required inputs, valid), to which
    /// one input at a time is set to a bound.
    static let base: [String: [String: JSONValue]] = [
        "service-area": ["origin": [114.31, 30.6]],
        "route": ["from": [114.31, 30.6], "to": [114.32, 30.61]],
        "features-in-area": ["layer": "shelters", "area": ProcessesTests.flood],
        "coverage": [:],
        "nearest-resources": ["incident": [114.31, 30.6], "layer": "shelters"],
        "hazard-overlay": ["hazardLayer": "flood_depth", "property": "depth_m"],
        "network-trace": ["network": "drainage", "from": "MH-1"],
        "valve-isolation": ["main": "WM-1"],
        "geocoding": ["addresses": ["江岸区中山大道1号"]],
        "parking-forecast": [:],
        "parking-guidance": ["from": [114.31, 30.6], "to": [114.32, 30.61]],
        "parking-simulation": [:],
        "flood-scenario": ["scenario": "p50-waterlogging"],
        "signal-timing": [:],
        "green-wave": ["corridor": "SC-001"],
        "signal-evaluate": ["intersection": "SI-009"],
        "scenario-run": ["scenario": "a"],
        // LID plans: the kind whose numeric inputs (design storm, Datastream) apply.
        "compare-scenarios": ["kind": "lid-plans", "a": "base", "b": "plan-a", "datastream": 1,
                              "from": "2024-07-01T00:00:00+08:00", "to": "2024-08-01T00:00:00+08:00"],
        "sponge-design-rainfall": ["datastream": 1, "from": "2024-07-01T00:00:00+08:00", "to": "2024-08-01T00:00:00+08:00"],
        "sponge-evaluate": ["datastream": 1, "from": "2024-07-01T00:00:00+08:00", "to": "2024-08-01T00:00:00+08:00"],
        "hydrant-coverage": [:],
        "fire-pre-plan": ["building": "BLD-00001"],
        "fire-station-coverage": [:],
    ]

    /// Inputs ordered against each other (the shortest cycle not above the longest): one set to a
    /// bound sets its partner to the same value, so only the bound itself is tried.
    static let ordered = ["minimumCycle": "maximumCycle", "maximumCycle": "minimumCycle"]

    static var typed: [any TypedProcess] { ProcessRegistry.standard.processes.compactMap { $0 as? any TypedProcess } }

    @Test("every typed process describes its inputs, and its base inputs read")
    func describes() throws {
        #expect(Set(Self.typed.map(\.id)) == Set(Self.base.keys))
        for process in Self.typed {
            let parameters = try Self.describe(process)
            #expect(!parameters.isEmpty, "\(process.id)")
            #expect(parameters.keys.sorted() == process.inputs.keys.sorted(), "\(process.id)")
            _ = try process.input(try #require(Self.base[process.id]))
        }
    }

    @Test("every numeric bound a schema states is accepted at the bound and refused just beyond it, naming it")
    func boundsAsEnforced() throws {
        var checked = 0
        for process in Self.typed {
            let base = try #require(Self.base[process.id])
            for (name, parameter) in process.inputs.sorted(by: { $0.key < $1.key }) {
                guard let type = parameter.schema["type"]?.stringValue, type == "number" || type == "integer" else { continue }
                let integer = type == "integer"
                for (key, outward) in [("minimum", -1.0), ("maximum", 1.0)] {
                    guard let bound = parameter.schema[key]?.doubleValue else { continue }
                    var inputs = base
                    inputs[name] = integer ? .integer(Int64(bound)) : .number(bound)
                    if let partner = Self.ordered[name], process.inputs[partner] != nil { inputs[partner] = inputs[name] }
                    #expect(throws: Never.self, "\(process.id).\(name) = its \(key) \(bound)") { _ = try process.input(inputs) }
                    inputs[name] = integer ? .integer(Int64(bound + outward)) : .number(outward < 0 ? bound.nextDown : bound.nextUp)
                    do {
                        _ = try process.input(inputs)
                        Issue.record("\(process.id).\(name) just beyond its \(key) \(bound) was accepted")
                    } catch let e as ProcessInputError {
                        #expect(e.input == name, "\(process.id).\(name): \(e)")
                        // The refusal states the bound as the reader words it ("between 1.0 and 200.0") or as
                        // the process's own rule does ("in (0, 1]", "an integer 1–10").
                        let shown = integer ? "\(Int64(bound))" : "\(bound)"
                        let whole = bound == bound.rounded() ? "\(Int64(bound))" : shown
                        #expect(e.reason.contains(shown) || !integer && e.reason.contains(whole), "\(process.id).\(name): the refusal '\(e.reason)' does not state the schema's \(key) \(shown)")
                    }
                    checked += 1
                }
            }
        }
        // Every converted process with a range is covered (a derived schema that lost its bounds fails here).
        #expect(checked >= 50, "only \(checked) bounds checked")
    }

    @Test("service-area states its buffer range and default, and a buffer at the maximum reads")
    func defaultsAsRead() throws {
        let service = try #require(ProcessRegistry.standard["service-area"] as? any TypedProcess)
        let parameters = try Self.describe(service)
        var inputs = try #require(Self.base["service-area"])
        inputs["bufferMetres"] = 200
        _ = try service.input(inputs)
        #expect(parameters["bufferMetres"]?.schema["default"] == 25)
        #expect(parameters["bufferMetres"]?.schema["minimum"] == 1 && parameters["bufferMetres"]?.schema["maximum"] == 200)
        #expect(parameters["maximumSnapMetres"]?.minOccurs == 0 && parameters["origin"]?.minOccurs == 1)
    }

    static func describe<P: TypedProcess>(_ process: P) throws -> [String: ProcessParameter] {
        try P.Input.describe()
    }
}
