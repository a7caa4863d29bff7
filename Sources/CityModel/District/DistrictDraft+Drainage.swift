import Foundation
import GeoCore
import SWMMFormat

/// Design parameters of the sample district's rainwater sewers.
enum SewerDesign {
    /// Sewer design return period, years: the upper value GB 50014 gives 中/小 cities (2–3 a), as the
    /// brief asks (flood.md §1.3).
    static let returnPeriod = 3.0
    /// Inlet (surface) time t₁ in minutes.
    static let inletTime = 10.0
    /// Minimum cover over the crown under carriageways, metres (project value).
    static let minimumCover = 0.7
    /// Manhole spacing along streets where the layout starts, metres: every lateral and trunk is laid
    /// with a manhole at most this far apart, then `SewerDraft.mergePassThroughManholes` drops the
    /// pass-through ones the pipe size does not need (`maximumManholeSpacing`).
    static let manholeSpacing = 40.0

    /// The largest spacing of rainwater-sewer manholes on a straight run, metres, by pipe diameter or
    /// box clear height (GB 50014-2021 表 5.4.2: 300–600 mm 75 m, 700–1000 mm 100 m, 1100–1500 mm
    /// 150 m, 1600–2000 mm 200 m; larger sections "may be spaced further", kept at 200 m here).
    static func maximumManholeSpacing(_ section: SewerSection) -> Double {
        switch section.height {
        case ...0.6: 75
        case ...1.0: 100
        case ...1.5: 150
        default: 200
        }
    }
    static let storm = StormIntensityFormula.wuhanManual
    /// Plan area of a pumping station's wet well (集水池), m², from the inlet manhole's invert to its
    /// rim. A station draws from a chamber, not from a 1–2 m² manhole shaft: GB 50014-2021 6.3.1 asks
    /// a rainwater station's wet well to hold at least its largest pump's 30 s output (under 100 m³
    /// for the district's 2–3 m³/s units, a fraction of a metre over 200 m²). In the drainage model
    /// the well makes the pump's inlet a storage unit whose level moves slowly instead of a manhole
    /// whose level the pump's on-off swings by metres a step (issue 53 §3).
    static let wetWellArea = 200.0

    /// Composite runoff coefficient ψ of a surface with impervious fraction `imperviousness`:
    /// 0.90 on roofs and paving, 0.15 on green land.
    static func runoffCoefficient(imperviousness: Double) -> Double {
        0.9 * imperviousness + 0.15 * (1 - imperviousness)
    }
}

