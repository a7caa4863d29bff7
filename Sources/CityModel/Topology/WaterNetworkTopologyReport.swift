import GeoCore

/// Topology check of a water-supply network (layers `water_nodes`, `water_mains`): duplicate ids,
/// dangling mains (end node missing), snapping of main ends to their nodes, and connectivity: every
/// group of nodes with no path to a source (`node_type` = 水源) is reported once as an isolated
/// segment, with its nodes and mains.
public struct WaterNetworkTopologyReport: Sendable {
    public let findings: [TopologyFinding]
    public let nodeCount: Int
    public let mainCount: Int
    /// Snapping tolerance used, metres.
    public let snappingTolerance: Double

    public var isClean: Bool { findings.isEmpty }

    public func findings(_ kind: TopologyFinding.Kind) -> [TopologyFinding] { findings.filter { $0.kind == kind } }

    public init(nodes: [Feature], mains: [Feature], snappingTolerance: Double = DrainageTopologyReport.defaultSnappingTolerance) {
        nodeCount = nodes.count
        mainCount = mains.count
        self.snappingTolerance = snappingTolerance
        var out: [TopologyFinding] = []
        var known: [String: (position: Position?, source: Bool)] = [:]
        for f in nodes {
            let id = idString(f)
            if known[id] != nil {
                out.append(TopologyFinding(kind: .duplicateID, featureIDs: [id], location: pointPosition(f.geometry),
                                           messageZH: "给水节点编号 \(id) 重复，请核对并重新编号。",
                                           messageEN: "Water node id \(id) is used more than once; check and renumber."))
                continue
            }
            known[id] = (pointPosition(f.geometry), f.properties["node_type"]?.stringValue == "水源")
        }
        var mainIDs = Set<String>()
        var adjacent: [String: [(node: String, main: String)]] = [:]
        for m in mains {
            let id = idString(m)
            if !mainIDs.insert(id).inserted {
                out.append(TopologyFinding(kind: .duplicateID, featureIDs: [id], location: endPositions(m.geometry)?.0,
                                           messageZH: "给水管段编号 \(id) 重复，请核对并重新编号。",
                                           messageEN: "Water main id \(id) is used more than once; check and renumber."))
            }
            let a = m.properties["from_node"]?.stringValue ?? "", b = m.properties["to_node"]?.stringValue ?? ""
            let ends = endPositions(m.geometry)
            let missing = [a, b].filter { $0.isEmpty || known[$0] == nil }
            if !missing.isEmpty {
                let list = missing.map { $0.isEmpty ? "(未填)" : $0 }.joined(separator: ", ")
                out.append(TopologyFinding(kind: .danglingPipe, featureIDs: [id] + missing.filter { !$0.isEmpty }, location: ends?.1 ?? ends?.0,
                                           messageZH: "给水管段 \(id) 的连接节点 \(list) 不存在，请补测节点或修正端点编号。",
                                           messageEN: "Water main \(id) refers to node(s) \(list) that do not exist; survey the node or fix the main's end ids."))
                continue
            }
            if let ends {
                for (nid, at) in [(a, ends.0), (b, ends.1)] {
                    guard let np = known[nid]?.position else { continue }
                    let d = groundDistance(at, np)
                    if d > snappingTolerance {
                        out.append(TopologyFinding(kind: .snapping, featureIDs: [id, nid], location: at, distance: d,
                                                   messageZH: "给水管段 \(id) 端点距节点 \(nid) \(formatMetres(d)) 米，超过捕捉容差 \(formatMetres(snappingTolerance)) 米。",
                                                   messageEN: "Water main \(id) end is \(formatMetres(d)) m from node \(nid), beyond the \(formatMetres(snappingTolerance)) m snapping tolerance."))
                    }
                }
            }
            adjacent[a, default: []].append((b, id))
            adjacent[b, default: []].append((a, id))
        }
        var reached = Set<String>()
        var stack = known.filter { $0.value.source }.map(\.key)
        while let n = stack.popLast() {
            guard reached.insert(n).inserted else { continue }
            stack.append(contentsOf: (adjacent[n] ?? []).map(\.node))
        }
        var grouped = Set<String>()
        for f in nodes {
            let start = idString(f)
            guard !reached.contains(start), !grouped.contains(start) else { continue }
            var component: [String] = [], componentMains = Set<String>()
            var todo = [start]
            grouped.insert(start)
            while let n = todo.popLast() {
                component.append(n)
                for e in adjacent[n] ?? [] {
                    componentMains.insert(e.main)
                    if !grouped.contains(e.node) { grouped.insert(e.node); todo.append(e.node) }
                }
            }
            component.sort()
            let mainsList = componentMains.sorted()
            out.append(TopologyFinding(kind: .isolatedSegment, featureIDs: component + mainsList, location: known[component[0]]?.position,
                                       messageZH: "\(component.count) 个给水节点、\(mainsList.count) 条管段（含 \(component[0])）与任何水源不连通，请核查断开的管段或阀门。",
                                       messageEN: "\(component.count) water node(s) and \(mainsList.count) main(s) (including \(component[0])) are not connected to any source; check for a missing main."))
        }
        findings = out
    }

    /// Checks the water-supply layers of a generated sample district.
    public init(district: SampleDistrict, snappingTolerance: Double = DrainageTopologyReport.defaultSnappingTolerance) {
        self.init(nodes: district[layer: "water_nodes"], mains: district[layer: "water_mains"], snappingTolerance: snappingTolerance)
    }
}
