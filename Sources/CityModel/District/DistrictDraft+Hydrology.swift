import GeoCore

extension DistrictDraft {
    func buildHydrology() {
        let riverPts = stride(from: extent, through: DistrictTerrain.yangtzeBankY, by: -100).map { (terrain.riverCentre(y: $0), $0) }
        // Levee crests (堤顶高程, 1985 datum): the gauges' guarantee level (保证水位) plus a freeboard,
        // 2.0 m on the 长江干堤 (27.3 + 2.0) and 1.5 m on the 举水 levees at 举水邾城站
        // (bed 17.1 + 8.0 + 1.5); the flood model raises the cells along the channels to them.
        add("rivers", Feature(id: .string("RV-01"), geometry: line(riverPts), properties: [
            "name": "举水", "kind": "河流", "flows_to": "长江", "width_m": 90.0, "manning_n": 0.035, "levee_crest_m": 26.6,
        ]))
        add("rivers", Feature(id: .string("RV-02"), geometry: line([(DistrictTerrain.channelX, 4200), (DistrictTerrain.channelX, 960)]), properties: [
            "name": "东港渠", "kind": "港渠", "flows_to": "涨渡湖", "width_m": 18.0, "manning_n": 0.025,
        ]))
        // The 长江 is 1500 m wide and the district holds only its north bank (the terrain's bank at
        // y = 120 m): the centreline lies 750 m south of the bank, outside the district.
        let yangtzeY = DistrictTerrain.yangtzeBankY - 750
        add("rivers", Feature(id: .string("RV-03"), geometry: line([(0, yangtzeY), (extent, yangtzeY)]), properties: [
            "name": "长江", "kind": "河流", "flows_to": "东海", "width_m": 1500.0, "manning_n": 0.03, "levee_crest_m": 29.3,
        ]))
        let lc = DistrictTerrain.lakeCentre, lr = DistrictTerrain.lakeRadii
        add("lakes", Feature(id: .string("LK-01"), geometry: polygon(ellipse(cx: lc.x, cy: lc.y, rx: lr.x, ry: lr.y)), properties: [
            "name": "涨渡湖", "normal_level_m": .number(DistrictTerrain.lakeBottom + 2.2), "warning_level_m": 18.5,
            "area_km2": .number(round3(Double.pi * lr.x * lr.y / 1e6)), "protected": true,
        ]))
        let rc = DistrictTerrain.reservoirCentre, rr = DistrictTerrain.reservoirRadius
        add("reservoirs", Feature(id: .string("RS-01"), geometry: polygon(ellipse(cx: rc.x, cy: rc.y, rx: rr, ry: rr)), properties: [
            "name": "将军山水库", "scale": "小(2)型", "normal_level_m": 41.0, "flood_limit_level_m": 40.5,
            "capacity_10k_m3": .number(round1(Double.pi * rr * rr * 1.5 / 1e4)),
        ]))
        let gauges: [(String, String, Double, Double, Double, Double)] = [
            ("举水邾城上游站", "举水", terrain.riverCentre(y: 4500) + 48, 4500, 6.5, 8.0),
            ("举水邾城站", "举水", terrain.riverCentre(y: 1000) + 48, 1000, 6.5, 8.0),
            ("涨渡湖站", "涨渡湖", lc.x - lr.x + 10, lc.y, 0, 0),
            ("长江邾城站", "长江", 2600, 100, 0, 0),
        ]
        for (i, g) in gauges.enumerated() {
            let bed = g.1 == "举水" ? terrain.riverBed(y: g.3) : 0
            let warning = g.1 == "举水" ? bed + g.4 : (g.1 == "涨渡湖" ? 18.5 : 25.0)
            let guarantee = g.1 == "举水" ? bed + g.5 : (g.1 == "涨渡湖" ? 19.3 : 27.3)
            let device = "IOT-SW-" + padded(i + 1, 2)
            let id = "GA-" + padded(i + 1, 2)
            add("river_gauges", Feature(id: .string(id), geometry: point(g.2, g.3), properties: [
                "name": .string(g.0), "water_body": .string(g.1), "datum": "1985国家高程基准",
                "warning_level_m": .number(round2(warning)), "guarantee_level_m": .number(round2(guarantee)),
                "device": .string(device),
            ]))
            gaugeDevices.append((id, device, g.2, g.3, warning))
        }
    }

    func buildLandUse() {
        func manningN(_ cls: String) -> Double {
            switch cls {
            case "居住用地": 0.08
            case "商业服务业用地", "公共管理与公共服务用地": 0.06
            case "工业用地", "绿地与广场用地": 0.05
            case "耕地": 0.035
            case "林地": 0.10
            case "陆地水域": 0.03
            default: 0.016
            }
        }
        func addUse(_ id: String, _ cls: String, _ imp: Double, _ g: Geometry, _ areaM2: Double) {
            add("land_use", Feature(id: .string(id), geometry: g, properties: [
                "class": .string(cls), "imperviousness_pct": .number(imp), "manning_n": .number(manningN(cls)),
                "area_ha": .number(round2(areaM2 / 1e4)),
            ]))
        }
        for (i, b) in blocks.enumerated() {
            addUse("LU-" + padded(i + 1, 4), b.use.rawValue, b.use.imperviousness * 100,
                   rectangle(x(col: b.col), y(row: b.row), x(col: b.col + 1), y(row: b.row + 1)), spacing * spacing)
        }
        let top = y(row: rows - 1), right = x(col: columns - 1)
        var k = blocks.count
        func rural(_ cls: String, _ imp: Double, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) {
            guard x1 > x0, y1 > y0 else { return }
            k += 1
            addUse("LU-" + padded(k, 4), cls, imp, rectangle(x0, y0, x1, y1), (x1 - x0) * (y1 - y0))
        }
        rural("林地", 2, gridX0, top, DistrictTerrain.channelX - 30, extent)
        rural("耕地", 3, 600, 400, gridX0, extent)
        rural("耕地", 3, right, 1000, DistrictTerrain.channelX - 30, top)
        rural("耕地", 3, gridX0, 400, right, gridY0)
        let lc = DistrictTerrain.lakeCentre, lr = DistrictTerrain.lakeRadii
        k += 1
        addUse("LU-" + padded(k, 4), "陆地水域", 0, polygon(ellipse(cx: lc.x, cy: lc.y, rx: lr.x, ry: lr.y)), Double.pi * lr.x * lr.y)
        let left = stride(from: extent, through: DistrictTerrain.yangtzeBankY, by: -100).map { (terrain.riverCentre(y: $0) - 45, $0) }
        let rightBank = stride(from: DistrictTerrain.yangtzeBankY, through: extent, by: 100).map { (terrain.riverCentre(y: $0) + 45, $0) }
        k += 1
        addUse("LU-" + padded(k, 4), "陆地水域", 0, polygon(left + rightBank), 90 * (extent - DistrictTerrain.yangtzeBankY))
    }
}
