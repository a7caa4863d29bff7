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
    struct DoorKey: Hashable, Sendable {
        var road: String
        var number: Int
    }

    struct Plate: Sendable {
        var number: Int
        var record: Int32
    }

    /// The records, in columns (`AddressTable`).
    let table: AddressTable
    /// Each record's children: `childList[childStart[i]..<childStart[i + 1]]`, ordered by the hash
    /// of their normalised name (`nameHashes`), so a child is found by name with a binary search.
    let childStart: [Int32]
    let childList: [Int32]
    let nameHashes: [UInt32]
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

    /// The records the geocoder was built from, in input order (each read from the columns when asked for).
    public var records: Records { Records(table: table) }

    /// The number of standard address records.
    public var count: Int { table.count }

    /// Bytes the index holds in memory (its arrays' capacity, the name dictionaries estimated), for
    /// the memory bound (`AddressGeocoders.memoryLimit`) and the server's metrics.
    public var memoryBytes: Int {
        table.memoryBytes + 4 * (childStart.capacity + childList.capacity + nameHashes.capacity)
            + places.memoryBytes + roads.memoryBytes + 64 * (doors.count + streetsByRoad.count + wholeRoads.count + platesByRoad.count)
            + 48 * reverseIndex.count
    }

    /// The standard address records of a geocoder, read from its columns.
    public struct Records: RandomAccessCollection, Sendable {
        let table: AddressTable
        public var startIndex: Int { 0 }
        public var endIndex: Int { table.count }
        public subscript(i: Int) -> AddressRecord { table.record(Int32(i)) }
    }

    /// Builds a geocoder from records streamed into it (a layer read a page at a time), holding
    /// only the compact columns: never the features nor an array of `AddressRecord`.
    public struct Builder: Sendable {
        var table = AddressTable()
        /// Records whose parent came after them, with the parent's code.
        var unlinked: [(record: Int32, parentCode: String)] = []

        public init() {}

        /// The records appended so far.
        public var count: Int { table.count }

        /// Bytes the columns hold so far.
        public var memoryBytes: Int { table.memoryBytes }

        /// Appends a standard address record.
        /// - Throws: `AddressDataError` on a duplicate code.
        public mutating func append(_ record: AddressRecord) throws {
            let i = table.count
            if let parent = try table.append(record, record: "record \(i)") { unlinked.append((Int32(i), parent)) }
        }

        /// Appends a feature of the `addresses` layer.
        /// - Throws: `AddressDataError` naming the feature and the missing or malformed field, or a
        ///   duplicate code; `GeometryError` when the feature has no point.
        public mutating func append(feature: Feature) throws {
            try append(AddressRecord(feature: feature))
        }

        /// The geocoder over the records appended.
        /// - Throws: `AddressDataError` on a parent code that names no record.
        public func build() throws -> AddressGeocoder {
            var table = table
            for (i, parentCode) in unlinked where !table.link(i, parentCode: parentCode) {
                throw AddressDataError(record: "record \(i)", field: "parent_code",
                                       "address \(table.code(i)) names parent \(parentCode), which does not exist")
            }
            table.shrink()
            return AddressGeocoder(table: table)
        }
    }

    /// Builds the geocoder from the features of the `addresses` layer.
    /// - Throws: `GeometryError` `.invalidArgument` naming a feature with a missing field, an
    ///   unknown level, a duplicate code or a parent that does not exist.
    public init(features: [Feature]) throws {
        var builder = Builder()
        for f in features { try builder.append(feature: f) }
        self = try builder.build()
    }

    /// Builds the geocoder from standard address records.
    /// - Throws: `AddressDataError` on a duplicate code or a dangling parent code.
    public init(records: [AddressRecord]) throws {
        var builder = Builder()
        for r in records { try builder.append(r) }
        self = try builder.build()
    }

    /// Indexes the records' names, door plates and points.
    init(table: AddressTable) {
        self.table = table
        let n = table.count
        var places = NameLexicon<Int32>()
        var roads = NameLexicon<String>()
        var doors: [DoorKey: [Int32]] = [:]
        var streetsByRoad: [String: [Int32]] = [:]
        var wholeRoads: [String: Int32] = [:]
        var platesByRoad: [String: [Plate]] = [:]
        var aliases: [String: Set<Int32>] = [:]
        var reverseItems: [(Envelope, Int32)] = []
        var nameHashes = [UInt32](repeating: 0, count: n)
        var latitudeSum = 0.0, latitudes = 0
        for i in 0..<Int32(n) where table.position(i).y.isFinite {
            latitudeSum += table.position(i).y
            latitudes += 1
        }
        let cosLatitude = cos((latitudes == 0 ? 0 : latitudeSum / Double(latitudes)) * .pi / 180)

        for index in 0..<Int32(n) {
            let level = table.level(index), inUse = table.inUse(index), position = table.position(index)
            let rawName = table.name(index)
            let name = AddressText.normalizedScalars(rawName)
            nameHashes[Int(index)] = Self.nameHash(NameLexicon<Int32>.string(name[...]))
            switch level {
            case .county, .subdistrict, .community, .yard:
                places.add(name, index)
                for former in table.formerNames(index) { places.add(AddressText.normalizedScalars(former), index) }
                if let alias = Self.alias(of: name, level: level) { aliases[NameLexicon<Int32>.string(alias[...]), default: []].insert(index) }
            case .street:
                let road = NameLexicon<Int32>.string(name[...])
                places.add(name, index)
                roads.add(name, road)
                streetsByRoad[road, default: []].append(index)
                let parent = table.parent(index)
                if parent >= 0, table.level(parent).depth < AddressLevel.community.depth, inUse || wholeRoads[road] == nil {
                    wholeRoads[road] = index
                }
                for former in table.formerNames(index) {
                    places.add(AddressText.normalizedScalars(former), index)
                    roads.add(AddressText.normalizedScalars(former), road)
                }
            case .doorPlate:
                if let (road, number) = Self.doorParts(name) {
                    // One string per road, shared by its plates' keys.
                    let text = NameLexicon<Int32>.string(road[...])
                    let key = roads.values(text).first { $0 == text } ?? text
                    roads.add(road, key)
                    doors[DoorKey(road: key, number: number), default: []].append(index)
                    if inUse && position.isFinite { platesByRoad[key, default: []].append(Plate(number: number, record: index)) }
                }
            case .building:
                if !Self.isNumbered(name, word: "栋") { places.add(name, index) }
            default:
                break
            }
            if inUse && (level == .doorPlate || level == .building) && position.isFinite {
                let x = position.x * cosLatitude, y = position.y
                reverseItems.append((Envelope(minX: x, minY: y, maxX: x, maxY: y), index))
            }
        }
        // Aliases (新洲, 邾城, 问津) only when they name one level and no full name.
        for (alias, targets) in aliases where places.values(alias).isEmpty {
            let levels = Set(targets.map { table.level($0) })
            guard levels.count == 1 else { continue }
            for t in targets { places.add(Array(alias.unicodeScalars), t) }
        }
        for word in ["湖北省", "湖北", "武汉市", "武汉", "中国"] where places.values(word).isEmpty {
            places.add(Array(word.unicodeScalars), -1)
        }

        // Children in one array, each record's run ordered by (name hash, record number).
        var childStart = [Int32](repeating: 0, count: n + 1)
        for i in 0..<n where table.parents[i] >= 0 { childStart[Int(table.parents[i]) + 1] += 1 }
        for i in 0..<n { childStart[i + 1] += childStart[i] }
        var childList = [Int32](repeating: 0, count: Int(childStart[n]))
        var fill = childStart
        for i in 0..<n where table.parents[i] >= 0 {
            let p = Int(table.parents[i])
            childList[Int(fill[p])] = Int32(i)
            fill[p] += 1
        }
        childList.withUnsafeMutableBufferPointer { list in
            for p in 0..<n where childStart[p + 1] - childStart[p] > 1 {
                var run = UnsafeMutableBufferPointer(rebasing: list[Int(childStart[p])..<Int(childStart[p + 1])])
                run.sort { (nameHashes[Int($0)], $0) < (nameHashes[Int($1)], $1) }
            }
        }

        self.childStart = childStart
        self.childList = childList
        self.nameHashes = nameHashes
        self.places = places
        self.roads = roads
        self.doors = doors
        self.streetsByRoad = streetsByRoad
        self.wholeRoads = wholeRoads
        self.platesByRoad = platesByRoad.mapValues { $0.sorted { ($0.number, $0.record) < ($1.number, $1.record) } }
        self.reverseIndex = STRtree(reverseItems)
        self.cosLatitude = cosLatitude
    }

    static func nameHash(_ normalized: String) -> UInt32 { UInt32(truncatingIfNeeded: normalized.hashValue) }

    /// The record with `code`, if any (a hash lookup).
    public func record(code: String) -> AddressRecord? { table.index(code: code).map(table.record) }

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

    func level(_ i: Int32) -> AddressLevel { table.level(i) }

    /// The record numbered `i`, as answered.
    func record(_ i: Int32) -> AddressRecord { table.record(i) }

    /// The children of `parent`.
    func children(_ parent: Int32) -> ArraySlice<Int32> { childList[Int(childStart[Int(parent)])..<Int(childStart[Int(parent) + 1])] }

    /// Whether `ancestor` is `node` or one of its ancestors.
    func isAncestor(_ ancestor: Int32, of node: Int32) -> Bool {
        var n = node
        let depth = level(ancestor).depth
        while n >= 0 {
            if n == ancestor { return true }
            if level(n).depth <= depth { return false }
            n = table.parent(n)
        }
        return false
    }

    /// The deepest common ancestor of `nodes` (the root when they share nothing else).
    func commonAncestor(_ nodes: [Int32]) -> Int32? {
        guard var a = nodes.first else { return nil }
        for b in nodes.dropFirst() {
            while a >= 0 && !isAncestor(a, of: b) { a = table.parent(a) }
            if a < 0 { return nil }
        }
        return a
    }

    /// The child of `parent` whose normalised name is `name` (the one in use when a retired sibling
    /// has the same name; else the first).
    func child(_ parent: Int32, named name: String) -> Int32? {
        let run = children(parent)
        let hash = Self.nameHash(name)
        var lo = run.startIndex, hi = run.endIndex
        while lo < hi {
            let mid = (lo + hi) / 2
            if nameHashes[Int(run[mid])] < hash { lo = mid + 1 } else { hi = mid }
        }
        var first: Int32?
        while lo < run.endIndex, nameHashes[Int(run[lo])] == hash {
            let c = run[lo]
            lo += 1
            guard AddressText.normalized(table.name(c)) == name else { continue }
            if table.inUse(c) { return c }
            if first == nil { first = c }
        }
        return first
    }

    /// The only child of `parent` at `level`, if exactly one exists.
    func onlyChild(_ parent: Int32, level: AddressLevel) -> Int32? {
        var found: Int32?
        for c in children(parent) where self.level(c) == level {
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
            let name = table.name(n)
            switch table.level(n) {
            case .county: c.county = name
            case .subdistrict: c.subdistrict = name
            case .community: c.community = name
            case .street: c.street = name
            case .yard: c.yard = name
            case .doorPlate: c.doorPlate = name
            case .building: c.building = name
            case .unit: c.unit = name
            case .floor: c.floor = name
            case .room: c.room = name
            }
            n = table.parent(n)
        }
        return c
    }
}
