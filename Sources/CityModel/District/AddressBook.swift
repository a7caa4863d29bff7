import GeoCore

/// Collects the standard-address tree while the district is generated and turns it into features.
///
/// Codes are DB42/T 2175-style: each child's `address_code` extends its parent's, so the tree is
/// strict by construction. The segment lengths are the project's choice (the standard's own code
/// lengths were not available, see `Layers/README.md`): 区县 6 digits, 乡镇街道 9, 社区/村 12,
/// 街路巷 (1xxx) or 院落 (2xxx) +4, 门牌 +4, 楼栋 +3, 单元 +2, 楼层 +3, 户室 +4 (32 digits).
/// The `geocode` is GB/T 39609-style: 行政区划(12)-街巷院落(4)-建筑门楼(7)-单元户室(9), zero-filled.
struct AddressBook {
    struct Record {
        let code: String
        let parent: String?
        let level: String
        let name: String
        let fullAddress: String
        let position: Position
        let validFrom: String
        let validTo: String?
        let formerNames: [String]
    }

    private(set) var records: [Record] = []
    private var fullAddress: [String: String] = [:]
    private var childCount: [String: Int] = [:]
    /// 街路巷 names by code.
    private var streetNames: [String: String] = [:]
    /// 户室 records still in use, for the population layer.
    private(set) var households: [Record] = []

    mutating func add(code: String, parent: String?, level: String, name: String, prefix: String = "",
                      at position: Position, validFrom: String, validTo: String? = nil, formerNames: [String] = []) {
        // A 门牌 under its road's 街路巷 carries the road in its own name (邾城七路26号): the full
        // address names the road once (…邾城社区邾城七路26号, not …邾城七路邾城七路26号).
        let road = parent.flatMap { streetNames[$0] }.flatMap { name.hasPrefix($0) ? $0 : nil }
        let full = (parent.flatMap { fullAddress[$0] } ?? prefix) + name.dropFirst(road?.count ?? 0)
        fullAddress[code] = full
        if level == "街路巷" { streetNames[code] = name }
        if let parent { childCount[parent, default: 0] += 1 }
        let r = Record(code: code, parent: parent, level: level, name: name, fullAddress: full, position: position,
                       validFrom: validFrom, validTo: validTo, formerNames: formerNames)
        records.append(r)
        if level == "户室" && validTo == nil { households.append(r) }
    }

    static func geocode(_ code: String) -> String {
        let digits = Array(code)
        func part(_ from: Int, _ to: Int) -> String {
            String((from..<to).map { $0 < digits.count ? digits[$0] : "0" })
        }
        return part(0, 12) + "-" + part(12, 16) + "-" + part(16, 23) + "-" + part(23, 32)
    }

    func features() -> [Feature] {
        records.map { r in
            Feature(id: .string(r.code), geometry: .point(Point(r.position)), properties: [
                "address_code": .string(r.code), "geocode": .string(Self.geocode(r.code)),
                "parent_code": r.parent.map { .string($0) } ?? .null, "level": .string(r.level), "name": .string(r.name),
                "full_address": .string(r.fullAddress), "former_names": .array(r.formerNames.map { .string($0) }),
                "valid_from": .string(r.validFrom), "valid_to": r.validTo.map { .string($0) } ?? .null,
                "status": .string(r.validTo == nil ? "在用" : "停用"), "is_leaf": .bool(childCount[r.code] == nil),
            ])
        }
    }
}
