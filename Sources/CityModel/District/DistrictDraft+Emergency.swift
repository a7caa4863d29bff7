import GeoCore

extension DistrictDraft {
    /// Local centre of the block reserved for `role`, or of its first building when it has one.
    func rolePosition(_ role: String) -> (Double, Double)? {
        guard let bi = blocks.firstIndex(where: { $0.role == role }) else { return nil }
        if let b = buildings.first(where: { $0.block == bi }) { return (b.cx, b.cy) }
        let b = blocks[bi]
        return (x(col: b.col) + spacing / 2, y(row: b.row) + spacing / 2)
    }

    func buildEmergencyResources() {
        // Shelters: GB 51143 classes; per-capita area and radius are the reference's unverified planning values.
        let classes: [String: (perCapita: Double, radius: Double, level: String)] = [
            "紧急": (0.5, 500, "村(社区)"), "固定短期": (2.0, 1000, "乡镇(街道)"), "固定中期": (3.0, 1500, "乡镇(街道)"),
            "固定长期": (4.5, 2500, "县"), "中心": (4.5, 2500, "县"),
        ]
        var shelters: [(String, String, (Double, Double), Double)] = []
        let named: [(String, String, String, Double)] = [
            ("stadium", "邾城体育场中心避难场所", "中心", 42_000), ("plaza", "问津广场应急避难场所", "固定长期", 18_000),
            ("park-0", "紫薇公园应急避难场所", "固定中期", 15_000), ("school-0", "邾城第一中学避难场所", "固定短期", 9_000),
            ("park-1", "将军山公园应急避难场所", "固定短期", 12_000), ("school-1", "问津小学避难场所", "紧急", 4_000),
        ]
        for (role, name, cls, area) in named {
            if let p = rolePosition(role) { shelters.append((name, cls, p, area)) }
        }
        for (i, b) in blocks.enumerated() where b.use == .green && b.role == nil {
            shelters.append(("\(communities[b.community].name)应急避难点\(chineseNumeral(i % 9 + 1))", "紧急",
                             (x(col: b.col) + 100, y(row: b.row) + 100), rng.uniform(3000, 8000).rounded()))
        }
        for (i, s) in shelters.enumerated() {
            guard let c = classes[s.1] else { continue }
            add("shelters", Feature(id: .string("SH-" + padded(i + 1, 3)), geometry: point(s.2.0, s.2.1), properties: [
                "name": .string(s.0), "class": .string(s.1), "admin_level": .string(c.level),
                "effective_area_m2": .number(s.3), "per_capita_m2": .number(c.perCapita),
                "capacity": .integer(Int64(s.3 / c.perCapita)), "service_radius_m": .number(c.radius),
                "contact_phone": .string("027-8921" + padded(rng.integer(0...9999), 4)),
            ]))
        }
        let fire: [(String, String, Double, Int, Int)] = [
            ("fire-0", "一级", 7, 8, 45), ("fire-1", "二级", 4, 5, 30), ("fire-2", "小型", 2, 2, 15),
        ]
        for (i, f) in fire.enumerated() {
            guard let p = rolePosition(f.0), let name = Self.roleNames[f.0]?.0 else { continue }
            add("fire_stations", Feature(id: .string("FS-" + padded(i + 1, 2)), geometry: point(p.0, p.1), properties: [
                "name": .string(name), "class": .string(f.1), "district_area_km2": .number(f.2),
                "engines": .integer(Int64(f.3)), "personnel": .integer(Int64(f.4)),
            ]))
        }
        let hospitals: [(String, String, Int)] = [("hospital-0", "二级甲等", 800), ("hospital-1", "二级甲等", 400), ("hospital-2", "二级", 200)]
        for (i, h) in hospitals.enumerated() {
            guard let p = rolePosition(h.0), let name = Self.roleNames[h.0]?.0 else { continue }
            add("hospitals", Feature(id: .string("HO-" + padded(i + 1, 2)), geometry: point(p.0, p.1), properties: [
                "name": .string(name), "grade": .string(h.1), "beds": .integer(Int64(h.2)), "emergency_department": .bool(i < 2),
            ]))
        }
        func stock(_ items: [(String, String, Int)]) -> JSONValue {
            .array(items.map { .object(["item": .string($0.0), "unit": .string($0.1), "quantity": .integer(Int64($0.2))]) })
        }
        if let p = rolePosition("warehouse-0") {
            add("warehouses", Feature(id: .string("WH-01"), geometry: point(p.0, p.1), properties: [
                "name": "新洲区防汛物资仓库", "category": "防汛抗旱", "floor_area_m2": 2400.0,
                "stock": stock([("编织袋", "条", 50_000), ("救生衣", "件", 800), ("冲锋舟", "艘", 6), ("移动排涝泵", "台", 10),
                                ("砂石料", "立方米", 2000), ("应急照明灯", "套", 60)]),
            ]))
        }
        if let p = rolePosition("warehouse-1") {
            add("warehouses", Feature(id: .string("WH-02"), geometry: point(p.0, p.1), properties: [
                "name": "新洲区应急物资储备库", "category": "生活救助", "floor_area_m2": 1800.0,
                "stock": stock([("帐篷", "顶", 500), ("棉被", "床", 3000), ("折叠床", "张", 1000), ("饮用水", "箱", 2000)]),
            ]))
        }
        let teams: [(String, String, Int, [String], String)] = [
            ("新洲区防汛抢险突击队", "防汛抗旱", 60, ["冲锋舟", "移动排涝泵", "编织袋"], "warehouse-0"),
            ("邾城街道防汛应急分队", "防汛抗旱", 30, ["抽水泵", "发电机"], "government"),
            ("邾城消防救援站特勤班", "消防救援", 25, ["抢险救援车", "破拆工具组"], "fire-0"),
            ("新洲区地质灾害应急队", "地质灾害治理", 20, ["无人机", "位移监测仪"], "government"),
            ("新洲区核与辐射应急监测分队", "核灾救灾", 12, ["辐射巡测仪", "防护服"], "hospital-0"),
        ]
        for (i, t) in teams.enumerated() {
            guard let p = rolePosition(t.4) else { continue }
            let base = Self.roleNames[t.4]?.0 ?? t.4
            add("rescue_teams", Feature(id: .string("RT-" + padded(i + 1, 2)), geometry: point(p.0 + 15, p.1 + 15), properties: [
                "name": .string(t.0), "category": .string(t.1), "members": .integer(Int64(t.2)),
                "equipment": .array(t.3.map { .string($0) }), "base": .string(base),
            ]))
        }
    }
}