extension DistrictDraft {
    func buildDrainage() {
        var net = SewerDraft()
        var gridNode = [Int](repeating: -1, count: columns * rows)
        for r in 0..<rows {
            for c in 0..<columns {
                gridNode[r * columns + c] = net.addNode(x: x(col: c), y: y(row: r), ground: ground(x(col: c), y(row: r)),
                                                        road: columnName(c))
            }
        }
        func node(_ c: Int, _ r: Int) -> Int { gridNode[r * columns + c] }
        /// Lays manholes every ≤ 40 m from node a to node b (flow a → b); returns the intermediate nodes.
        @discardableResult
        func chain(_ a: Int, _ b: Int, road: String) -> [Int] {
            let (ax, ay, bx, by) = (net.x[a], net.y[a], net.x[b], net.y[b])
            let n = max(1, Int((hypot(bx - ax, by - ay) / SewerDesign.manholeSpacing).rounded(.up)))
            var previous = a
            var middle: [Int] = []
            for i in 1..<n {
                let t = Double(i) / Double(n)
                let px = ax + (bx - ax) * t, py = ay + (by - ay) * t
                let m = net.addNode(x: px, y: py, ground: ground(px, py), road: road)
                net.addPipe(previous, m)
                middle.append(m)
                previous = m
            }
            net.addPipe(previous, b)
            return middle
        }
        let split = (columns - 1) / 2
        var lateralMiddle: [Int: Int] = [:]   // key r*columns+c for the edge (c, r+1) → (c, r)
        for c in 0..<columns {
            for r in 0..<rows where r % 5 != 0 {
                let mids = chain(node(c, r), node(c, r - 1), road: columnName(c))
                lateralMiddle[(r - 1) * columns + c] = mids[mids.count / 2]
            }
        }
        var outfalls: [(node: Int, name: String, water: String, kind: String)] = []
        for t in stride(from: 0, to: rows, by: 5) {
            let ty = y(row: t)
            if t == 0 {
                for c in 0..<split { chain(node(c, 0), node(c + 1, 0), road: rowName(0)) }
                let o = net.addNode(x: x(col: split), y: 160, ground: ground(x(col: split), 160), road: "长江堤防", outfall: true)
                chain(node(split, 0), o, road: columnName(split))
                outfalls.append((o, "长江邾城排口", "长江", "yangtze"))
            } else {
                for c in stride(from: split, to: 0, by: -1) { chain(node(c, t), node(c - 1, t), road: rowName(t)) }
                let ox = terrain.riverCentre(y: ty) + 50
                let o = net.addNode(x: ox, y: ty, ground: ground(ox, ty), road: "举水堤防", outfall: true)
                chain(node(0, t), o, road: rowName(t))
                outfalls.append((o, "举水\(chineseNumeral(t / 5))号排口", "举水", "river"))
            }
            for c in (split + 1)..<(columns - 1) { chain(node(c, t), node(c + 1, t), road: rowName(t)) }
            let ex = DistrictTerrain.channelX - 15
            let o = net.addNode(x: ex, y: ty, ground: ground(ex, ty), road: "东港渠堤", outfall: true)
            chain(node(columns - 1, t), o, road: rowName(t))
            outfalls.append((o, "东港渠\(chineseNumeral(t / 5 + 1))号排口", "东港渠", "channel"))
        }
        // Subcatchments: one per block, draining to the middle manhole of its west lateral.
        for (bi, b) in blocks.enumerated() {
            let outlet = (b.row + 1) % 5 != 0 ? (lateralMiddle[b.row * columns + b.col] ?? node(b.col, b.row)) : node(b.col, b.row)
            let x0 = x(col: b.col), y0 = y(row: b.row)
            let imp = b.use.imperviousness
            let psi = SewerDesign.runoffCoefficient(imperviousness: imp)
            let area = spacing * spacing / 10_000
            net.localArea[outlet] += area
            net.localPsiArea[outlet] += psi * area
            let corners = [ground(x0, y0), ground(x0 + spacing, y0), ground(x0, y0 + spacing), ground(x0 + spacing, y0 + spacing)]
            let slope = ((corners.max() ?? 0) - (corners.min() ?? 0)) / (spacing * 2.squareRoot()) * 100
            add("subcatchments", Feature(id: .string("SC-" + padded(bi + 1, 4)), geometry: rectangle(x0, y0, x0 + spacing, y0 + spacing),
                                         properties: [
                "area_ha": .number(area), "imperviousness_pct": .number(imp * 100), "slope_pct": .number(round2(max(0.1, slope))),
                "width_m": .number(spacing * spacing / (spacing / 2)), "outlet_node": .string(net.id(outlet)),
                "runoff_coefficient": .number(round3(psi)),
            ]))
        }
        net.size()
        // Manholes that stay whatever the spacing: street crossings, the pumped outfalls' wet wells.
        var kept = Set(gridNode)
        for (n, o) in outfalls.enumerated() where o.kind == "yangtze" || (o.kind == "channel" && n <= 1) {
            if let inflow = net.incomingPipes(of: o.node).first { kept.insert(net.pipeFrom[inflow]) }
        }
        net.mergePassThroughManholes(keeping: kept)
        for i in 0..<net.count where !net.isMerged[i] {
            let g = net.ground[i]
            let p = point(net.x[i], net.y[i])
            if net.isOutfall[i] {
                guard let o = outfalls.first(where: { $0.node == i }) else { continue }
                add("drainage_outfalls", Feature(id: .string(net.id(i)), geometry: p, properties: [
                    "name": .string(o.name), "system": "YS", "invert_elevation_m": .number(round3(net.invert[i])),
                    "receiving_water": .string(o.water), "outfall_type": "FREE", "flap_gate": .bool(o.kind != "channel"),
                ]))
            } else {
                let h = net.out[i].map { net.section[$0].height } ?? 0.3
                add("drainage_manholes", Feature(id: .string(net.id(i)), geometry: p, properties: [
                    "system": "YS", "rim_elevation_m": .number(round3(g)), "invert_elevation_m": .number(round3(net.invert[i])),
                    "depth_m": .number(round3(g - net.invert[i])), "well_shape": .string(h > 1.0 ? "矩形" : "圆形"),
                    "road": .string(net.road[i]), "subsidiary": "检查井",
                ]))
            }
        }
        for k in 0..<net.pipeFrom.count where !net.isMergedPipe[k] {
            let (a, b) = (net.pipeFrom[k], net.pipeTo[k])
            let s = net.section[k]
            var props: [String: JSONValue] = [
                "system": "YS", "shape": .string(s.shape), "size_text": .string(s.sizeText),
                "material": .string(s.material.name), "manning_n": .number(s.material.manningN),
                "upstream_node": .string(net.id(a)), "downstream_node": .string(net.id(b)),
                "inlet_offset_m": .number(round3(net.upInvert[k] - net.invert[a])),
                "outlet_offset_m": .number(round3(net.downInvert[k] - net.invert[b])), "flow_dir": "+",
                "length_m": .number(round2(net.length(k))), "slope": .number((net.slope[k] * 1e5).rounded() / 1e5),
                "design_flow_ls": .number(round1(net.designFlow[k] * 1000)),
                "capacity_ls": .number(round1(net.capacity[k] * 1000)), "catchment_ha": .number(round2(net.area[a])),
                "diameter_mm": .null, "width_mm": .null, "height_mm": .null,
            ]
            switch s {
            case .circular(let d): props["diameter_mm"] = .integer(Int64(d))
            case .box(let w, let h):
                props["width_mm"] = .integer(Int64(w))
                props["height_mm"] = .integer(Int64(h))
            }
            add("drainage_pipes", Feature(id: .string("YS-C" + padded(k + 1, 5)), geometry: line([(net.x[a], net.y[a]), (net.x[b], net.y[b])]),
                                          properties: props))
        }
        // Pumping stations at the Yangtze outfall and the southern 东港渠 outfall.
        for (n, o) in outfalls.enumerated() where o.kind == "yangtze" || (o.kind == "channel" && n <= 1) {
            guard let inflow = net.incomingPipes(of: o.node).first else { continue }
            let inlet = net.pipeFrom[inflow]
            let cap = max(1, (net.designFlow[inflow] * 0.8 * 10).rounded() / 10)
            let name = o.kind == "yangtze" ? "邾城泵站" : "东港泵站"
            add("drainage_pumps", Feature(id: .string("PS-" + padded(n + 1, 2)), geometry: point(net.x[inlet] + 25, net.y[inlet]), properties: [
                "name": .string(name), "capacity_m3s": .number(cap), "pump_count": .integer(Int64(max(2, Int(cap / 2.5) + 1))),
                "inlet_node": .string(net.id(inlet)), "outfall": .string(net.id(o.node)),
                "start_level_m": .number(round2(net.invert[inlet] + 1.2)), "stop_level_m": .number(round2(net.invert[inlet] + 0.4)),
                "wet_well_area_m2": .number(SewerDesign.wetWellArea),
            ]))
            drainageSensorTargets.append(net.id(inlet))
        }
        // A storage tank under the central plaza.
        if let plaza = blocks.firstIndex(where: { $0.role == "plaza" }) {
            let b = blocks[plaza]
            let x0 = x(col: b.col) + 40, y0 = y(row: b.row) + 40
            let outlet = node(b.col, b.row)
            add("drainage_storage", Feature(id: .string("ST-01"), geometry: rectangle(x0, y0, x0 + 60, y0 + 40), properties: [
                "name": "问津广场调蓄池", "kind": "调蓄池", "volume_m3": 8000.0, "node": .string(net.id(outlet)),
                "bottom_elevation_m": .number(round2(ground(x0 + 30, y0 + 20) - 5.5)),
            ]))
        }
        // Manholes that get level sensors: the deepest trunk manhole of each outfall's network.
        for o in outfalls {
            if let inflow = net.incomingPipes(of: o.node).first { drainageSensorTargets.append(net.id(net.pipeFrom[inflow])) }
        }
    }
}

