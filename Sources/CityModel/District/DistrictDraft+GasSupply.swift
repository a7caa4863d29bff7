import Foundation
import GeoCore

extension DistrictDraft {
    func gasNodeID(_ c: Int, _ r: Int) -> String { "GN-" + padded(r * columns + c + 1, 4) }

    /// The gas network (GB 50028-2006 pressure classes): a city gate station (门站, 次高压A) west of the
    /// grid, a regulator station (调压站, 次高压A → 中压A) between it and the grid fed by one 次高压A
    /// main, two 中压A feeders into the grid, one main along every road (中压A under 主干路 and
    /// 次干路, 中压B under 支路), a valve on each main next to its first node, and one customer per
    /// building on the main of its road. Built last, so the other layers are the same as without it.
    func buildGasSupply() {
        let mid = rows / 2
        let gx = gridX0 - 320, gy = y(row: mid) + 120
        let rx = gridX0 - 110, ry = y(row: mid)
        add("gas_nodes", Feature(id: .string("GN-S01"), geometry: point(gx, gy), properties: [
            "node_type": "门站", "name": "邾城天然气门站", "pressure_class": "次高压A",
        ]))
        add("gas_nodes", Feature(id: .string("GN-R01"), geometry: point(rx, ry), properties: [
            "node_type": "调压站", "name": "邾城区域调压站", "pressure_class": "中压A",
        ]))
        add("gas_regulators", Feature(id: .string("GR-01"), geometry: point(rx + 6, ry + 6), properties: [
            "node": "GN-R01", "name": "邾城区域调压站", "inlet_class": "次高压A", "outlet_class": "中压A", "capacity_m3h": 20_000,
        ]))
        for r in 0..<rows {
            for c in 0..<columns {
                add("gas_nodes", Feature(id: .string(gasNodeID(c, r)), geometry: point(x(col: c) + 4, y(row: r) + 4), properties: [
                    "node_type": "节点", "name": .string("\(columnName(c))与\(rowName(r))交叉口"), "pressure_class": "中压A",
                ]))
            }
        }
        func addMain(_ id: String, _ pts: [(Double, Double)], dn: Int, pressure: String, from: String, to: String) {
            add("gas_mains", Feature(id: .string(id), geometry: line(pts), properties: [
                "pressure_class": .string(pressure), "diameter_mm": .integer(Int64(dn)), "material": .string(dn >= 250 ? "钢管" : "PE"),
                "from_node": .string(from), "to_node": .string(to), "length_m": .number(round2(length(pts))),
            ]))
        }
        addMain("GM-T01", [(gx, gy), (rx, ry)], dn: 300, pressure: "次高压A", from: "GN-S01", to: "GN-R01")
        let r2 = max(0, mid - 3)
        addMain("GM-F01", [(rx, ry), (x(col: 0) + 4, y(row: mid) + 4)], dn: 315, pressure: "中压A", from: "GN-R01", to: gasNodeID(0, mid))
        addMain("GM-F02", [(rx, ry), (rx + 40, y(row: r2) + 4), (x(col: 0) + 4, y(row: r2) + 4)], dn: 315, pressure: "中压A",
                from: "GN-R01", to: gasNodeID(0, r2))
        // A valve at each end of the transmission main and of the feeders, so each can be cut out alone.
        func endValves(_ main: String, _ pts: [(Double, Double)], from: String, to: String, dn: Int) {
            for (tag, node, p, q) in [("A", from, pts[0], pts[1]), ("B", to, pts[pts.count - 1], pts[pts.count - 2])] {
                let len = hypot(q.0 - p.0, q.1 - p.1)
                add("gas_valves", Feature(id: .string("GV-\(main.dropFirst(3))\(tag)"),
                                          geometry: point(p.0 + (q.0 - p.0) / len * 10, p.1 + (q.1 - p.1) / len * 10), properties: [
                    "main": .string(main), "near_node": .string(node), "diameter_mm": .integer(Int64(dn)), "status": "常开",
                ]))
            }
        }
        endValves("GM-T01", [(gx, gy), (rx, ry)], from: "GN-S01", to: "GN-R01", dn: 300)
        endValves("GM-F01", [(rx, ry), (x(col: 0) + 4, y(row: mid) + 4)], from: "GN-R01", to: gasNodeID(0, mid), dn: 315)
        endValves("GM-F02", [(rx, ry), (rx + 40, y(row: r2) + 4), (x(col: 0) + 4, y(row: r2) + 4)], from: "GN-R01", to: gasNodeID(0, r2), dn: 315)
        for (k, s) in roads.enumerated() {
            let a = (x(col: s.from.col) + 4, y(row: s.from.row) + 4), b = (x(col: s.to.col) + 4, y(row: s.to.row) + 4)
            let trunk = s.roadClass == "主干路" || s.roadClass == "次干路"
            let dn = s.roadClass == "主干路" ? 250 : (s.roadClass == "次干路" ? 200 : 110)
            let id = "GM-" + padded(k + 1, 4)
            addMain(id, [a, b], dn: dn, pressure: trunk ? "中压A" : "中压B", from: gasNodeID(s.from.col, s.from.row),
                    to: gasNodeID(s.to.col, s.to.row))
            let len = length([a, b])
            let (ux, uy) = ((b.0 - a.0) / len, (b.1 - a.1) / len)
            add("gas_valves", Feature(id: .string("GV-" + padded(k + 1, 4)), geometry: point(a.0 + ux * 10, a.1 + uy * 10), properties: [
                "main": .string(id), "near_node": .string(gasNodeID(s.from.col, s.from.row)),
                "diameter_mm": .integer(Int64(dn)), "status": "常开",
            ]))
        }
        for (i, b) in buildings.enumerated() {
            let s = roads[b.road]
            let towardNorth = y(row: s.from.row) > b.cy
            let type = b.residential ? "居民" : (b.use == "工业" ? "工业" : "商业")
            let holder = b.residential ? rng.pick(Self.surnames) + rng.pick(Self.givenNames) : b.name
            add("gas_customers", Feature(id: .string("GC-" + padded(i + 1, 5)),
                                         geometry: point(b.cx + b.width / 4, towardNorth ? b.cy + b.depth / 2 : b.cy - b.depth / 2), properties: [
                "account_no": .string("ZCQ" + padded(i + 1, 8)), "address_code": .string(b.addressCode),
                "main": .string("GM-" + padded(b.road + 1, 4)), "customer_type": .string(type),
                "account_holder": .string(holder), "phone": .string(syntheticPhone()),
            ]))
        }
    }
}
