import GeoCore
import Testing
@testable import NetworkAnalysis

@Suite("Contraction hierarchy")
struct ContractionHierarchyTests {
    @Test("an empty graph contracts to nothing")
    func empty() {
        let ch = ContractionHierarchy(nodeCount: 0, tails: [], heads: [], costs: [])
        #expect(ch.nodeAtRank.isEmpty)
        #expect(ch.shortcutCount == 0)
    }

    @Test("hierarchy answers equal plain Dijkstra from every road piece to every node", arguments: ["driving", "walking"])
    func equalsDijkstra(profile: String) {
        let graph = RoadGridFixture.graph(profile)
        #expect(Set(graph.hierarchy.rank).count == graph.network.nodes.count)
        for (i, piece) in graph.network.pieces.enumerated() {
            let origin = EdgePosition(piece: i, offset: piece.length / 3, point: piece.coordinates[0])
            let fast = graph.tree(from: origin, closures: .none)
            let plain = graph.tree(from: origin, closures: .none, plain: true)
            #expect(fast.hierarchy != nil && plain.hierarchy == nil)
            for v in 0..<graph.network.nodes.count {
                let a = fast.seconds(to: Int32(v), in: graph), b = plain.seconds(to: Int32(v), in: graph)
                #expect(a == b || abs(a - b) <= 1e-9 * max(1, b), "piece \(i) node \(v)")
            }
            // Unpacked paths are real paths with the same cost.
            for v in stride(from: 0, to: graph.network.nodes.count, by: 7) where fast.seconds(to: Int32(v), in: graph).isFinite {
                let (arcs, root) = fast.arcs(to: Int32(v), in: graph)
                var at = root, sum = fast.seeds.filter { $0.node == root }.map(\.cost).min() ?? .nan
                for a in arcs {
                    #expect(graph.arcTail[Int(a)] == at)
                    at = graph.arcHead[Int(a)]
                    sum += graph.arcCost[Int(a)]
                }
                #expect(at == Int32(v))
                #expect(abs(sum - fast.seconds(to: Int32(v), in: graph)) <= 1e-9 * max(1, sum))
            }
        }
    }
}