/// The rainwater sewer tree while it is being laid out and sized (local metres).
struct SewerDraft {
    var x: [Double] = [], y: [Double] = [], ground: [Double] = [], road: [String] = [], isOutfall: [Bool] = []
    var localArea: [Double] = [], localPsiArea: [Double] = []
    var pipeFrom: [Int] = [], pipeTo: [Int] = []
    var out: [Int?] = []
    // Results of `size()`.
    var invert: [Double] = [], area: [Double] = []
    var section: [SewerSection] = [], slope: [Double] = [], upInvert: [Double] = [], downInvert: [Double] = []
    var designFlow: [Double] = [], capacity: [Double] = []
    // Results of `mergePassThroughManholes`: manholes and pipes absorbed into a longer pipe.
    var isMerged: [Bool] = [], isMergedPipe: [Bool] = []

    var count: Int { x.count }
    private var manholeNumber: [Int] = []
    private var manholes = 0, outfallCount = 0

    mutating func addNode(x: Double, y: Double, ground: Double, road: String, outfall: Bool = false) -> Int {
        self.x.append(x); self.y.append(y); self.ground.append(ground); self.road.append(road)
        isOutfall.append(outfall); localArea.append(0); localPsiArea.append(0); out.append(nil)
        if outfall { outfallCount += 1; manholeNumber.append(outfallCount) } else { manholes += 1; manholeNumber.append(manholes) }
        return self.x.count - 1
    }

