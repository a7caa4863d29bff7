import Foundation
import GeoCore

/// The fire-rescue one map's layers (消防救援一张图, issue 54): key fire-safety units, high-rise
/// residences, old residential compounds with their fire lanes and the violations found on them,
/// 十小场所, fire water sources, and the hydrants' pressure class. Drawn from `fireRNG`, so every
/// layer generated before them stays as it was.
extension DistrictDraft {
    /// A Beijing-time timestamp `minutes` after 2026-05-01T00:00+08:00 (May and June 2026 only: the
    /// month before the district's "now", 2026-06-17, the day before its sensors' last readings).
    static func mayJune2026(minutes: Int) -> String {
        let day = minutes / 1440, m = minutes % 1440
        let (month, date) = day < 31 ? (5, day + 1) : (6, day - 30)
        return "\(isoDate(2026, month, date))T\(padded(m / 60, 2)):\(padded(m % 60, 2)):00+08:00"
    }

    func buildFireRescue() {
        buildCornerHydrants()
        layers["hydrants"] = layers["hydrants"]?.map { h in
            var h = h
            h.properties["pressure_class"] = .string(fireRNG.chance(0.94) ? "低压" : "临时高压")
            return h
        }
        buildHighRiseResidences()
        buildKeyUnits()
        let lanes = buildOldCompoundsAndLanes()
        buildLaneViolations(lanes)
        buildSmallVenues()
        buildFireWaterSources()
        buildHydrantPressureMeters()
    }

    /// Pressure meters on the hydrants at the arterial junctions (消火栓压力计, MPa) in the IoT
    /// register: the Things a gateway registers name them (`iot_device`) and their readings decide
    /// whether the hydrant counts as working (GB 50974 §7.2.8: at least 0.10 MPa).
    private func buildHydrantPressureMeters() {
        var n = 0
        for h in layers["hydrants"] ?? [] {
            guard case .string(let id)? = h.id, id.hasPrefix("HY-J"), let k = Int(id.dropFirst(4)) else { continue }
            let c = (k - 1) % columns, r = (k - 1) / columns
            guard isArterialColumn(c), isArterialRow(r) else { continue }
            n += 1
            add("iot_devices", Feature(id: .string("IOT-XH-" + padded(n, 2)), geometry: h.geometry, properties: [
                "name": .string("\(columnName(c))\(rowName(r))消火栓压力计"), "kind": "压力计", "quantity": "消火栓压力", "unit": "MPa",
                "target_layer": "hydrants", "target": .string(id), "status": "在线",
            ]))
        }
    }

    /// A hydrant at most junctions (6 m east of the north–south street, 10 m north of the east–west one: nearer the first, no tie), so that with the one at each
    /// street's middle most streets meet GB 50974's 120 m spacing; the junctions left without one
    /// are the district's real spacing gaps.
    private func buildCornerHydrants() {
        for r in 0..<rows {
            for c in 0..<columns where fireRNG.chance(0.9) {
                let road = horizontalRoad(col: min(c, columns - 2), row: r)
                add("hydrants", Feature(id: .string("HY-J" + padded(r * columns + c + 1, 4)), geometry: point(x(col: c) + 6, y(row: r) + 10), properties: [
                    "main": .string("WM-" + padded(road + 1, 4)), "kind": .string(fireRNG.chance(0.8) ? "地上式" : "地下式"),
                    "outlet_mm": 100, "status": .string(fireRNG.chance(0.96) ? "完好" : "待维修"), "road": .string(rowName(r)),
                ]))
            }
        }
    }

    private func footprint(_ b: BuildingDraft) -> Geometry {
        rectangle(b.cx - b.width / 2, b.cy - b.depth / 2, b.cx + b.width / 2, b.cy + b.depth / 2)
    }

    /// Storey height the buildings layer uses for `b` (3 m homes, 6 m industry, 4 m others).
    private func height(_ b: BuildingDraft) -> Double {
        round1(Double(b.floors) * (b.residential ? 3.0 : (b.use == "工业" ? 6.0 : 4.0)))
    }

    /// Residences over 27 m (GB 50016-2014 §2.1.1): fire elevators over 33 m (§7.3.1), sprinklers
    /// required over 100 m and common from 54 m (一类高层住宅), wet standpipes as a rule.
    private func buildHighRiseResidences() {
        for b in buildings where b.residential && height(b) > 27 {
            let h = height(b)
            add("high_rise_residences", Feature(id: .string("HR-" + b.id.dropFirst(4)), geometry: footprint(b), properties: [
                "name": .string(b.name), "building": .string(b.id), "address_code": .string(b.addressCode),
                "height_m": .number(h), "floors": .integer(Int64(b.floors)),
                "fire_elevator": .bool(h > 33 || fireRNG.chance(0.3)),
                "standpipe": .string(fireRNG.chance(0.9) ? "湿式" : "干式"),
                "sprinklers": .bool(h > 54 || fireRNG.chance(0.2)), "refuge_floor": .bool(h > 100),
            ]))
        }
    }

