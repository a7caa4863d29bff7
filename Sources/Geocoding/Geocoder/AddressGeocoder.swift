import Foundation
import GeoCore

/// Matches Chinese address strings to standard address records (forward geocoding) and points to
/// the nearest door plate or building (reverse geocoding), over the `addresses` layer's tree.
///
/// Built once from the records (O(n) names, plus a symmetric-deletion index for typos and an
/// STRtree of door plates and buildings); immutable and `Sendable` afterwards, so batch jobs share
/// one instance between threads. Matching goes level by level — road and door number, then the
/// place names (区县, 街道, 社区, 院落, named buildings, with aliases and 曾用名), then 栋/单元/层/室
/// under the door plate — and stops at the deepest level it can decide without guessing: an
/// ambiguous or contradictory string gives a coarser match or none, never a wrong record.
public struct AddressGeocoder: Sendable {
    struct ChildKey: Hashable, Sendable {
        var parent: Int32
        var name: String
    }

    struct DoorKey: Hashable, Sendable {
        var road: String
        var number: Int
    }

    struct Plate: Sendable {
        var number: Int
        var record: Int32
    }

    /// The records the geocoder was built from, in input order.
    public let records: [AddressRecord]
    let parents: [Int32]
    let children: [[Int32]]
    let childByName: [ChildKey: Int32]
    /// 区县, 街道, 社区/村, 街路巷, 院落 and named 楼栋 names (and aliases, former names) → records;
    /// `-1` for words that carry no constraint (湖北省, 武汉市).
    let places: NameLexicon<Int32>
    /// Road names (current and former) → canonical normalised road name.
    let roads: NameLexicon<String>
    /// Door plates by (canonical road, number).
    let doors: [DoorKey: [Int32]]
    /// 街路巷 records by canonical road name.
    let streetsByRoad: [String: [Int32]]
    /// The 街路巷 record of a whole road (one hanging above the 社区 level: a road crossing
    /// communities), by canonical road name; a road's own name answers it.
    let wholeRoads: [String: Int32]
    /// Door plates in use by canonical road, ordered by number (for interpolating a missing number).
    let platesByRoad: [String: [Plate]]
    /// Door plates and buildings in use, in equirectangular coordinates (lon·cos φ₀, lat) degrees.
    let reverseIndex: STRtree<Int32>
    let cosLatitude: Double

    /// Builds the geocoder from the features of the `addresses` layer.
    /// - Throws: `GeometryError` `.invalidArgument` naming a feature with a missing field, an
    ///   unknown level, a duplicate code or a parent that does not exist.
    public init(features: [Feature]) throws {
        try self.init(records: features.map(AddressRecord.init(feature:)))
    }

    /// Builds the geocoder from standard address records.
    /// - Throws: `AddressDataError` on a duplicate code or a dangling parent code.
    public init(records: [AddressRecord]) throws {
        self.records = records
        var indexOf: [String: Int32] = [:]
        indexOf.reserveCapacity(records.count)
        for (i, r) in records.enumerated() {
            if indexOf[r.code] != nil {
                throw AddressDataError(record: "record \(i)", field: "address_code", "duplicate address code \(r.code)")
            }
            indexOf[r.code] = Int32(i)
        }
        var parents = [Int32](repeating: -1, count: records.count)
        var children = [[Int32]](repeating: [], count: records.count)
        var childByName: [ChildKey: Int32] = [:]
        var places = NameLexicon<Int32>()
        var roads = NameLexicon<String>()
        var doors: [DoorKey: [Int32]] = [:]
        var streetsByRoad: [String: [Int32]] = [:]
        var wholeRoads: [String: Int32] = [:]
        var platesByRoad: [String: [Plate]] = [:]
        var aliases: [String: Set<Int32>] = [:]
        var reverseItems: [(Envelope, Int32)] = []
        let latitudes = records.lazy.map(\.position.y).filter(\.isFinite)
        let meanLatitude = latitudes.isEmpty ? 0 : latitudes.reduce(0, +) / Double(latitudes.count)
        let cosLatitude = cos(meanLatitude * .pi / 180)

        for (i, r) in records.enumerated() {
            let index = Int32(i)
            if let p = r.parentCode {
                guard let parent = indexOf[p] else {
                    throw AddressDataError(record: "record \(i)", field: "parent_code", "address \(r.code) names parent \(p), which does not exist")
                }
                parents[i] = parent
                children[Int(parent)].append(index)
                let key = ChildKey(parent: parent, name: AddressText.normalized(r.name))
                // Keep the record in use when a retired sibling had the same name.
                if let other = childByName[key], records[Int(other)].inUse || !r.inUse { } else { childByName[key] = index }
            }
            let name = AddressText.normalizedScalars(r.name)
            switch r.level {
            case .county, .subdistrict, .community, .yard:
                places.add(name, index)
                for former in r.formerNames { places.add(AddressText.normalizedScalars(former), index) }
                if let alias = Self.alias(of: name, level: r.level) { aliases[NameLexicon<Int32>.string(alias[...]), default: []].insert(index) }
            case .street:
                let road = NameLexicon<Int32>.string(name[...])
                places.add(name, index)
                roads.add(name, road)
                streetsByRoad[road, default: []].append(index)
                if let p = r.parentCode, let parent = indexOf[p], records[Int(parent)].level.depth < AddressLevel.community.depth,
                   r.inUse || wholeRoads[road] == nil {
                    wholeRoads[road] = index
                }
                for former in r.formerNames {
                    places.add(AddressText.normalizedScalars(former), index)
                    roads.add(AddressText.normalizedScalars(former), road)
                }
            case .doorPlate:
                if let (road, number) = Self.doorParts(name) {
                    let key = NameLexicon<Int32>.string(road[...])
                    roads.add(road, key)
                    doors[DoorKey(road: key, number: number), default: []].append(index)
                    if r.inUse && r.position.isFinite { platesByRoad[key, default: []].append(Plate(number: number, record: index)) }
                }
            case .building:
                if !Self.isNumbered(name, word: "栋") { places.add(name, index) }
            default:
                break
            }
            if r.inUse && (r.level == .doorPlate || r.level == .building) && r.position.isFinite {
                let x = r.position.x * cosLatitude, y = r.position.y
                reverseItems.append((Envelope(minX: x, minY: y, maxX: x, maxY: y), index))
            }
        }
        // Aliases (新洲, 邾城, 问津) only when they name one level and no full name.
        for (alias, targets) in aliases where places.values(alias).isEmpty {
            let levels = Set(targets.map { records[Int($0)].level })
            guard levels.count == 1 else { continue }
            for t in targets { places.add(Array(alias.unicodeScalars), t) }
        }
        for word in ["湖北省", "湖北", "武汉市", "武汉", "中国"] where places.values(word).isEmpty {
            places.add(Array(word.unicodeScalars), -1)
        }
        self.parents = parents
        self.children = children
        self.childByName = childByName
        self.places = places
        self.roads = roads
        self.doors = doors
        self.streetsByRoad = streetsByRoad
        self.wholeRoads = wholeRoads
        self.platesByRoad = platesByRoad.mapValues { $0.sorted { ($0.number, $0.record) < ($1.number, $1.record) } }
        self.reverseIndex = STRtree(reverseItems)
        self.cosLatitude = cosLatitude
    }

