import Foundation
import GeoCore

/// Standard addresses from OpenStreetMap's `addr:*` (issue 52 §3): one 门牌 (door plate) per object
/// with `addr:housenumber` and `addr:street` (or `addr:place`), hanging from one 街路巷 (street)
/// record per street name, placed at its first door plate. A door plate is named
/// `<street><number>号` when the number is all digits (the form the geocoder reads), else
/// `<street><number>`; `full_address` adds `addr:postcode` and `addr:city` when tagged. Codes are
/// `OSM<street 5 digits><door 5 digits>`, in the order of the extract. The same street, number and
/// postcode twice (a node inside the building that also carries it) is one address: the later object
/// cites the first. Status 在用 (OpenStreetMap holds addresses in use); no `valid_from` is invented.
public struct AddressDraft: Sendable {
    /// Street records first, then door plates.
    public var features: [Feature] = []
    /// The door-plate code of every object that carries an address (a duplicate: the first's).
    public var codes: [String: String] = [:]
    public var report: [String: Int] = [:]

    /// The properties an address layer built from OpenStreetMap requires.
    public static let required = ["address_code", "level", "name", "full_address", "status", "is_leaf"]

    public static func build(_ objects: [CityFeatureDraft.Object]) throws -> AddressDraft {
        var draft = AddressDraft()
        var plates: [(street: String, number: String, object: CityFeatureDraft.Object, position: Position)] = []
        var first: [String: String] = [:]
        var duplicates: [(object: String, of: String)] = []
        for o in objects {
            guard let number = o.tags["addr:housenumber"] else { continue }
            guard let street = o.tags["addr:street"] ?? o.tags["addr:place"] else {
                draft.report["addresses: dropped, addr:housenumber without addr:street or addr:place", default: 0] += 1
                continue
            }
            let position: Position
            if case .point(let p) = o.geometry, let at = p.position {
                position = at
            } else if case .point(let p) = try o.geometry.pointOnSurface(), let at = p.position {
                position = at
            } else {
                draft.report["addresses: dropped, no position", default: 0] += 1
                continue
            }
            let key = "\(street)\u{1F}\(number)\u{1F}\(o.tags["addr:postcode"] ?? "")"
            if let earlier = first[key] {
                duplicates.append((o.id, earlier))
                draft.report["addresses: one address tagged twice (a node and its building), kept once", default: 0] += 1
                continue
            }
            first[key] = o.id
            plates.append((street, number, o, position))
        }
        let streets = Array(Set(plates.map(\.street))).sorted()
        let streetCode = Dictionary(uniqueKeysWithValues: streets.enumerated().map { ($1, "OSM" + Self.padded($0 + 1)) })
        var doorCount: [String: Int] = [:]
        var firstPlace: [String: Position] = [:]
        var doors: [Feature] = []
        for (street, number, o, p) in plates {
            let parent = streetCode[street]!
            doorCount[parent, default: 0] += 1
            let code = parent + Self.padded(doorCount[parent]!)
            draft.codes[o.id] = code
            if firstPlace[street] == nil { firstPlace[street] = p }
            let digits = !number.isEmpty && number.allSatisfy { $0.isASCII && $0.isNumber }
            let place = [o.tags["addr:postcode"], o.tags["addr:city"]].compactMap { $0 }.joined(separator: " ")
            var properties: [String: JSONValue] = [
                "address_code": .string(code), "geocode": .string(Self.geocode(code)), "parent_code": .string(parent),
                "level": "门牌", "name": .string(digits ? "\(street)\(number)号" : "\(street)\(number)"),
                "full_address": .string(place.isEmpty ? "\(street) \(number)" : "\(street) \(number), \(place)"),
                "status": "在用", "is_leaf": true,
            ]
            if let old = o.tags["old_name"] { properties["former_names"] = .array(old.split(separator: ";").map { .string(String($0)) }) }
            doors.append(Feature(id: .string(code), geometry: .point(Point(p)), properties: properties))
        }
        for d in duplicates { draft.codes[d.object] = draft.codes[d.of] }
        for street in streets {
            let code = streetCode[street]!
            draft.features.append(Feature(id: .string(code), geometry: .point(Point(firstPlace[street]!)), properties: [
                "address_code": .string(code), "geocode": .string(Self.geocode(code)), "parent_code": .null,
                "level": "街路巷", "name": .string(street), "full_address": .string(street), "status": "在用", "is_leaf": false,
            ]))
        }
        draft.features += doors
        draft.report["addresses"] = draft.features.count
        draft.report["addresses: street records derived (one per addr:street)"] = streets.count
        return draft
    }

    static func padded(_ n: Int) -> String {
        let s = String(n)
        return String(repeating: "0", count: max(0, 5 - s.count)) + s
    }

    /// The code in the geocode's dashed form: street-door.
    static func geocode(_ code: String) -> String {
        let digits = code.dropFirst(3)
        return digits.count > 5 ? "OSM-\(digits.prefix(5))-\(digits.dropFirst(5))" : "OSM-\(digits)"
    }
}
