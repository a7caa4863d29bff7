import GeoCore

/// One district of the sample city: the district at `column`, `row` of an `count` × `count` tiling
/// (`citytwin district build --scale N`). The tile at (0, 0) is the sample district exactly, with its
/// ids, names and codes; tile k = row · count + column > 0 lies `k`'s column × 5 km east and row × 5 km
/// north of it, is generated from its own seed, and carries its own ids (`D007-RD-0001`), admin
/// codes (province 49, unassigned, so no real code is ever hit: `490007…`) and names (新洲七区,
/// 邾七城街道). Neighbouring districts are joined by connecting roads between their street grids;
/// each district keeps its own drainage network to its own river.
public struct DistrictTile: Sendable, Hashable, CustomStringConvertible {
    public let column: Int
    public let row: Int
    /// Districts per side of the tiling.
    public let count: Int

    /// The single sample district.
    public static let single = DistrictTile(column: 0, row: 0, count: 1)

    /// The largest tiling side `--scale` accepts: 32 × 32 districts (≈ 60 M features).
    public static let maximumCount = 32

    public init(column: Int, row: Int, count: Int) {
        precondition(count >= 1 && count <= Self.maximumCount && (0..<count).contains(column) && (0..<count).contains(row),
                     "tile (\(column), \(row)) outside a \(count) × \(count) tiling")
        self.column = column
        self.row = row
        self.count = count
    }

    /// Every tile of an `count` × `count` tiling, row by row from the south-west.
    public static func tiling(_ count: Int) -> [DistrictTile] {
        (0..<count).flatMap { row in (0..<count).map { DistrictTile(column: $0, row: row, count: count) } }
    }

    /// The tile's number: row · count + column (0 is the sample district).
    public var index: Int { row * count + column }

    public var description: String { "district \(index + 1) of \(count * count) (column \(column + 1), row \(row + 1))" }

    /// The generator seed of the tile: the city's seed for tile 0, a distinct one for each other.
    func seed(city seed: UInt64) -> UInt64 { index == 0 ? seed : seed &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15 }

    /// The 6-digit county code of the tile (420117, 新洲区, for tile 0).
    var countyCode: String { index == 0 ? "420117" : "49" + padded(index, 4) }
    /// The district's name (新洲区 for tile 0).
    var districtName: String { index == 0 ? "新洲区" : "新洲\(Self.numeral(index))区" }
    /// The town's name, which street, community and facility names are built on (邾城 for tile 0).
    var townName: String { index == 0 ? "邾城" : "邾\(Self.numeral(index))城" }
    /// A name of the sample district as the tile's own: its district and town names in place of 新洲区 and 邾城.
    func rename(_ text: String) -> String {
        index == 0 ? text : Self.replacing("邾城", with: townName, in: Self.replacing("新洲区", with: districtName, in: text))
    }

    /// `text` with every occurrence of `pattern` replaced, matched as UTF-8 bytes (a whole
    /// character sequence matches only at character boundaries: UTF-8 is self-synchronising);
    /// `text` itself when there is none. Every string of every feature of a 100-district city
    /// passes here, so no bridging to NSString (Foundation's `replacingOccurrences` had been a
    /// seventh of a 9-district build).
    static func replacing(_ pattern: String, with replacement: String, in text: String) -> String {
        var text = text
        let p = Array(pattern.utf8)
        guard let first = p.first else { return text }
        let replaced: [UInt8]? = text.withUTF8 { bytes in
            var out: [UInt8]?
            var copied = 0, i = 0
            while i + p.count <= bytes.count {
                if bytes[i] == first, bytes[i..<(i + p.count)].elementsEqual(p) {
                    if out == nil { out = []; out!.reserveCapacity(bytes.count + 16) }
                    out!.append(contentsOf: bytes[copied..<i])
                    out!.append(contentsOf: replacement.utf8)
                    i += p.count
                    copied = i
                } else {
                    i += 1
                }
            }
            out?.append(contentsOf: bytes[copied...])
            return out
        }
        return replaced.map { String(decoding: $0, as: UTF8.self) } ?? text
    }
    /// Prefix of every id of the tile that is not an admin code ("" for tile 0).
    var idPrefix: String { index == 0 ? "" : "D" + padded(index, 3) + "-" }

    /// Chinese numerals up to 9999 (tile numbers): 七, 十二, 一百零五, 一百一十, 一千零二十.
    static func numeral(_ n: Int) -> String {
        if n < 100 { return chineseNumeral(n) }
        let digits = ["零", "一", "二", "三", "四", "五", "六", "七", "八", "九"], units = ["千", "百", "十", ""]
        var text = "", gap = false
        for (i, d) in [n / 1000 % 10, n / 100 % 10, n / 10 % 10, n % 10].enumerated() {
            if d == 0 { gap = !text.isEmpty; continue }
            text += (gap ? "零" : "") + digits[d] + units[i]
            gap = false
        }
        return text
    }
}

extension DistrictDraft {
    /// Street-grid rows and columns that continue into the neighbouring districts: two-way local
    /// streets (row ≡ 1 mod 5, column ≡ 2 mod 4), so no signalised junction gains a leg its timing lacks.
    func isSeamRow(_ r: Int) -> Bool { r % 5 == 1 }
    func isSeamColumn(_ c: Int) -> Bool { c % 4 == 2 }

