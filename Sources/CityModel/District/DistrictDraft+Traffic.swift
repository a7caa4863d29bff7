import Foundation
import GeoCore
import SignalSim

extension DistrictDraft {
    func buildTraffic() throws {
        try buildParking()
        buildSignals()
        buildTurnRestrictions()
        buildSignalCorridor()
        buildCurrentSignalPlans()
    }

    /// The plan each controller runs today (approved by 交警 in 2025, before any optimisation):
    /// the layer's `cycle_s` split evenly over the stages, evaluated on the peak-hour counts, so
    /// that re-timing has a before to compare with.
    private func buildCurrentSignalPlans() {
        for feature in layers[SignalizedIntersection.layer] ?? [] {
            guard let intersection = try? SignalizedIntersection(feature), let cycle = feature.properties["cycle_s"]?.doubleValue else { continue }
            let d = intersection.demand
            let intergreen = d.amber + d.allRed
            let n = Double(d.stages.count)
            let green = ((cycle - n * intergreen) / n).rounded(.down)
            let plan = SignalPlan(stages: d.stages.map { StageTiming(approaches: $0, green: max(10, green), amber: d.amber, allRed: d.allRed) })
            guard let timing = try? SignalTiming.evaluate(plan, for: d, method: "manual") else { continue }
            let flows = Dictionary(d.approaches.map { ($0.id, $0.flows) }, uniquingKeysWith: { a, _ in a })
            let period = TimeOfDayPeriod(name: "all-day", start: 0, end: 1440, designFlows: flows, designHourStart: 7 * 60 + 30)
            add(SignalPlanLayer.layer, SignalPlanLayer.feature(for: intersection, plan: TimeOfDayPlan(period: period, timing: timing),
                                                               method: "manual", approvedBy: "新洲区公安分局交通管理大队",
                                                               approvedAt: "2025-09-01T09:00:00+08:00"))
        }
    }

    /// A few restrictions the traffic police put at signalised arterial crossings (no random
    /// draws, so the rest of the district is unchanged): eastbound traffic may not turn left
    /// (north) at the first three crossings with a western and a northern leg, and may not make
    /// a U-turn at the first of them.
    private func buildTurnRestrictions() {
        func segment(_ a: (Int, Int), _ b: (Int, Int)) -> RoadSegment? {
            roads.first { ($0.from == a && $0.to == b) || ($0.from == b && $0.to == a) }
        }
        var crossings: [(c: Int, r: Int, west: RoadSegment, north: RoadSegment)] = []
        for r in 0..<rows {
            for c in 0..<columns where isArterialColumn(c) && isArterialRow(r) && crossings.count < 3 {
                guard c > 0, r < rows - 1, let west = segment((c - 1, r), (c, r)), !west.oneway,
                      let north = segment((c, r), (c, r + 1)) else { continue }
                crossings.append((c, r, west, north))
            }
        }
        var n = 0
        func restrict(_ k: (c: Int, r: Int, west: RoadSegment, north: RoadSegment), to: RoadSegment, kind: String) {
            n += 1
            add("turn_restrictions", Feature(id: .string("TR-" + padded(n, 3)), geometry: point(x(col: k.c), y(row: k.r)), properties: [
                "from_road": .string(k.west.id), "to_road": .string(to.id),
                "via_intersection": .string(intersectionID(k.c, k.r)), "kind": .string(kind),
                "valid_from": .string("2024-03-01"),
            ]))
        }
        for k in crossings { restrict(k, to: k.north, kind: "no_left_turn") }
        if let first = crossings.first { restrict(first, to: first.west, kind: "no_u_turn") }
    }

