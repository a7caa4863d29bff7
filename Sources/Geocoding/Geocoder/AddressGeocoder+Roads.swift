import Foundation
import GeoCore

/// Roads as standard addresses: a road's own name answers its whole-road 街路巷 record, and a
/// door plate that does not exist falls back to its road, at the number's position along the
/// road when the road's plates allow interpolating it.
extension AddressGeocoder {
    /// The whole-road record when `nodes` are all 街路巷 records of one road (the road and its
    /// sections in several communities): the road answers for its sections.
    func wholeRoad(among nodes: [Int32]) -> Int32? {
        guard nodes.count > 1, nodes.allSatisfy({ level($0) == .street }) else { return nil }
        let names = Set(nodes.map { AddressText.normalized(table.name($0)) })
        guard names.count == 1, let name = names.first, let road = wholeRoads[name], nodes.contains(road) else { return nil }
        return road
    }

    /// The finest level the text names: its 户室 … 楼栋 parts, its door number, else the finest
    /// level any of its place names may stand for.
    func requestedLevel(_ q: AddressQuery, _ spans: [NameSpan]) -> AddressMatchLevel {
        if q.room != nil { return .room }
        if q.floor != nil { return .floor }
        if q.unit != nil { return .unit }
        if q.building != nil { return .building }
        if q.doorNumber != nil { return .doorPlate }
        return spans.flatMap { $0.candidates.filter { $0 >= 0 }.map { level($0).matchLevel } }.max() ?? .county
    }

    /// The fallback of a match at `node` for a text asking for `asked`.
    func fallback(_ node: Int32, asked: AddressMatchLevel, missingDoor: DoorKey?, ambiguous: Bool) -> AddressFallback {
        let r = record(node)
        let found = "\(r.level.matchLevel.rawValue) \(r.name)"
        if let door = missingDoor, level(node) == .street, AddressText.normalized(r.name) == door.road
            || r.formerNames.contains(where: { AddressText.normalized($0) == door.road }) {
            let plate = "门牌 \(r.name)\(door.number)号 does not exist"
            if let (position, lower, upper) = interpolate(door) {
                return AddressFallback(requested: asked, reason: "\(plate): answered \(found) at the number's position interpolated "
                                       + "between its plates \(lower)号 and \(upper)号", position: position)
            }
            return AddressFallback(requested: asked, reason: "\(plate): answered \(found) at the road's point (\(whyNotInterpolated(door)))")
        }
        if ambiguous {
            return AddressFallback(requested: asked, reason: "the text fits several \(asked.rawValue) records: answered \(found), which holds them all")
        }
        return AddressFallback(requested: asked, reason: "no \(asked.rawValue) of the text exists: answered \(found), the nearest level that does")
    }

    /// Plates of `road` in local metres along it: (number, x, y) in equirectangular metres.
    private func platePoints(_ road: String) -> [(number: Int, x: Double, y: Double)] {
        let metres = 6_371_008.8 * .pi / 180
        return (platesByRoad[road] ?? []).map { p in
            let at = table.position(p.record)
            return (p.number, at.x * cosLatitude * metres, at.y * metres)
        }
    }

    /// Whether the road's plates, in number order, never step back along the line from its
    /// lowest to its highest number (1 m tolerance): only then does a number have a place between two plates.
    private func platesRunInOrder(_ points: [(number: Int, x: Double, y: Double)]) -> Bool {
        guard let first = points.first, let last = points.last, points.count >= 2 else { return false }
        let dx = last.x - first.x, dy = last.y - first.y, length = hypot(dx, dy)
        guard length > 1 else { return false }
        var reached = -Double.infinity
        for p in points {
            let t = ((p.x - first.x) * dx + (p.y - first.y) * dy) / length
            if t < reached - 1 { return false }
            reached = max(reached, t)
        }
        return true
    }

    /// The position of a missing door number between the road's plates around it (those on the
    /// same side, i.e. of the same parity, when there are some on both sides of the number).
    func interpolate(_ door: DoorKey) -> (Position, lower: Int, upper: Int)? {
        let points = platePoints(door.road)
        guard platesRunInOrder(points), let first = points.first, let last = points.last,
              first.number < door.number, door.number < last.number else { return nil }
        func around(_ list: [(number: Int, x: Double, y: Double)]) -> (Int, Int)? {
            guard let lower = list.lastIndex(where: { $0.number < door.number }),
                  let upper = list.firstIndex(where: { $0.number > door.number }) else { return nil }
            return (lower, upper)
        }
        let sameSide = points.filter { $0.number % 2 == door.number % 2 }
        let list = around(sameSide) != nil ? sameSide : points
        guard let (i, j) = around(list) else { return nil }
        let a = list[i], b = list[j]
        let f = Double(door.number - a.number) / Double(b.number - a.number)
        let metres = 6_371_008.8 * .pi / 180
        let x = (a.x + f * (b.x - a.x)) / (cosLatitude * metres), y = (a.y + f * (b.y - a.y)) / metres
        return (Position(x: x, y: y), a.number, b.number)
    }

    private func whyNotInterpolated(_ door: DoorKey) -> String {
        let points = platePoints(door.road)
        guard let first = points.first, let last = points.last, points.count >= 2 else { return "the road has too few plates to interpolate" }
        if door.number < first.number || door.number > last.number {
            return "\(door.number) is outside its plates' numbers \(first.number)–\(last.number)"
        }
        return "its plates' numbers do not run in order along it"
    }
}
