import Foundation
import GeoCore

extension DistrictDraft {
    /// Parking guidance data: a week of occupancy history for every lot with live detection
    /// (2026-06-11 to 06-17, every 15 minutes 06:00–22:00), the on-street berths with their detectors,
    /// and guidance signs on the arterials listing the nearest lots with what they show at the end of
    /// the week. Drawn from `parkingRNG`, so the layers generated before them do not change.
    func buildParkingGuidance() {
        let lots = layers["parking_lots"] ?? []
        struct Lot { var id: String; var name: String; var kind: String; var capacity: Int; var smart: Bool; var x: Double; var y: Double
            var minX: Double; var maxX: Double; var midY: Double }
        var parsed: [Lot] = []
        for f in lots {
            guard case .string(let id) = f.id, let cap = f.properties["capacity"]?.integerValue, let env = f.geometry?.envelope else { continue }
            parsed.append(Lot(id: id, name: f.properties["name"]?.stringValue ?? id, kind: f.properties["kind"]?.stringValue ?? "公共",
                              capacity: Int(cap), smart: f.properties["smart"]?.boolValue ?? false,
                              x: (env.minX + env.maxX) / 2, y: (env.minY + env.maxY) / 2, minX: env.minX, maxX: env.maxX,
                              midY: (env.minY + env.maxY) / 2))
        }
        func bump(_ h: Double, _ centre: Double, _ width: Double) -> Double { exp(-0.5 * ((h - centre) / width) * ((h - centre) / width)) }
        /// The occupancy rate a lot of `kind` has at hour `h` of a weekday or weekend day.
        func profile(_ kind: String, _ h: Double, weekend: Bool) -> Double {
            switch kind {
            case "营业性": return min(0.97, (0.15 + 0.5 * bump(h, 15, 3) + 0.3 * bump(h, 19.5, 1.5)) * (weekend ? 1.25 : 1))
            case "道路泊位": return 0.25 + 0.55 * bump(h, 11, 3) + 0.35 * bump(h, 17, 2)
            default: return (0.2 + 0.65 * bump(h, 10, 2.5) + 0.25 * bump(h, 15, 2)) * (weekend ? 0.65 : 1)
            }
        }
        func gaussian() -> Double {
            let u1 = max(parkingRNG.unit(), 1e-12), u2 = parkingRNG.unit()
            return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
        }
        var last: [String: Int] = [:]
        var k = 0
        for lot in parsed where lot.smart {
            var noise = 0.0
            for day in 11...17 {
                let weekend = day == 13 || day == 14   // 2026-06-13/14: Saturday, Sunday
                let level = 1 + 0.06 * gaussian()
                for q in 0...64 {
                    let h = 6 + Double(q) / 4
                    noise = 0.8 * noise + 0.025 * gaussian()
                    let rate = min(1, max(0, profile(lot.kind, h, weekend: weekend) * level + noise))
                    let occupied = Int((rate * Double(lot.capacity)).rounded())
                    k += 1
                    add("parking_occupancy", Feature(id: .string("PO-" + padded(k, 6)), geometry: nil, properties: [
                        "lot": .string(lot.id), "observed_at": .string("2026-06-\(day)T\(padded(q / 4 + 6, 2)):\(padded(q % 4 * 15, 2)):00+08:00"),
                        "occupied": .integer(Int64(occupied)), "capacity": .integer(Int64(lot.capacity)), "source": .string("检测器"),
                    ]))
                    last[lot.id] = occupied
                }
            }
        }
        for lot in parsed where lot.kind == "道路泊位" {
            let n = min(lot.capacity, max(1, Int((lot.maxX - lot.minX) / 6)))
            let rate = Double(last[lot.id] ?? 0) / Double(lot.capacity)
            for b in 0..<n {
                var p: [String: JSONValue] = ["lot": .string(lot.id), "berth_no": .integer(Int64(b + 1))]
                if lot.smart {
                    p["detector"] = .string("DT-" + lot.id.dropFirst(3) + "-" + padded(b + 1, 2))
                    p["occupied"] = .bool(parkingRNG.chance(rate))
                }
                add("parking_berths", Feature(id: .string("BW-" + lot.id.dropFirst(3) + "-" + padded(b + 1, 2)),
                                             geometry: .point(Point(Position(x: lot.minX + 3 + Double(b) * 6, y: lot.midY))), properties: p))
            }
        }
        // Signs 60 m before arterial crossings (northbound traffic), each listing the three nearest lots.
        var s = 0
        for (i, sig) in signals.enumerated() where i % 3 == 0 && s < 6 {
            s += 1
            let sx = origin.x + x(col: sig.c), sy = origin.y + y(row: sig.r) - 60
            let near = parsed.sorted { ($0.x - sx) * ($0.x - sx) + ($0.y - sy) * ($0.y - sy) < ($1.x - sx) * ($1.x - sx) + ($1.y - sy) * ($1.y - sy) }
                .prefix(3)
            let content = near.map { lot -> String in
                guard lot.smart, let occupied = last[lot.id] else { return "\(lot.name) --" }
                let free = lot.capacity - occupied
                return free <= 0 ? "\(lot.name) 满" : "\(lot.name) \(free)"
            }.joined(separator: "；")
            add("parking_guidance_signs", Feature(id: .string("PGS-" + padded(s, 2)), geometry: .point(Point(Position(x: sx, y: sy))), properties: [
                "name": .string("\(columnName(sig.c))\(rowName(sig.r))北向停车诱导屏"), "level": .string("二级"),
                "facing_road": .string(columnName(sig.c)), "heading_deg": .number(0), "lots": .array(near.map { .string($0.id) }),
                "content": .string(content), "updated_at": .string("2026-06-17T22:00:00+08:00"),
            ]))
        }
    }
}