    private func buildKeyUnits() {
        var n = 0
        for b in buildings where !b.residential {
            let role = blocks[b.block].role ?? ""
            let kind: (String, String)?
            switch true {
            case role.hasPrefix("hospital"): kind = ("医疗机构", "一级")
            case role.hasPrefix("school"): kind = ("学校", "一级")
            case role == "government": kind = ("政府机关", "三级")
            case role.hasPrefix("warehouse"): kind = ("仓储物流", "二级")
            case b.use == "工业": kind = fireRNG.chance(0.2) ? ("易燃易爆单位", "一级") : nil
            case (b.use == "商业" || b.use == "办公") && height(b) > 24: kind = ("高层公共建筑", "二级")
            case b.use == "商业": kind = fireRNG.chance(0.35) ? ("商场市场", "二级") : nil
            default: kind = nil
            }
            guard let (type, risk) = kind else { continue }
            n += 1
            let area = b.width * b.depth * Double(b.floors)
            add("fire_key_units", Feature(id: .string("KU-" + padded(n, 3)), geometry: point(b.cx, b.cy), properties: [
                "name": .string(b.name), "unit_type": .string(type), "risk_class": .string(risk),
                "building": .string(b.id), "address_code": .string(b.addressCode),
                "occupants": .integer(Int64((area / (type == "仓储物流" || type == "易燃易爆单位" ? 200 : 12)).rounded())),
                "fire_safety_manager": .string(fireRNG.pick(Self.surnames) + fireRNG.pick(Self.givenNames)),
                "contact_phone": .string("139" + padded(fireRNG.integer(0...99_999_999), 8)),
                "last_inspection": .string(isoDate(2026, fireRNG.integer(1...5), fireRNG.integer(1...28))),
            ]))
        }
    }

    /// Residential blocks built before 2000 are 老旧小区; each has one fire lane between its two
    /// rows of buildings, 3–6 m wide (some under GB 50016's 4 m). Returns the lanes' ids and ends.
    private func buildOldCompoundsAndLanes() -> [(id: String, from: (Double, Double), to: (Double, Double))] {
        var lanes: [(id: String, from: (Double, Double), to: (Double, Double))] = []
        for (bi, block) in blocks.enumerated() where block.use == .residential && block.builtYear < 2000 {
            guard let yard = block.yard else { continue }
            let x0 = x(col: block.col), x1 = x(col: block.col + 1), y0 = y(row: block.row), y1 = y(row: block.row + 1)
            let homes = buildings.filter { $0.block == bi }
            let id = "OC-" + padded(lanes.count + 1, 3)
            add("old_residential_compounds", Feature(id: .string(id), geometry: rectangle(x0 + 12, y0 + 12, x1 - 12, y1 - 12), properties: [
                "name": .string(yard.name), "address_code": .string(yard.code), "built_year": .integer(Int64(block.builtYear)),
                "buildings": .integer(Int64(homes.count)),
                "households": .integer(Int64(homes.reduce(0) { $0 + $1.floors * ($1.floors <= 3 ? 1 : 2) })),
                "renovated": .bool(fireRNG.chance(0.3)),
            ]))
            let lane = "FL-" + padded(lanes.count + 1, 3), my = (y0 + y1) / 2
            let ends = ((x0 + 12, my), (x1 - 40, my))
            add("fire_lanes", Feature(id: .string(lane), geometry: line([ends.0, ends.1]), properties: [
                "name": .string("\(yard.name)消防车通道"), "compound": .string(id),
                "width_m": .number(round1(fireRNG.uniform(3.0, 6.0))), "clear_height_m": .number(round1(fireRNG.uniform(3.6, 5.0))),
                "turning_area": .bool(fireRNG.chance(0.4)),
            ]))
            lanes.append((lane, ends.0, ends.1))
        }
        return lanes
    }

