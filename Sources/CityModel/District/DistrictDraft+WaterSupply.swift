import GeoCore

extension DistrictDraft {
    static let surnames = ["张", "王", "李", "刘", "陈", "杨", "黄", "赵", "周", "吴", "徐", "孙", "胡", "朱", "高", "林", "何", "郭", "马", "罗"]
    static let givenNames = ["伟", "芳", "娜", "敏", "静", "强", "磊", "军", "洋", "勇", "艳", "杰", "娟", "涛", "明", "超", "秀英", "建华", "志刚", "春梅", "海燕", "国强"]

    func waterNodeID(_ c: Int, _ r: Int) -> String { "WN-" + padded(r * columns + c + 1, 4) }

    /// A synthetic mobile number (not a real subscriber: the sample data are synthetic by rule).
    func syntheticPhone() -> String { "139" + padded(rng.integer(0...99_999_999), 8) }

    func buildWaterSupply() {
        let mid = rows / 2
        let zone = { (r: Int) in r < mid ? "邾城低区" : "邾城高区" }
        var demand = [Double](repeating: 0, count: columns * rows)
        for b in buildings {
            let s = roads[b.road]
            let floorArea = b.width * b.depth * Double(b.floors)
            demand[s.from.row * columns + s.from.col] += floorArea * 0.012 / 86.4   // 12 L/(m²·d) → L/s
        }
        let px = gridX0 - 180, py = y(row: mid)
        add("water_nodes", Feature(id: .string("WN-S01"), geometry: point(px, py), properties: [
            "node_type": "水源", "name": "邾城水厂", "elevation_m": .number(round2(ground(px, py))),
            "base_demand_ls": 0.0, "pressure_zone": "邾城低区",
        ]))
        for r in 0..<rows {
            for c in 0..<columns {
                add("water_nodes", Feature(id: .string(waterNodeID(c, r)), geometry: point(x(col: c), y(row: r)), properties: [
                    "node_type": "节点", "name": .string("\(columnName(c))与\(rowName(r))交叉口"),
                    "elevation_m": .number(round2(ground(x(col: c), y(row: r)))),
                    "base_demand_ls": .number(round3(demand[r * columns + c])), "pressure_zone": .string(zone(r)),
                ]))
            }
        }
        func addMain(_ id: String, _ pts: [(Double, Double)], dn: Int, from: String, to: String, zone: String) {
            add("water_mains", Feature(id: .string(id), geometry: line(pts), properties: [
                "diameter_mm": .integer(Int64(dn)), "material": .string(dn >= 300 ? "球墨铸铁" : "PE"),
                "pressure_zone": .string(zone), "from_node": .string(from), "to_node": .string(to),
                "length_m": .number(round2(length(pts))), "hazen_williams_c": .number(dn >= 300 ? 130 : 140),
            ]))
        }
        for (k, s) in roads.enumerated() {
            let a = (x(col: s.from.col), y(row: s.from.row)), b = (x(col: s.to.col), y(row: s.to.row))
            let dn = s.roadClass == "主干路" ? 600 : (s.roadClass == "次干路" ? 400 : 200)
            let id = "WM-" + padded(k + 1, 4)
            addMain(id, [a, b], dn: dn, from: waterNodeID(s.from.col, s.from.row), to: waterNodeID(s.to.col, s.to.row),
                    zone: zone(s.from.row))
            let len = length([a, b])
            let (ux, uy) = ((b.0 - a.0) / len, (b.1 - a.1) / len)
            add("water_valves", Feature(id: .string("WV-" + padded(k + 1, 4)), geometry: point(a.0 + ux * 12, a.1 + uy * 12), properties: [
                "main": .string(id), "near_node": .string(waterNodeID(s.from.col, s.from.row)),
                "diameter_mm": .integer(Int64(dn)), "status": "常开",
            ]))
            let hx = (a.0 + b.0) / 2 - uy * 9, hy = (a.1 + b.1) / 2 + ux * 9
            add("hydrants", Feature(id: .string("HY-" + padded(k + 1, 4)), geometry: point(hx, hy), properties: [
                "main": .string(id), "kind": .string(rng.chance(0.8) ? "地上式" : "地下式"), "outlet_mm": 100,
                "status": .string(rng.chance(0.95) ? "完好" : "待维修"), "road": .string(s.name),
            ]))
        }
        // Two DN800 feeder mains from the plant, so the network stays fed if one is cut.
        addMain("WM-F01", [(px, py), (x(col: 0), py)], dn: 800, from: "WN-S01", to: waterNodeID(0, mid), zone: "邾城低区")
        let r2 = max(0, mid - 3)
        addMain("WM-F02", [(px, py), (px + 60, y(row: r2)), (x(col: 0), y(row: r2))], dn: 800, from: "WN-S01",
                to: waterNodeID(0, r2), zone: zone(r2))
        for (i, b) in buildings.enumerated() {
            let s = roads[b.road]
            let towardNorth = y(row: s.from.row) > b.cy
            let type = b.residential ? "居民" : (b.use == "工业" ? "特种" : "非居民")
            let holder = b.residential ? rng.pick(Self.surnames) + rng.pick(Self.givenNames) : b.name
            add("water_connections", Feature(id: .string("WC-" + padded(i + 1, 5)),
                                             geometry: point(b.cx, towardNorth ? b.cy + b.depth / 2 : b.cy - b.depth / 2), properties: [
                "account_no": .string("ZC" + padded(i + 1, 8)), "address_code": .string(b.addressCode),
                "main": .string("WM-" + padded(b.road + 1, 4)), "meter_mm": .integer(b.residential ? 50 : (type == "特种" ? 100 : 80)),
                "customer_type": .string(type), "account_holder": .string(holder), "phone": .string(syntheticPhone()),
            ]))
        }
        // Pressure monitoring: one point per 10 km², at least three, at the far ends of the network.
        waterSensorTargets = [waterNodeID(columns - 1, rows - 1), waterNodeID(columns - 1, 0), waterNodeID(columns / 2, rows - 1)]
    }
}
