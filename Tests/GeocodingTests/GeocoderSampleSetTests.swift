@testable import Geocoding
import GeoCore
@testable import CityModel

/// A noisy address string drawn from the sample district, with the code it must match.
struct NoisyAddress {
    var text: String
    /// The deepest existing record the text identifies; `nil` when it identifies nothing.
    var truth: String?
    /// Whether the text names an existing record at its finest level (counts toward recall).
    var matchable: Bool
}

/// Deterministic generator of noisy address strings (SplitMix64, seeded): dropped levels, Chinese
/// and full-width numerals, 栋/幢/号楼/座, 单元/门, 室/户/号 variants, aliases and former names, spaces
/// and punctuation, one typo in a name; and strings that must not match to their finest level
/// (a road or a number that does not exist).
struct GeocoderSampleSet {
    struct Node {
        var code: String
        var parent: String?
        var level: String
        var name: String
        var former: [String]
        var inUse: Bool
    }

    let nodes: [String: Node]
    let children: [String: [String]]
    var rng: SplitMix64

    init(district: SampleDistrict, seed: UInt64) {
        var nodes: [String: Node] = [:]
        var children: [String: [String]] = [:]
        for f in district[layer: "addresses"] {
            let p = f.properties
            let n = Node(code: p["address_code"]?.stringValue ?? "", parent: p["parent_code"]?.stringValue,
                         level: p["level"]?.stringValue ?? "", name: p["name"]?.stringValue ?? "",
                         former: p["former_names"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                         inUse: p["status"]?.stringValue == "在用")
            nodes[n.code] = n
            if let parent = n.parent { children[parent, default: []].append(n.code) }
        }
        self.nodes = nodes
        self.children = children
        rng = SplitMix64(seed: seed)
    }

    func chain(_ code: String) -> [Node] {
        var out: [Node] = []
        var c: String? = code
        while let k = c, let n = nodes[k] { out.append(n); c = n.parent }
        return out.reversed()
    }

    // MARK: noise

    static let typoPool = Array("甲乙丙丁戊己庚辛壬癸")
    static let separators = [" ", "，", "、", "  ", "-", "（", "）", ",", "　"]

    mutating func numeral(_ n: Int) -> String {
        let u = rng.unit()
        if u < 0.25 && n < 100 { return chineseNumeral(n) }
        if u < 0.45 { return String(String(n).unicodeScalars.map { Character(Unicode.Scalar($0.value + 0xFEE0)!) }) }
        return String(n)
    }

    mutating func roomNumeral(_ n: Int) -> String {
        let u = rng.unit()
        if u < 0.2 {
            let digits = Array("零一二三四五六七八九")
            return String(String(n).map { digits[Int(String($0)) ?? 0] })
        }
        if u < 0.4 { return String(String(n).unicodeScalars.map { Character(Unicode.Scalar($0.value + 0xFEE0)!) }) }
        return String(n)
    }

    /// One substituted or deleted character, never a numeral (邾城十二路 → 邾城二路 is another road).
    mutating func typo(_ name: String) -> String {
        var chars = Array(name)
        let numerals = Set("零一二三四五六七八九十百")
        let positions = chars.indices.filter { !numerals.contains(chars[$0]) }
        guard !positions.isEmpty else { return name }
        // Deleting from a three-character name can leave another name (问津苑 → 问津), so only substitute there.
        if chars.count >= 4 && rng.chance(0.4) {
            chars.remove(at: rng.pick(positions))
        } else if chars.count >= 3 {
            chars[rng.pick(positions)] = rng.pick(Self.typoPool)
        }
        return String(chars)
    }

    // MARK: samples

    /// Yards (院落) whose name or former name is `name`, under `scope` (a code prefix).
    func yards(named name: String, under scope: String) -> Int {
        nodes.values.filter { $0.level == "院落" && $0.code.hasPrefix(scope) && ($0.name == name || $0.former.contains(name)) }.count
    }

    /// One sample per call: about 88 % matchable strings, the rest naming something that does not exist.
    mutating func next(targets: [String]) -> NoisyAddress {
        if rng.chance(0.12) { return negative(targets: targets) }
        return positive(rng.pick(targets))
    }

    mutating func positive(_ code: String) -> NoisyAddress {
        let c = chain(code)
        var parts: [String] = []
        var typoBudget = rng.chance(0.3) ? 1 : 0
        let community = c.first { $0.level == "社区/村" }
        let yard = c.first { $0.level == "院落" }
        let street = c.first { $0.level == "街路巷" }
        let door = c.first { $0.level == "门牌" }
        let below = c.filter { ["楼栋", "单元", "楼层", "户室"].contains($0.level) }
        let deepest = c.last?.level ?? ""

        // Which levels to write.
        var keepDoor = door != nil && (yard == nil || rng.chance(0.6))
        var keepYard = yard != nil && (!keepDoor || rng.chance(0.5))
        var keepCommunity = community != nil && rng.chance(0.5)
        if ["社区/村"].contains(deepest) { keepCommunity = true }
        if deepest == "院落" { keepYard = true; keepDoor = false }
        if deepest == "街路巷" { keepCommunity = true }
        if let yard, keepYard, !keepDoor {
            let scope = keepCommunity ? (community?.code ?? "") : "420117"
            if yards(named: yard.name, under: scope) > 1 {
                keepCommunity = true
                if yards(named: yard.name, under: community?.code ?? "") > 1 { keepDoor = deepest != "院落" }
            }
        }
        if keepDoor && deepest == "院落" { keepDoor = false }
        if rng.chance(0.3) { parts.append("湖北省武汉市") }
        if rng.chance(0.5) { parts.append(rng.chance(0.8) ? "新洲区" : "新洲") }
        if rng.chance(0.5) || (!keepCommunity && !keepDoor && !keepYard) { parts.append("邾城街道") }
        if keepCommunity, let community {
            var name = community.name
            if rng.chance(0.2) { name = String(name.dropLast(2)) }
            else if typoBudget > 0 && name.count >= 4 { name = typo(name); typoBudget -= 1 }
            parts.append(name)
        }
        if let street, deepest == "街路巷" || (keepDoor && rng.chance(0.3)) || (!keepDoor && deepest == "街路巷") {
            parts.append(street.name)
        }
        if keepYard, let yard {
            var name = yard.former.isEmpty || rng.chance(0.5) ? yard.name : yard.former[0]
            if name != yard.name && yards(named: name, under: keepCommunity ? community?.code ?? "" : "420117") > 1 {
                name = yard.name
            }
            if typoBudget > 0 && name.count >= 3 { name = typo(name); typoBudget -= 1 }
            parts.append(name)
        }
        if keepDoor, let door {
            let roadName = String(door.name.prefix { !($0.isASCII && $0.isNumber) })
            let number = Int(door.name.filter { $0.isASCII && $0.isNumber }) ?? 0
            var road = roadName
            let renamed = ["新洲大街": "人民大街", "沿江大道": "江堤路"]
            if let old = renamed[road], rng.chance(0.3) { road = old }
            else if typoBudget > 0 && road.count >= 3 && rng.chance(0.7) { road = typo(road); typoBudget -= 1 }
            parts.append(road + numeral(number) + "号")
        }
        for n in below {
            let digits = Int(n.name.prefix { $0.isASCII && $0.isNumber }) ?? -1
            switch n.level {
            case "楼栋":
                if digits < 0 { parts.append(n.name); continue }
                parts.append(numeral(digits) + rng.pick(["栋", "栋", "栋", "幢", "号楼", "座"]))
            case "单元":
                if deepest != "单元" && rng.chance(0.3) { continue }
                parts.append(numeral(digits) + (rng.chance(0.2) ? "门" : "单元"))
            case "楼层":
                if deepest != "楼层" && rng.chance(0.6) { continue }
                parts.append(numeral(digits) + (rng.chance(0.2) ? "楼" : "层"))
            default:
                parts.append(roomNumeral(digits) + rng.pick(["室", "室", "室", "户", "号", ""]))
            }
        }
        return NoisyAddress(text: join(parts), truth: code, matchable: true)
    }

    mutating func negative(targets: [String]) -> NoisyAddress {
        let code = rng.pick(targets)
        let c = chain(code)
        let community = c.first { $0.level == "社区/村" }
        switch rng.integer(0...2) {
        case 0:
            // A road that does not exist.
            let withCommunity = rng.chance(0.5)
            var parts = ["邾城街道"]
            if withCommunity, let community { parts.append(community.name) }
            parts.append(rng.pick(["幸福路", "建设大道", "解放路", "中山大道", "光明街"]) + "\(rng.integer(1...300))号")
            parts.append("\(rng.integer(1...9))栋")
            return NoisyAddress(text: join(parts), truth: withCommunity ? community?.code : "420117001", matchable: false)
        case 1:
            // A building number past the last one at an existing door plate.
            guard let door = c.first(where: { $0.level == "门牌" }) else { return positive(code) }
            return NoisyAddress(text: join(["新洲区", door.name, "\(rng.integer(40...90))栋"]), truth: door.code, matchable: false)
        default:
            // A room that does not exist in an existing unit.
            guard let unit = c.first(where: { $0.level == "单元" }), let door = c.first(where: { $0.level == "门牌" }),
                  let building = c.first(where: { $0.level == "楼栋" }) else { return positive(code) }
            return NoisyAddress(text: join([door.name, building.name, unit.name, "\(rng.integer(20...30))0\(rng.integer(5...9))室"]),
                                truth: unit.code, matchable: false)
        }
    }

    mutating func join(_ parts: [String]) -> String {
        var out = ""
        for p in parts {
            if !out.isEmpty && rng.chance(0.25) { out += rng.pick(Self.separators) }
            out += p
        }
        return out
    }
}