    private func buildParking() throws {
        var lots: [(name: String, kind: String, block: Int?, cap: Int, price: Double)] = []
        for (role, cap) in [("hospital-0", 300), ("hospital-1", 150), ("hospital-2", 80)] {
            if let bi = blocks.firstIndex(where: { $0.role == role }), let name = Self.roleNames[role]?.0 {
                lots.append((name + "停车场", "公共", bi, cap, 3))
            }
        }
        for (role, name) in [("plaza", "问津广场公共停车场"), ("stadium", "邾城体育场公共停车场")] {
            if let bi = blocks.firstIndex(where: { $0.role == role }) { lots.append((name, "公共", bi, rng.integer(120...240), 2)) }
        }
        for bi in blocks.indices.filter({ blocks[$0].use == .commercial && blocks[$0].role == nil }).prefix(5) {
            let b = blocks[bi]
            lots.append(("\(columnName(b.col + 1))\(rowName(b.row))商业广场停车场", "营业性", bi, rng.integer(200...600), 5))
        }
        for (i, bi) in blocks.indices.filter({ blocks[$0].use == .residential }).enumerated() where i % 40 == 3 {
            lots.append(("\(rowName(blocks[bi].row + 1))道路泊位", "道路泊位", bi, 25, 2))
        }
        for (i, lot) in lots.enumerated() {
            guard let bi = lot.block else { continue }
            let b = blocks[bi]
            let x1 = x(col: b.col + 1), y1 = y(row: b.row + 1)
            let geometry: Geometry
            let entrance: (Double, Double)
            if lot.kind == "道路泊位" {
                // A 150 m × 2.5 m strip of berths along the block's north kerb.
                geometry = rectangle(x1 - 175, y1 - 10.5, x1 - 25, y1 - 8)
                entrance = (x1 - 175, y1 - 9)
            } else {
                geometry = rectangle(x1 - 70, y1 - 60, x1 - 20, y1 - 22)
                entrance = (x1 - 45, y1 - 22)
            }
            let e = try geographic(entrance.0, entrance.1)
            add("parking_lots", Feature(id: .string("PK-" + padded(i + 1, 3)), geometry: geometry, properties: [
                "name": .string(lot.name), "kind": .string(lot.kind), "capacity": .integer(Int64(lot.cap)),
                "entrances": .array([.array([.number(e.x), .number(e.y)])]), "price_per_hour": .number(lot.price),
                "smart": .bool(rng.chance(0.75)), "charging_piles": .integer(Int64(lot.kind == "道路泊位" ? 0 : rng.integer(4...20))),
            ]))
        }
    }

    private func buildSignals() {
        var n = 0
        for r in 0..<rows {
            for c in 0..<columns {
                let art = (isArterialColumn(c) ? 1 : 0) + (isArterialRow(r) ? 1 : 0)
                guard art == 2 || (isMainColumn(c) && r % 5 == 2) else { continue }
                n += 1
                // Approaches (named by where traffic comes from) that exist and carry traffic into the node.
                let ewOneway = !isArterialRow(r) && (r % 5 == 2 || r % 5 == 3)
                let eastbound = r % 5 == 2
                var approaches: [(String, String)] = []   // (approach, road class)
                let nsClass = isMainColumn(c) ? "主干路" : (isArterialColumn(c) ? "次干路" : "支路")
                let ewClass = isMainRow(r) ? "主干路" : (isArterialRow(r) ? "次干路" : "支路")
                if r < rows - 1 { approaches.append(("N", nsClass)) }
                if r > 0 { approaches.append(("S", nsClass)) }
                if c < columns - 1 && (!ewOneway || !eastbound) { approaches.append(("E", ewClass)) }
                if c > 0 && (!ewOneway || eastbound) { approaches.append(("W", ewClass)) }
                // Directions traffic can leave by: the north–south roads run both ways inside the
                // district, a one-way row only in its own direction. A movement toward a direction
                // with no road out is not made (its count is 0, no lane group serves it): a T at the
                // district's edge has no through traffic on its stem.
                var exits: Set<String> = []
                if r < rows - 1 { exits.insert("N") }
                if r > 0 { exits.insert("S") }
                if c < columns - 1 && (!ewOneway || eastbound) { exits.insert("E") }
                if c > 0 && (!ewOneway || !eastbound) { exits.insert("W") }
                func possible(_ approach: String, _ movement: String) -> Bool {
                    SignalizedIntersection.exit(from: approach, movement).map(exits.contains) ?? false
                }
                var counts: [String: JSONValue] = [:], lanes: [String: JSONValue] = [:]
                var critical: [String: Double] = [:]
                for (a, cls) in approaches {
                    // Drawn for every movement (the draws of the rest of the district stay as they were), kept where made.
                    let drawnThrough = cls == "主干路" ? rng.integer(600...900) : (cls == "次干路" ? rng.integer(350...600) : rng.integer(100...220))
                    let drawnLeft = Int(Double(drawnThrough) * rng.uniform(0.15, 0.25)), drawnRight = Int(Double(drawnThrough) * rng.uniform(0.1, 0.2))
                    let through = possible(a, "through") ? drawnThrough : 0
                    let left = possible(a, "left") ? drawnLeft : 0, right = possible(a, "right") ? drawnRight : 0
                    let l = cls == "主干路" ? 3 : (cls == "次干路" ? 2 : 1)
                    counts[a] = .object(["left": .integer(Int64(left)), "through": .integer(Int64(through)), "right": .integer(Int64(right))])
                    lanes[a] = .integer(Int64(l))
                    let axis = a == "N" || a == "S" ? "NS" : "EW"
                    critical[axis] = max(critical[axis] ?? 0, Double(left + through + right) / Double(l) / 1800)
                }
                // Webster: C₀ = (1.5L + 5)/(1 − Y), 4 s lost per stage, clamped to 40…160 s (signals.md §1).
                let phases = art == 2 ? 4 : 2
                let flowRatio = critical.values.reduce(0, +)
                let lost = Double(phases) * 4
                let cycle = flowRatio < 0.95 ? min(160, max(40, (1.5 * lost + 5) / (1 - flowRatio))) : 160
                let ix = intersectionID(c, r)
                let id = "SI-" + padded(n, 3)
                let timing = signalTiming(approaches: approaches, lanes: lanes, fourStage: phases == 4, possible: possible)
                add("signalized_intersections", Feature(id: .string(id), geometry: point(x(col: c), y(row: r)), properties: [
                    "name": .string("\(columnName(c))与\(rowName(r))交叉口"), "intersection": .string(ix),
                    "cycle_s": .integer(Int64(cycle.rounded())), "phases": .integer(Int64(phases)),
                    "lanes": .object(lanes), "turning_counts": .object(counts), "saturation_flow_pcu_h": 1800,
                    "detector": .string(timing.detector), "amber_s": 3, "all_red_s": 2, "startup_lost_s": 3,
                    // Gap acceptance of permitted left turns as measured at the district's signals
                    // (in SUMO 1.28 on CityTwin's export: 730, 396 and 190 veh/h turn through 400,
                    // 800 and 1,200 veh/h of opposing traffic on three lanes; Benchmarks/README.md).
                    "permitted_left_critical_gap_s": 6.5, "permitted_left_follow_up_s": 3.0,
                    "lane_groups": .array(timing.laneGroups), "stages": .array(timing.stages), "crossings": .array(timing.crossings),
                ]))
                addWeekdayCounts(intersection: id, counts: counts, detector: timing.detector)
                signals.append((id, c, r))
            }
        }
    }

