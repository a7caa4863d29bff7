import GeoCore

/// Topology check of a drainage network as surveyed: manholes, outfalls and the pipes between them
/// (layers `drainage_manholes`, `drainage_outfalls`, `drainage_pipes`).
///
/// Pipes are read through their `upstream_node`/`downstream_node` ids, `flow_dir` ("+" means
/// upstream → downstream as recorded, "−" the reverse), and `inlet_offset_m`/`outlet_offset_m`
/// above the nodes' `invert_elevation_m`. Checks, each yielding findings a surveyor can act on:
/// duplicate ids; dangling pipes (end node missing); snapping (a pipe end farther than the
/// tolerance from its node, with the distance); reversed slopes (downstream invert above upstream);
/// flow-direction conflicts (a manhole with inflow but no outflow, an outfall with outflow); and
/// connectivity (each group of manholes that cannot reach an outfall along the flow, reported once).
public struct DrainageTopologyReport: Sendable {
    /// Default snapping tolerance in metres.
    public static let defaultSnappingTolerance = 0.5

    public let findings: [TopologyFinding]
    public let manholeCount: Int
    public let outfallCount: Int
    public let pipeCount: Int
    /// Snapping tolerance used, metres.
    public let snappingTolerance: Double

    /// Whether nothing was found.
    public var isClean: Bool { findings.isEmpty }

    /// Findings of one kind.
    public func findings(_ kind: TopologyFinding.Kind) -> [TopologyFinding] { findings.filter { $0.kind == kind } }

