import Foundation
import Testing
import NetworkAnalysis

/// Traces and burst isolations against networkx (Scripts/reference/make_utility_fixtures.py).
@Suite("Utility traces and valve isolation against networkx")
struct UtilityReferenceTests {
    struct DrainageCase: Decodable {
        struct Pipe: Decodable { var id: String; var from: String; var to: String }
        struct Query: Decodable { var start: String; var direction: String; var nodes: [String]; var links: [String] }
        var nodes: [String]
        var pipes: [Pipe]
        var queries: [Query]
    }

    struct WaterCase: Decodable {
        struct Main: Decodable { var id: String; var from: String; var to: String }
        struct Valve: Decodable { var id: String; var main: String?; var node: String? }
        struct Connection: Decodable { var id: String; var main: String?; var node: String?; var address: String?; var critical: Bool }
        struct Burst: Decodable {
            var main: String; var failed: [String]; var valves: [String]; var segment: [String]
            var mainsCutOff: [String]; var nodesCutOff: [String]; var connectionsCutOff: [String]
            var critical: [String]; var addresses: [String]
        }
        var nodes: [String]
        var mains: [Main]
        var sources: [String]
        var valves: [Valve]
        var connections: [Connection]
        var bursts: [Burst]
    }

    func fixture<T: Decodable>(_ name: String, as: T.Type) throws -> T {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: "json"))
        return try JSONDecoder().decode(T.self, from: Data(contentsOf: url))
    }

    @Test("an empty drainage network has nothing to trace")
    func empty() throws {
        let g = try DrainageGraph(nodes: [], pipes: [])
        #expect(throws: UtilityNetworkError.self) { try g.trace(from: "MH-1", direction: .downstream) }
    }

    @Test("drainage up- and downstream traces equal networkx ancestors/descendants on 30 random sewers")
    func drainageTraces() throws {
        let cases = try fixture("utility_drainage", as: [DrainageCase].self)
        #expect(cases.count == 30)
        for c in cases {
            let g = try DrainageGraph(nodes: c.nodes, pipes: c.pipes.map { .init(id: $0.id, from: $0.from, to: $0.to) })
            for q in c.queries {
                let t = try g.trace(from: q.start, direction: q.direction == "up" ? .upstream : .downstream)
                #expect(t.nodes == q.nodes, "\(q.start) \(q.direction)")
                #expect(t.links == q.links, "\(q.start) \(q.direction)")
            }
        }
    }

    @Test("burst isolation equals networkx: valves, segment, mains, nodes, customers, critical, addresses")
    func isolation() throws {
        let cases = try fixture("utility_water", as: [WaterCase].self)
        var bursts = 0, expansions = 0
        for c in cases {
            let net = try WaterNetwork(
                nodes: c.nodes, mains: c.mains.map { .init(id: $0.id, from: $0.from, to: $0.to) }, sources: c.sources,
                valves: c.valves.map { .init(id: $0.id, main: $0.main, node: $0.node) },
                connections: c.connections.map { .init(id: $0.id, main: $0.main, node: $0.node, addressCode: $0.address, critical: $0.critical) })
            for b in c.bursts {
                let r = try net.isolate(main: b.main, failedValves: Set(b.failed))
                #expect(r.valvesToClose == b.valves, "\(b.main)")
                #expect(r.segmentMains == b.segment, "\(b.main)")
                #expect(r.mainsCutOff == b.mainsCutOff, "\(b.main)")
                #expect(r.nodesCutOff == b.nodesCutOff, "\(b.main)")
                #expect(r.connectionsCutOff == b.connectionsCutOff, "\(b.main)")
                #expect(r.criticalConnections == b.critical, "\(b.main)")
                #expect(r.addressesToNotify == b.addresses, "\(b.main)")
                bursts += 1
                if !r.failedValvesPassed.isEmpty { expansions += 1 }
            }
        }
        #expect(bursts == 150)
        #expect(expansions > 0, "some bursts must exercise failed valves")
    }

    @Test("unknown ids are named in the error")
    func unknownIDs() throws {
        let net = try WaterNetwork(nodes: ["A", "B"], mains: [.init(id: "M1", from: "A", to: "B")], sources: ["A"],
                                   valves: [], connections: [])
        #expect(throws: UtilityNetworkError.self) { try net.isolate(main: "M9") }
        #expect(throws: UtilityNetworkError.self) {
            try WaterNetwork(nodes: ["A"], mains: [.init(id: "M1", from: "A", to: "Z")], sources: [], valves: [], connections: [])
        }
        // Without valves, a burst shuts the whole connected network off its source.
        let r = try net.isolate(main: "M1")
        #expect(r.valvesToClose.isEmpty && r.mainsCutOff == ["M1"])
        // A failed valve the network does not have is named, not ignored.
        let unknown = #expect(throws: UtilityNetworkError.self) { try net.isolate(main: "M1", failedValves: ["WV-9"]) }
        #expect(unknown?.id == "WV-9")
    }

    @Test("a failed valve the isolation never reaches changes nothing, and the answer says so")
    func failedValveNotReached() throws {
        // A - M1 - B - M2 - C - M3 - D, source A; valves V1 (M1 at B), V2 (M2 at C), V3 (M3 at D).
        let net = try WaterNetwork(nodes: ["A", "B", "C", "D"],
                                   mains: [.init(id: "M1", from: "A", to: "B"), .init(id: "M2", from: "B", to: "C"), .init(id: "M3", from: "C", to: "D")],
                                   sources: ["A"],
                                   valves: [.init(id: "V1", main: "M1", node: "B"), .init(id: "V2", main: "M2", node: "C"),
                                            .init(id: "V3", main: "M3", node: "D")],
                                   connections: [])
        let plain = try net.isolate(main: "M2")
        let far = try net.isolate(main: "M2", failedValves: ["V3"])
        #expect(far.failedValvesNotReached == ["V3"] && far.failedValvesPassed.isEmpty)
        #expect(far.valvesToClose == plain.valvesToClose && far.mainsCutOff == plain.mainsCutOff)
        let near = try net.isolate(main: "M2", failedValves: ["V2"])
        #expect(near.failedValvesNotReached.isEmpty && near.failedValvesPassed == ["V2"])
    }
}