    /// Lane groups, the stage chain (相位阶段链) and the crossings of one signalised intersection.
    /// A 4-stage intersection has a left-turn lane group per approach with its own stage
    /// (南北直行, 南北左转, 东西直行, 东西左转); a 2-stage one runs each axis in one stage.
    /// Crossings lie across each leg, are walked with the other axis's through stage, and main
    /// roads (3 lanes a side) have a refuge island.
    private func signalTiming(approaches: [(String, String)], lanes: [String: JSONValue], fourStage: Bool,
                              possible: (String, String) -> Bool)
        -> (detector: String, laneGroups: [JSONValue], stages: [JSONValue], crossings: [JSONValue]) {
        var groups: [JSONValue] = []
        var through: [String: String] = [:], left: [String: String] = [:], stem: [String: String] = [:]
        for (a, cls) in approaches {
            let l = lanes[a]?.integerValue ?? 1
            // Each group serves the movements that have a road to leave by; a group left with none is not built.
            func group(_ id: String, _ movements: [String], lanes: Int64, storage: Double? = nil) -> Bool {
                let made = movements.filter { possible(a, $0) }
                guard !made.isEmpty else { return false }
                var g: [String: JSONValue] = ["id": .string(id), "approach": .string(a), "movements": .array(made.map { .string($0) }), "lanes": .integer(lanes)]
                if let storage { g["storage_m"] = .number(storage) }
                groups.append(.object(g))
                return true
            }
            if fourStage {
                if group(a, ["through", "right"], lanes: l) { through[a] = a }
                // Beside the through lanes the left lane is a bay (展宽段) opened back from the stop
                // line, longer on the main road (the district's signals are on 主干路 and 次干路); an
                // approach of left turns alone is its own road.
                let bay: Double? = through[a] == nil ? nil : (cls == "主干路" ? 60 : 40)
                // The stem of a T (no through movement, so no approach opposite): its lefts cross
                // nothing that runs beside them and go with its rights, as T-junctions are phased.
                if group(a + "L", ["left"], lanes: 1, storage: bay) { if possible(a, "through") { left[a] = a + "L" } else { stem[a] = a + "L" } }
            } else if group(a, ["left", "through", "right"], lanes: l) {
                through[a] = a
            }
        }
        func stage(_ id: String, _ name: String, _ members: [String?]) -> JSONValue? {
            let ids = members.compactMap { $0 }
            return ids.isEmpty ? nil : ["id": .string(id), "name": .string(name), "lane_groups": .array(ids.map { .string($0) })]
        }
        var stages: [JSONValue] = []
        var throughStage: [String: Int] = [:]
        let chain: [(String, String, [String?], String?)] = fourStage
            ? [("S1", "南北直行", [through["N"], stem["N"], through["S"], stem["S"]], "NS"), ("S2", "南北左转", [left["N"], left["S"]], nil),
               ("S3", "东西直行", [through["E"], stem["E"], through["W"], stem["W"]], "EW"), ("S4", "东西左转", [left["E"], left["W"]], nil)]
            : [("S1", "南北放行", [through["N"], through["S"]], "NS"), ("S2", "东西放行", [through["E"], through["W"]], "EW")]
        for (id, name, members, axis) in chain {
            guard let s = stage(id, name, members) else { continue }
            if let axis { throughStage[axis] = stages.count }
            stages.append(s)
        }
        // Pedestrians crossing a north or south leg walk with east–west traffic, and the other way round.
        var crossings: [JSONValue] = []
        for (a, cls) in approaches {
            let walkedWith = a == "N" || a == "S" ? "EW" : "NS"
            guard let s = throughStage[walkedWith] ?? throughStage[walkedWith == "EW" ? "NS" : "EW"] else { continue }
            let width = cls == "主干路" ? 30.0 : (cls == "次干路" ? 20.0 : 12.0)
            crossings.append(["id": .string("P-" + a), "leg": .string(a), "length_m": .number(width),
                              "refuge_island": .bool(cls == "主干路"), "stage": .integer(Int64(s))])
        }
        let detector = signalRNG.chance(0.7) ? "video" : (signalRNG.chance(0.5) ? "coil" : "radar")
        return (detector, groups, stages, crossings)
    }

