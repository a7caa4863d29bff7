import Foundation
import GeoCore

extension DistrictDraft {
    func buildTraffic() throws {
        try buildParking()
        buildSignals()
        buildTurnRestrictions()
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
                var counts: [String: JSONValue] = [:], lanes: [String: JSONValue] = [:]
                var critical: [String: Double] = [:]
                for (a, cls) in approaches {
                    let through = cls == "主干路" ? rng.integer(600...900) : (cls == "次干路" ? rng.integer(350...600) : rng.integer(100...220))
                    let left = Int(Double(through) * rng.uniform(0.15, 0.25)), right = Int(Double(through) * rng.uniform(0.1, 0.2))
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
                add("signalized_intersections", Feature(id: .string("SI-" + padded(n, 3)), geometry: point(x(col: c), y(row: r)), properties: [
                    "name": .string("\(columnName(c))与\(rowName(r))交叉口"), "intersection": .string(ix),
                    "cycle_s": .integer(Int64(cycle.rounded())), "phases": .integer(Int64(phases)),
                    "lanes": .object(lanes), "turning_counts": .object(counts), "saturation_flow_pcu_h": 1800,
                ]))
            }
        }
    }
}