    mutating func addPipe(_ a: Int, _ b: Int) {
        out[a] = pipeFrom.count
        pipeFrom.append(a)
        pipeTo.append(b)
    }

    /// The pipes (not merged away) that end at node `i`, in laying order.
    func incomingPipes(of i: Int) -> [Int] {
        pipeTo.indices.filter { pipeTo[$0] == i && !(isMergedPipe.indices.contains($0) && isMergedPipe[$0]) }
    }

    /// Removes the pass-through manholes a straight run does not need, after `size()`: a manhole
    /// with one pipe in and one out, the same section, no drop, no inflow of its own and not in
    /// `keeping` goes, its two pipes becoming one, while the joined length stays within
    /// `SewerDesign.maximumManholeSpacing` of the section. The joined pipe runs from the first pipe's
    /// upstream invert to the second's downstream invert (its slope, capacity and the larger design
    /// flow recomputed), and only if at that slope it still carries the larger design flow; every
    /// other node and pipe keeps its number, hence its id.
    ///
    /// Why: 40 m manholes on trunks of up to 4 m boxes put 1,652 nodes into the model, each a place
    /// where SWMM's node-head iteration can fail to settle; SWMM 5.2.4 left 52 % of the routing steps
    /// of the p50 storm non-converging (Benchmarks/swmm/README.md, issue 53 §3).
    mutating func mergePassThroughManholes(keeping: Set<Int>) {
        isMerged = [Bool](repeating: false, count: count)
        isMergedPipe = [Bool](repeating: false, count: pipeFrom.count)
        var incoming = [[Int]](repeating: [], count: count)
        for k in pipeTo.indices { incoming[pipeTo[k]].append(k) }
        // Upstream first, so a run of pass-through manholes folds into its first pipe.
        for n in topologicalOrder() where !isOutfall[n] && !keeping.contains(n) && localArea[n] == 0 {
            guard incoming[n].count == 1, let b = out[n] else { continue }
            let a = incoming[n][0]
            guard section[a] == section[b], abs(downInvert[a] - invert[n]) < 1e-9,
                  length(a) + length(b) <= SewerDesign.maximumManholeSpacing(section[a]) + 1e-6 else { continue }
            // The joined pipe falls at the two pipes' mean slope: where the second was laid steeper to
            // carry its larger flow, the joined one may not carry it, and the manhole stays.
            let c = pipeTo[b]
            let joinedSlope = (upInvert[a] - downInvert[b]) / (length(a) + length(b))
            let joinedCapacity = section[a].fullCapacity(slope: joinedSlope, manningN: section[a].material.manningN)
            guard joinedCapacity >= max(designFlow[a], designFlow[b]) else { continue }
            pipeTo[a] = c
            downInvert[a] = downInvert[b]
            slope[a] = (upInvert[a] - downInvert[a]) / length(a)
            capacity[a] = section[a].fullCapacity(slope: slope[a], manningN: section[a].material.manningN)
            designFlow[a] = max(designFlow[a], designFlow[b])
            incoming[c] = incoming[c].map { $0 == b ? a : $0 }
            isMergedPipe[b] = true
            isMerged[n] = true
            out[n] = nil
        }
    }