    /// - Parameters:
    ///   - manholes: point features with `invert_elevation_m`.
    ///   - outfalls: point features with `invert_elevation_m`.
    ///   - pipes: line features as described above.
    ///   - snappingTolerance: metres between a pipe end and its node before it is reported.
    public init(manholes: [Feature], outfalls: [Feature], pipes: [Feature],
                snappingTolerance: Double = DrainageTopologyReport.defaultSnappingTolerance) {
        manholeCount = manholes.count
        outfallCount = outfalls.count
        pipeCount = pipes.count
        self.snappingTolerance = snappingTolerance
        var out: [TopologyFinding] = []

        // Nodes and duplicate ids.
        var nodes: [String: (position: Position?, invert: Double?, outfall: Bool)] = [:]
        var seen: [String: Int] = [:]
        for (f, isOutfall) in manholes.map({ ($0, false) }) + outfalls.map({ ($0, true) }) {
            let id = idString(f)
            seen[id, default: 0] += 1
            if seen[id] == 2 {
                out.append(TopologyFinding(kind: .duplicateID, featureIDs: [id], location: pointPosition(f.geometry),
                                           messageZH: "节点编号 \(id) 重复，请核对并重新编号。",
                                           messageEN: "Node id \(id) is used more than once; check and renumber."))
            }
            if nodes[id] == nil {
                nodes[id] = (pointPosition(f.geometry), f.properties["invert_elevation_m"]?.doubleValue, isOutfall)
            }
        }
        var pipeSeen: [String: Int] = [:]
        for p in pipes {
            let id = idString(p)
            pipeSeen[id, default: 0] += 1
            if pipeSeen[id] == 2 {
                out.append(TopologyFinding(kind: .duplicateID, featureIDs: [id], location: endPositions(p.geometry)?.0,
                                           messageZH: "管段编号 \(id) 重复，请核对并重新编号。",
                                           messageEN: "Pipe id \(id) is used more than once; check and renumber."))
            }
        }

        // Pipes: dangling, snapping, slope; and the directed flow graph.
        var downstreamOf: [String: [String]] = [:]
        var upstreamOf: [String: [String]] = [:]
        // Nodes with a pipe leaving them whose far end is missing: already reported as dangling,
        // so not reported again as sinks.
        var danglingOutflow = Set<String>()
        for p in pipes {
            let id = idString(p)
            let ends = endPositions(p.geometry)
            let reversed = p.properties["flow_dir"]?.stringValue == "-"
            let recordedUp = p.properties["upstream_node"]?.stringValue ?? ""
            let recordedDown = p.properties["downstream_node"]?.stringValue ?? ""
            var missing: [String] = []
            for (role, nid) in [("起点", recordedUp), ("终点", recordedDown)] where nid.isEmpty || nodes[nid] == nil {
                missing.append(nid.isEmpty ? "(\(role)未填)" : nid)
            }
            if !missing.isEmpty {
                let list = missing.joined(separator: ", ")
                out.append(TopologyFinding(kind: .danglingPipe, featureIDs: [id] + missing.filter { !$0.hasPrefix("(") },
                                           location: ends?.1 ?? ends?.0,
                                           messageZH: "管段 \(id) 的连接节点 \(list) 不存在，请补测节点或修正管段端点编号。",
                                           messageEN: "Pipe \(id) refers to node(s) \(list) that do not exist; survey the node or fix the pipe's end ids."))
            }
            // Snapping: the geometry's first point belongs to the recorded start node, its last to the end node.
            if let ends {
                for (nid, at, zh, en) in [(recordedUp, ends.0, "起点", "start"), (recordedDown, ends.1, "终点", "end")] {
                    guard let node = nodes[nid], let np = node.position else { continue }
                    let d = groundDistance(at, np)
                    if d > snappingTolerance {
                        out.append(TopologyFinding(kind: .snapping, featureIDs: [id, nid], location: at, distance: d,
                                                   messageZH: "管段 \(id) 的\(zh)距节点 \(nid) \(formatMetres(d)) 米，超过捕捉容差 \(formatMetres(snappingTolerance)) 米。",
                                                   messageEN: "Pipe \(id) \(en) is \(formatMetres(d)) m from node \(nid), beyond the \(formatMetres(snappingTolerance)) m snapping tolerance."))
                    }
                }
            }
            let (up, down) = reversed ? (recordedDown, recordedUp) : (recordedUp, recordedDown)
            guard missing.isEmpty else {
                if nodes[up] != nil { danglingOutflow.insert(up) }
                continue
            }
            downstreamOf[up, default: []].append(down)
            upstreamOf[down, default: []].append(up)
            // Slope along the flow.
            let upOffset = p.properties[reversed ? "outlet_offset_m" : "inlet_offset_m"]?.doubleValue ?? 0
            let downOffset = p.properties[reversed ? "inlet_offset_m" : "outlet_offset_m"]?.doubleValue ?? 0
            if let ui = nodes[up]?.invert, let di = nodes[down]?.invert {
                let upInvert = ui + upOffset, downInvert = di + downOffset
                if downInvert > upInvert + 1e-6 {
                    let rise = downInvert - upInvert
                    out.append(TopologyFinding(kind: .reversedSlope, featureIDs: [id, up, down], location: ends?.0,
                                               messageZH: "管段 \(id) 倒坡：下游 \(down) 管内底比上游 \(up) 高 \(formatMetres(rise)) 米，请复核管底标高或流向。",
                                               messageEN: "Pipe \(id) slopes backwards: the downstream invert at \(down) is \(formatMetres(rise)) m above the upstream invert at \(up); re-check the inverts or the flow direction."))
                }
            }
        }

        // Flow-direction conflicts.
        for f in manholes + outfalls {
            let id = idString(f)
            guard let node = nodes[id] else { continue }
            let ins = upstreamOf[id]?.count ?? 0, outs = downstreamOf[id]?.count ?? 0
            if node.outfall && outs > 0 {
                out.append(TopologyFinding(kind: .flowDirectionConflict, featureIDs: [id] + (downstreamOf[id] ?? []), location: node.position,
                                           messageZH: "排放口 \(id) 有管段向外流出，请核对流向。",
                                           messageEN: "Outfall \(id) has pipes flowing out of it; check the flow directions."))
            } else if !node.outfall && ins > 0 && outs == 0 && !danglingOutflow.contains(id) {
                out.append(TopologyFinding(kind: .flowDirectionConflict, featureIDs: [id] + (upstreamOf[id] ?? []), location: node.position,
                                           messageZH: "检查井 \(id) 只有流入没有流出且不是排放口，请核对相连管段流向。",
                                           messageEN: "Manhole \(id) only receives flow and is not an outfall; check the directions of its pipes."))
            }
        }

        // Connectivity: walk upstream from every outfall; group the manholes never reached.
        var reached = Set<String>()
        var stack = outfalls.map(idString).filter { nodes[$0]?.outfall == true }
        while let n = stack.popLast() {
            guard reached.insert(n).inserted else { continue }
            stack.append(contentsOf: upstreamOf[n] ?? [])
        }
        var grouped = Set<String>()
        for f in manholes {
            let start = idString(f)
            guard !reached.contains(start), !grouped.contains(start) else { continue }
            // The undirected component of unreached manholes around `start`.
            var component: [String] = []
            var todo = [start]
            grouped.insert(start)
            while let n = todo.popLast() {
                component.append(n)
                for m in (upstreamOf[n] ?? []) + (downstreamOf[n] ?? []) where !reached.contains(m) && !grouped.contains(m) && nodes[m] != nil {
                    grouped.insert(m)
                    todo.append(m)
                }
            }
            component.sort()
            // Where the flow stops: a member without outflow to an existing node, else the first member.
            let terminal = component.first { n in (downstreamOf[n] ?? []).isEmpty } ?? component[0]
            let n = component.count
            out.append(TopologyFinding(kind: .unreachableOutfall, featureIDs: [terminal] + component.filter { $0 != terminal },
                                       location: nodes[terminal]?.position,
                                       messageZH: "\(n) 个检查井（止于 \(terminal)）无法沿流向到达任何排放口，请核查末端连接或补录排放口。",
                                       messageEN: "\(n) manhole(s) (ending at \(terminal)) cannot reach any outfall along the flow; check the downstream connection or record the missing outfall."))
        }
        findings = out
    }

    /// Checks the drainage layers of a generated sample district.
    public init(district: SampleDistrict, snappingTolerance: Double = DrainageTopologyReport.defaultSnappingTolerance) {
        self.init(manholes: district[layer: "drainage_manholes"], outfalls: district[layer: "drainage_outfalls"],
                  pipes: district[layer: "drainage_pipes"], snappingTolerance: snappingTolerance)
    }
}
