import Foundation
import GeoCore
import TwinStore

/// The topology checks of a network layer (pipes, mains, road centre lines): dangling ends,
/// disconnected parts and, for gravity networks, pipes whose flow direction contradicts their
/// inverts. Links name their end nodes by id (`QualityRules.NetworkRules`); nodes are the
/// features of the network's node layers.
struct NetworkTopology {
    /// A node: its position (EPSG:4490 degrees; nil without geometry), its invert (m), if any,
    /// and whether it is a terminal of the network (an outfall).
    struct Node {
        var position: Position?
        var invert: Double?
        var isTerminal = false
    }

    let rules: QualityRules.NetworkRules
    let nodes: [String: Node]

    static let kinds: Set<QualityCheckKind> = [.danglingEnds, .disconnectedParts, .flowAgainstInverts]

    /// Checks `links` (the layer's current features) and adds what it finds to `findings`.
    func check(_ links: [Feature], into findings: inout QualityFindings) {
        var parts = UnionFind()
        var linkEnds: [(id: String, from: String?)] = []
        for link in links {
            let id = link.id.map { "\($0)" } ?? "?"
            let from = link.properties[rules.from]?.stringValue, to = link.properties[rules.to]?.stringValue
            let line = Self.ends(of: link.geometry)
            checkEnd(id, "start", rules.from, from, line?.first, &findings)
            checkEnd(id, "end", rules.to, to, line?.last, &findings)
            if let from, let to { parts.union(from, to) } else if let from { parts.add(from) } else if let to { parts.add(to) }
            linkEnds.append((id, from ?? to))
            if let invert = rules.invert, let from, let to { checkInvert(id, link.properties, from, to, invert, &findings) }
        }
        // Every link belongs to the part of its nodes. With terminals, a part holding one is
        // whole; without, the largest part is the network and the others are cut off from it.
        var sizes: [String: Int] = [:]
        for e in linkEnds { if let n = e.from { sizes[parts.root(n), default: 0] += 1 } }
        guard sizes.count > 1 else { return }
        var whole = Set<String>()
        if rules.terminalLayers.isEmpty {
            if let main = sizes.max(by: { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) })?.key { whole.insert(main) }
        } else {
            for (id, node) in nodes where node.isTerminal && parts.contains(id) { whole.insert(parts.root(id)) }
        }
        let reason = rules.terminalLayers.isEmpty
            ? "not connected to the main network of \(whole.first.flatMap { sizes[$0] } ?? 0) links"
            : "reaching no node of \(rules.terminalLayers.joined(separator: ", "))"
        for e in linkEnds {
            guard let n = e.from else { continue }
            let r = parts.root(n)
            if !whole.contains(r) {
                findings.add(.disconnectedParts, e.id, "in a part of \(sizes[r] ?? 0) link(s) \(reason) (\(sizes.count) parts)")
            }
        }
    }

    private func checkEnd(_ id: String, _ side: String, _ property: String, _ nodeID: String?, _ position: Position?,
                          _ findings: inout QualityFindings) {
        guard let nodeID else {
            findings.add(.danglingEnds, id, "\(property) names no node")
            return
        }
        guard let node = nodes[nodeID] else {
            findings.add(.danglingEnds, id, "\(property) '\(nodeID)' is not a node of \(rules.nodeLayers.joined(separator: ", "))")
            return
        }
        guard let position, let at = node.position else { return }
        let d = (try? position.geodesicDistance(to: at)) ?? 0
        if d > rules.toleranceMetres {
            findings.add(.danglingEnds, id, "the line's \(side) lies \(Self.fixed(d, 1)) m from its node '\(nodeID)' (tolerance \(Self.fixed(rules.toleranceMetres, 1)) m)")
        }
    }

    private func checkInvert(_ id: String, _ p: [String: JSONValue], _ from: String, _ to: String,
                             _ rules: QualityRules.InvertRules, _ findings: inout QualityFindings) {
        guard let a = nodes[from]?.invert, let b = nodes[to]?.invert else { return }
        var up = a + (rules.fromOffset.flatMap { p[$0]?.doubleValue } ?? 0)
        var down = b + (rules.toOffset.flatMap { p[$0]?.doubleValue } ?? 0)
        var (upNode, downNode) = (from, to)
        if let d = rules.direction, p[d]?.stringValue == "-" {
            swap(&up, &down)
            swap(&upNode, &downNode)
        }
        // 1 mm: below survey precision, a level pipe is not a contradiction.
        if down - up > 0.001 {
            findings.add(.flowAgainstInverts, id, "drains from '\(upNode)' (invert \(Self.fixed(up, 3)) m) to '\(downNode)' (invert \(Self.fixed(down, 3)) m): \(Self.fixed(down - up, 3)) m uphill")
        }
    }

    /// `x` with `digits` decimals.
    static func fixed(_ x: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", x) }

    /// The first and last positions of a line (the first line of a multi-line).
    static func ends(of geometry: Geometry?) -> [Position]? {
        switch geometry {
        case .lineString(let l)?: l.positions.isEmpty ? nil : [l.positions[0], l.positions[l.positions.count - 1]]
        case .multiLineString(let m)?:
            m.lineStrings.first.flatMap { $0.positions.isEmpty ? nil : [$0.positions[0], m.lineStrings[m.lineStrings.count - 1].positions.last ?? $0.positions[0]] }
        default: nil
        }
    }
}

/// Disjoint sets of node ids (path halving, union by size).
struct UnionFind {
    private var parent: [String: String] = [:]
    private var size: [String: Int] = [:]

    mutating func add(_ a: String) {
        if parent[a] == nil { parent[a] = a; size[a] = 1 }
    }

    func contains(_ a: String) -> Bool { parent[a] != nil }

    mutating func root(_ a: String) -> String {
        add(a)
        var x = a
        while let p = parent[x], p != x {
            let gp = parent[p] ?? p
            parent[x] = gp
            x = gp
        }
        return x
    }

    mutating func union(_ a: String, _ b: String) {
        var ra = root(a), rb = root(b)
        guard ra != rb else { return }
        if (size[ra] ?? 1) < (size[rb] ?? 1) { swap(&ra, &rb) }
        parent[rb] = ra
        size[ra, default: 1] += size[rb] ?? 1
    }
}