    /// The record with `code`, if any (linear in the number of records; for tests and tools).
    public func record(code: String) -> AddressRecord? { records.first { $0.code == code } }

    // MARK: name rules

    /// The short form people write: 新洲区 → 新洲, 邾城街道 → 邾城, 问津社区 → 问津, 李集村 → 李集.
    static func alias(of name: [Unicode.Scalar], level: AddressLevel) -> [Unicode.Scalar]? {
        let suffixes: [String]
        switch level {
        case .county: suffixes = ["区", "县", "市"]
        case .subdistrict: suffixes = ["街道办事处", "街道", "镇", "乡"]
        case .community: suffixes = ["社区", "村"]
        default: return nil
        }
        for s in suffixes {
            let w = Array(s.unicodeScalars)
            if name.count >= w.count + 2 && Array(name.suffix(w.count)) == w { return Array(name.dropLast(w.count)) }
        }
        return nil
    }

    /// Splits a normalised door-plate name `沿江大道12号` into its road and number.
    static func doorParts(_ name: [Unicode.Scalar]) -> ([Unicode.Scalar], Int)? {
        guard name.last == "号" else { return nil }
        var i = name.count - 1
        var number = 0, scale = 1
        while i > 0, AddressText.isDigit(name[i - 1]) {
            number += Int(name[i - 1].value - 0x30) * scale
            scale *= 10
            i -= 1
            if scale > 100_000_000 { return nil }
        }
        guard scale > 1, i > 0 else { return nil }
        return (Array(name[..<i]), number)
    }

    /// Whether a normalised name is `digits + word` (`3栋`).
    static func isNumbered(_ name: [Unicode.Scalar], word: String) -> Bool {
        let w = Array(word.unicodeScalars)
        guard name.count > w.count, Array(name.suffix(w.count)) == w else { return false }
        return name.dropLast(w.count).allSatisfy(AddressText.isDigit)
    }

    // MARK: tree helpers

    func level(_ i: Int32) -> AddressLevel { records[Int(i)].level }

    /// Whether `ancestor` is `node` or one of its ancestors.
    func isAncestor(_ ancestor: Int32, of node: Int32) -> Bool {
        var n = node
        let depth = level(ancestor).depth
        while n >= 0 {
            if n == ancestor { return true }
            if level(n).depth <= depth { return false }
            n = parents[Int(n)]
        }
        return false
    }

    /// The deepest common ancestor of `nodes` (the root when they share nothing else).
    func commonAncestor(_ nodes: [Int32]) -> Int32? {
        guard var a = nodes.first else { return nil }
        for b in nodes.dropFirst() {
            while a >= 0 && !isAncestor(a, of: b) { a = parents[Int(a)] }
            if a < 0 { return nil }
        }
        return a
    }

    func child(_ parent: Int32, named name: String) -> Int32? { childByName[ChildKey(parent: parent, name: name)] }

    /// The only child of `parent` at `level`, if exactly one exists.
    func onlyChild(_ parent: Int32, level: AddressLevel) -> Int32? {
        var found: Int32?
        for c in children[Int(parent)] where self.level(c) == level {
            if found != nil { return nil }
            found = c
        }
        return found
    }

    /// The standard components of a record: its own and its ancestors' names by level.
    func components(of node: Int32) -> AddressComponents {
        var c = AddressComponents()
        var n = node
        while n >= 0 {
            let r = records[Int(n)]
            switch r.level {
            case .county: c.county = r.name
            case .subdistrict: c.subdistrict = r.name
            case .community: c.community = r.name
            case .street: c.street = r.name
            case .yard: c.yard = r.name
            case .doorPlate: c.doorPlate = r.name
            case .building: c.building = r.name
            case .unit: c.unit = r.name
            case .floor: c.floor = r.name
            case .room: c.room = r.name
            }
            n = parents[Int(n)]
        }
        return c
    }
}