    /// Node indices, every node after the nodes draining into it.
    private func topologicalOrder() -> [Int] {
        var indegree = [Int](repeating: 0, count: count)
        for b in pipeTo { indegree[b] += 1 }
        var queue = (0..<count).filter { indegree[$0] == 0 }
        var head = 0
        while head < queue.count {
            let u = queue[head]
            head += 1
            guard let k = out[u] else { continue }
            indegree[pipeTo[k]] -= 1
            if indegree[pipeTo[k]] == 0 { queue.append(pipeTo[k]) }
        }
        return queue
    }

    func id(_ i: Int) -> String { isOutfall[i] ? "YS-O" + padded(manholeNumber[i], 2) : "YS-J" + padded(manholeNumber[i], 5) }

    func length(_ k: Int) -> Double { hypot(x[pipeTo[k]] - x[pipeFrom[k]], y[pipeTo[k]] - y[pipeFrom[k]]) }

    /// Sizes every pipe by the rational method Q = ψ·q·F, upstream first: q from the 3-year storm at
    /// the time of concentration (inlet time + the longest upstream full-flow travel time); the
    /// smallest design section (never smaller than any upstream one) whose Manning capacity at
    /// max(minimum slope, ground slope ≤ 1 %) carries Q; inverts falling downstream with that slope
    /// and at least `minimumCover` over the crown.
    mutating func size() {
        let n = count, m = pipeFrom.count
        invert = [Double](repeating: .infinity, count: n)
        area = localArea
        var psiArea = localPsiArea
        var time = [Double](repeating: SewerDesign.inletTime, count: n)
        var minSection = [Int](repeating: 0, count: n)
        section = [SewerSection](repeating: .circular(diameter: 300), count: m)
        slope = [Double](repeating: 0, count: m)
        upInvert = slope; downInvert = slope; designFlow = slope; capacity = slope
        var indegree = [Int](repeating: 0, count: n)
        for b in pipeTo { indegree[b] += 1 }
        var queue = (0..<n).filter { indegree[$0] == 0 }
        var head = 0
        let sizes = SewerSection.designSizes
        while head < queue.count {
            let u = queue[head]
            head += 1
            guard let k = out[u] else {
                if invert[u] == .infinity { invert[u] = ground[u] - 2 }
                continue
            }
            let v = pipeTo[k], len = length(k)
            let q = SewerDesign.storm.intensity(returnPeriod: SewerDesign.returnPeriod, duration: time[u])
            let flow = q * psiArea[u] / 1000   // m³/s
            let groundSlope = min(0.01, (ground[u] - ground[v]) / len)
            var chosen = sizes.count - 1
            for i in minSection[u]..<sizes.count {
                let s = max(sizes[i].minimumSlope, groundSlope)
                if sizes[i].fullCapacity(slope: s, manningN: sizes[i].material.manningN) >= flow { chosen = i; break }
            }
            let sec = sizes[chosen]
            let s = max(sec.minimumSlope, groundSlope)
            let cap = sec.fullCapacity(slope: s, manningN: sec.material.manningN)
            invert[u] = min(invert[u], ground[u] - SewerDesign.minimumCover - sec.height)
            section[k] = sec; slope[k] = s; designFlow[k] = flow; capacity[k] = cap
            upInvert[k] = invert[u]
            downInvert[k] = invert[u] - s * len
            invert[v] = min(invert[v], downInvert[k])
            area[v] += area[u]
            psiArea[v] += psiArea[u]
            time[v] = max(time[v], time[u] + len / (cap / sec.area) / 60)
            minSection[v] = max(minSection[v], chosen)
            indegree[v] -= 1
            if indegree[v] == 0 { queue.append(v) }
        }
    }
}