    /// Gives the district its tile's ids, codes and names (nothing for tile 0) and joins it to its
    /// west and south neighbours: connecting roads (次干路) from their street grid's edge to its own,
    /// and one more leg at every intersection a connecting road meets (the east and north ones are
    /// added by the neighbours, which know their own ids the same way). Runs before `reproject()`.
    func placeOnTile(_ tile: DistrictTile) {
        if tile.index > 0 { retag(tile) }
        guard tile.count > 1 else { return }
        var legs: [String: Int] = [:]
        let west = tile.column > 0 ? DistrictTile(column: tile.column - 1, row: tile.row, count: tile.count) : nil
        let south = tile.row > 0 ? DistrictTile(column: tile.column, row: tile.row - 1, count: tile.count) : nil
        for r in 0..<rows where isSeamRow(r) {
            if let west { addSeamRoad(tile, "W\(padded(r, 2))", name: rowName(r), from: (west, columns - 1, r), to: (tile, 0, r)) }
            if west != nil { legs[tile.idPrefix + intersectionID(0, r), default: 0] += 1 }
            if tile.column < tile.count - 1 { legs[tile.idPrefix + intersectionID(columns - 1, r), default: 0] += 1 }
        }
        for c in 0..<columns where isSeamColumn(c) {
            if let south { addSeamRoad(tile, "S\(padded(c, 2))", name: columnName(c), from: (south, c, rows - 1), to: (tile, c, 0)) }
            if south != nil { legs[tile.idPrefix + intersectionID(c, 0), default: 0] += 1 }
            if tile.row < tile.count - 1 { legs[tile.idPrefix + intersectionID(c, rows - 1), default: 0] += 1 }
        }
        layers["intersections"] = layers["intersections"]?.map { f in
            guard case .string(let id)? = f.id, let more = legs[id], case .integer(let n)? = f.properties["legs"] else { return f }
            var f = f
            f.properties["legs"] = .integer(n + Int64(more))
            return f
        }
    }

    /// A connecting road from a grid intersection of `from`'s district to one of `to`'s (this one).
    private func addSeamRoad(_ tile: DistrictTile, _ key: String, name: String,
                             from: (tile: DistrictTile, col: Int, row: Int), to: (tile: DistrictTile, col: Int, row: Int)) {
        func local(_ end: (tile: DistrictTile, col: Int, row: Int)) -> (Double, Double) {
            (x(col: end.col) + Double(end.tile.column - tile.column) * extent, y(row: end.row) + Double(end.tile.row - tile.row) * extent)
        }
        let pts = [local(from), local(to)]
        add("roads", Feature(id: .string(tile.idPrefix + "RD-" + key), geometry: line(pts), properties: [
            "name": .string(tile.rename(name) + "连接线"), "class": "次干路", "lanes": 4, "speed_kmh": 50, "oneway": false,
            "from_intersection": .string(from.tile.idPrefix + intersectionID(from.col, from.row)),
            "to_intersection": .string(to.tile.idPrefix + intersectionID(to.col, to.row)),
            "length_m": .number(round2(length(pts))),
        ]))
    }

    /// Every id, every reference to one, every admin code and every name of the district made the
    /// tile's own: admin codes (ids and values beginning 420117, also after an id's `XX-` prefix)
    /// get the tile's county code, other ids its prefix, and names its district and town names.
    private func retag(_ tile: DistrictTile) {
        let county = Array(tile.countyCode.utf8), prefix = tile.idPrefix
        let sample = Array("420117".utf8), dash = UInt8(ascii: "-")
        // The tile's form of an admin code (or an id whose part after its first dash is one).
        func code(_ text: String) -> String? {
            var text = text
            return text.withUTF8 { s -> String? in
                let renamed: [UInt8]
                if s.starts(with: sample) {
                    renamed = county + s[sample.count...]
                } else if let d = s.firstIndex(of: dash), s[(d + 1)...].starts(with: sample) {
                    renamed = s[...d] + county + s[(d + 1 + sample.count)...]
                } else {
                    return nil
                }
                return String(decoding: renamed, as: UTF8.self)
            }
        }
        var ids: [UTF8Key: String] = [:]
        for features in layers.values {
            for f in features {
                guard case .string(let id)? = f.id else { continue }
                ids[UTF8Key(id)] = code(id) ?? prefix + id
            }
        }
        func value(_ v: JSONValue) -> JSONValue {
            switch v {
            case .string(let s):
                if let renamed = ids[UTF8Key(s)] { return .string(renamed) }
                if let renamed = code(s) { return .string(renamed) }
                return .string(tile.rename(s))
            case .array(let items): return .array(items.map(value))
            case .object(let members): return .object(members.mapValues(value))
            default: return v
            }
        }
        for (layer, features) in layers {
            layers[layer] = features.map { f in
                var f = f
                if case .string(let id)? = f.id { f.id = .string(ids[UTF8Key(id)] ?? id) }
                f.properties = f.properties.mapValues(value)
                return f
            }
        }
    }
}

/// A string hashed and compared as its UTF-8 bytes. Retagging looks up every string value of every
/// feature (most of them Chinese names) among the district's ids; `String`'s own hashing and
/// equality normalise non-ASCII text first, which had made the lookups most of the retagging's time.
/// The generator writes ids and references the same way, so bytes are what must match.
struct UTF8Key: Hashable {
    let text: String
    init(_ text: String) { self.text = text }
    static func == (a: UTF8Key, b: UTF8Key) -> Bool { a.text.utf8.elementsEqual(b.text.utf8) }
    func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