    /// A weekday (Wednesday 2026-06-17) of 15-minute counts per approach: the AM peak hour's
    /// turning counts shaped by a weekday profile (peaks 07:30–08:30 and 17:30–18:30), traffic
    /// towards the centre heavier in the morning and away from it in the evening, ±8 % noise.
    private func addWeekdayCounts(intersection: String, counts: [String: JSONValue], detector: String) {
        // Share of the AM peak hour's flow in each hour of a weekday.
        let hourly: [Double] = [0.08, 0.05, 0.04, 0.04, 0.06, 0.15, 0.45, 0.92, 0.95, 0.65, 0.58, 0.60,
                                0.55, 0.52, 0.58, 0.62, 0.72, 0.95, 0.98, 0.62, 0.45, 0.35, 0.22, 0.13]
        for (approach, value) in counts.sorted(by: { $0.key < $1.key }) {
            guard let movements = value.objectValue else { continue }
            // In the morning traffic from the north and west heads to the centre; in the evening back.
            let towardCentre = approach == "N" || approach == "W"
            for q in 0..<96 {
                let hour = Double(q) / 4 + 0.125
                let h0 = Int(hour.rounded(.down)) % 24, h1 = (h0 + 1) % 24, w = hour - hour.rounded(.down)
                var share = hourly[h0] * (1 - w) + hourly[h1] * w
                if hour >= 6, hour < 10 { share *= towardCentre ? 1.15 : 0.85 }
                if hour >= 16, hour < 20 { share *= towardCentre ? 0.85 : 1.15 }
                var row: [String: JSONValue] = [:]
                for m in ["left", "through", "right"] {
                    let peak = Double(movements[m]?.integerValue ?? 0)
                    let mean = peak * share / 4 * (1 + signalRNG.uniform(-0.08, 0.08))
                    row[m] = .integer(Int64(max(0, mean.rounded())))
                }
                let minute = q * 15
                let start = "2026-06-17T\(padded(minute / 60, 2)):\(padded(minute % 60, 2)):00+08:00"
                add("traffic_counts", Feature(id: .string("TC-\(intersection)-\(approach)-\(padded(q, 2))"), geometry: nil, properties: [
                    "intersection": .string(intersection), "approach": .string(approach), "start": .string(start), "minutes": 15,
                    "left": row["left"]!, "through": row["through"]!, "right": row["right"]!, "detector": .string(detector),
                ]))
            }
        }
    }

    /// The main north–south road (主干路) as a coordinated corridor, south to north, through every
    /// signal on it between the district's edges: design speed 50 km/h.
    private func buildSignalCorridor() {
        // Signals on the district's edge rows have no approach from outside: the corridor runs between them,
        // where through traffic arrives from both directions.
        let onMain = signals.filter { isMainColumn($0.c) && $0.r > 0 && $0.r < rows - 1 }.sorted { $0.r < $1.r }
        guard onMain.count >= 2, let first = onMain.first, let last = onMain.last else { return }
        let distances = zip(onMain, onMain.dropFirst()).map { a, b in JSONValue.number(Double(b.r - a.r) * spacing) }
        let path = line(onMain.map { (x(col: $0.c), y(row: $0.r)) })
        add("signal_corridors", Feature(id: .string("SC-001"), geometry: path, properties: [
            "name": .string("\(columnName(first.c))干线协调（\(rowName(first.r))—\(rowName(last.r))）"),
            "intersections": .array(onMain.map { .string($0.id) }), "distances_m": .array(distances),
            "design_speed_kmh": 50, "outbound_approach": "S", "inbound_approach": "N",
        ]))
    }
}