    /// A month of violations found on the lanes: most cleared, some being handled, some open.
    private func buildLaneViolations(_ lanes: [(id: String, from: (Double, Double), to: (Double, Double))]) {
        guard !lanes.isEmpty else { return }
        let end = (31 + 16) * 1440   // 2026-06-17T00:00+08:00 in minutes after 2026-05-01
        let handlers = ["公安局", "城市管理执法委员会", "消防救援大队"]
        for k in 0..<(lanes.count * 2) {
            let lane = fireRNG.pick(lanes), t = fireRNG.uniform(0.1, 0.9)
            let kind = fireRNG.pick(["占用", "占用", "占用", "堵塞", "锁闭", "设置障碍物"])
            let day = fireRNG.integer(0...29), hour = fireRNG.integer(7...22), minute = fireRNG.integer(0...59)
            let observed = end - day * 1440 + hour * 60 + minute
            let u = fireRNG.unit()
            let status = day < 2 && u < 0.5 ? "待处理" : (u < 0.15 ? "处理中" : "已处理")
            let closed = status == "已处理" ? observed + fireRNG.integer(30...1_440) : nil
            add("fire_lane_violations", Feature(id: .string("FV-" + padded(k + 1, 4)), geometry: point(
                lane.from.0 + t * (lane.to.0 - lane.from.0), lane.from.1 + t * (lane.to.1 - lane.from.1)), properties: [
                "lane": .string(lane.id), "kind": .string(kind), "observed_at": .string(Self.mayJune2026(minutes: observed)),
                "status": .string(status), "handled_by": status == "待处理" ? .null : .string(fireRNG.pick(handlers)),
                "reported_by": .string(fireRNG.pick(["巡查", "群众举报", "视频监控"])),
                "plate": kind == "占用" ? .string("鄂A" + String(format: "%05X", fireRNG.integer(0...0xFFFFF))) : .null,
                "closed_at": closed.map { .string(Self.mayJune2026(minutes: $0)) } ?? .null,
            ]))
        }
    }

    /// 十小场所 on the ground floors of shops and offices and at residential compound gates.
    private func buildSmallVenues() {
        let kinds = ["小商店", "小餐饮", "小旅馆", "小歌舞娱乐场所", "小网吧", "小美容洗浴场所", "小生产加工企业", "小医院",
                     "小学校或幼儿园", "小养老院"]
        let weights = [30.0, 25, 6, 3, 4, 8, 6, 5, 6, 7]
        let total = weights.reduce(0, +)
        var n = 0
        for b in buildings where b.use == "商业" || (b.residential && fireRNG.chance(0.06)) {
            for slot in 0..<(b.residential ? 1 : fireRNG.integer(1...3)) {
                var u = fireRNG.uniform(0, total), k = 0
                while u >= weights[k] && k < kinds.count - 1 { u -= weights[k]; k += 1 }
                n += 1
                let dx = (Double(slot) - 1) * b.width / 4
                add("small_venues", Feature(id: .string("XS-" + padded(n, 4)), geometry: point(b.cx + dx, b.cy - b.depth / 2 + 2), properties: [
                    "name": .string("\(b.name)\(kinds[k].dropFirst())\(chineseNumeral(slot + 1))"), "kind": .string(kinds[k]),
                    "address_code": .string(b.addressCode), "floor_area_m2": .number(round1(fireRNG.uniform(30, 280))),
                    "operator_phone": .string("139" + padded(fireRNG.integer(0...99_999_999), 8)),
                    "last_inspection": .string(isoDate(2026, fireRNG.integer(1...6), fireRNG.integer(1...15))),
                ]))
            }
        }
    }

    /// Intakes on the 举水's east bank every kilometre and at 涨渡湖, tanks at flammable-goods
    /// sites, and water cranes at two arterial junctions.
    private func buildFireWaterSources() {
        var n = 0
        func add(_ name: String, _ kind: String, _ p: (Double, Double), water: String?, capacity: Double?, access: Bool, usable: Bool) {
            n += 1
            self.add("fire_water_sources", Feature(id: .string("WS-" + padded(n, 2)), geometry: point(p.0, p.1), properties: [
                "name": .string(name), "kind": .string(kind), "water_body": water.map { .string($0) } ?? .null,
                "capacity_m3": capacity.map { .number($0) } ?? .null, "vehicle_access": .bool(access),
                "status": .string(usable ? "可用" : "不可用"),
            ]))
        }
        for (i, y) in stride(from: 900.0, through: 4400, by: 1000).enumerated() {
            add("举水\(chineseNumeral(i + 1))号取水点", "天然水源取水点", (terrain.riverCentre(y: y) + 48, y), water: "举水", capacity: nil,
                access: i != 2 || fireRNG.chance(0.5), usable: true)
        }
        let lake = DistrictTerrain.lakeCentre, radii = DistrictTerrain.lakeRadii
        add("涨渡湖取水点", "天然水源取水点", (lake.x - radii.x - 6, lake.y), water: "涨渡湖", capacity: nil, access: true, usable: true)
        for unit in layers["fire_key_units"] ?? [] where unit.properties["unit_type"] == "易燃易爆单位" || unit.properties["unit_type"] == "仓储物流" {
            guard let b = buildings.first(where: { .string($0.id) == unit.properties["building"] }) else { continue }
            add("\(b.name)消防水池", "消防水池", (b.cx + b.width / 2 + 8, b.cy), water: nil,
                capacity: fireRNG.uniform(300, 600).rounded(), access: true, usable: fireRNG.chance(0.9))
        }
        for (c, r) in [(4, 5), (12, 10)] where c < columns && r < rows {
            add("\(columnName(c))\(rowName(r))消防水鹤", "消防水鹤", (x(col: c) + 14, y(row: r) + 14), water: nil, capacity: nil,
                access: true, usable: true)
        }
    }
}
