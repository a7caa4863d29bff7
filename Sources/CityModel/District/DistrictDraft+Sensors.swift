import GeoCore

extension DistrictDraft {
    /// IoT devices on gauges, sewers, the water network, a rain gauge and parking lots, plus one day of
    /// hourly readings (2026-06-18, a plum-rain day) for every device that reports a level or pressure.
    func buildSensors() {
        var devices: [(id: String, name: String, kind: String, quantity: String, unit: String, layer: String, target: String,
                       at: Geometry?, base: Double)] = []
        for g in gaugeDevices {
            devices.append((g.device, "\(g.gauge)水位计", "水位计", "水位", "m", "river_gauges", g.gauge, point(g.x + 3, g.y), g.level - 2.5))
        }
        func featurePosition(_ layer: String, _ id: String) -> Geometry? {
            layers[layer]?.first(where: { $0.id == .string(id) })?.geometry
        }
        for (i, m) in drainageSensorTargets.enumerated() {
            devices.append(("IOT-JG-" + padded(i + 1, 2), "\(m)井下液位计", "井盖监测", "井内液位", "m", "drainage_manholes", m,
                            featurePosition("drainage_manholes", m), 0.4))
        }
        for (i, n) in waterSensorTargets.enumerated() {
            devices.append(("IOT-YL-" + padded(i + 1, 2), "\(n)管网压力计", "压力计", "压力", "MPa", "water_nodes", n,
                            featurePosition("water_nodes", n), 0.28))
        }
        devices.append(("IOT-FL-01", "邾城水厂出厂流量计", "流量计", "流量", "m³/h", "water_nodes", "WN-S01",
                        featurePosition("water_nodes", "WN-S01"), 2600))
        devices.append(("IOT-YU-01", "邾城街道雨量计", "雨量计", "小时雨量", "mm", "admin_divisions", Self.streetCode,
                        point(x(col: columns / 2) + 20, y(row: rows / 2) + 20), 0))
        for lot in (layers["parking_lots"] ?? []).prefix(6) {
            guard case .string(let id) = lot.id else { continue }
            var first: Position?
            lot.geometry?.forEachPosition { if first == nil { first = $0 } }
            let at: Geometry? = first.map { .point(Point($0)) }
            devices.append(("IOT-BW-" + id.dropFirst(3), "\(lot.properties["name"]?.stringValue ?? id)泊位检测器", "泊位检测器", "空余泊位", "个",
                            "parking_lots", id, at, Double(lot.properties["capacity"]?.integerValue ?? 0) * 0.3))
        }
        for d in devices {
            add("iot_devices", Feature(id: .string(d.id), geometry: d.at, properties: [
                "name": .string(d.name), "kind": .string(d.kind), "quantity": .string(d.quantity), "unit": .string(d.unit),
                "target_layer": .string(d.layer), "target": .string(d.target), "status": .string(rng.chance(0.95) ? "在线" : "离线"),
            ]))
        }
        var k = 0
        for d in devices where d.kind != "泊位检测器" {
            for h in 0..<24 {
                k += 1
                // A storm passing between 05:00 and 11:00 drives rain, levels and flows.
                let storm = max(0, 1 - abs(Double(h) - 8) / 3)
                let value: Double
                switch d.kind {
                case "雨量计": value = round1(storm * 28 + rng.uniform(0, 0.4))
                case "水位计": value = round2(d.base + storm * 1.8 + rng.uniform(-0.03, 0.03))
                case "井盖监测": value = round2(d.base + storm * 1.1 + rng.uniform(0, 0.05))
                case "压力计": value = round3(d.base - 0.04 * (h >= 7 && h <= 9 ? 1 : 0) + rng.uniform(-0.01, 0.01))
                default: value = round1(d.base * (0.7 + 0.5 * (h >= 6 && h <= 22 ? 1 : 0)) + rng.uniform(-30, 30))
                }
                add("iot_readings", Feature(id: .string("RD-" + padded(k, 5)), geometry: nil, properties: [
                    "device": .string(d.id), "observed_at": .string("2026-06-18T\(padded(h, 2)):00:00+08:00"),
                    "quantity": .string(d.quantity), "value": .number(value), "unit": .string(d.unit),
                ]))
            }
        }
    }
}
