import GeoCore
import TwinStore

/// The buildings a hazard area touches, with their standard address codes (楼栋), and the
/// addresses and people that belong to them. An address belongs to a building when one code
/// extends the other: the 门牌 above a 楼栋, the 单元 and 户室 below it (`AddressBook`'s codes
/// are a strict tree). Counting by building keeps addresses and people consistent with the
/// buildings count when the area has holes at the buildings, as a flood depth layer does.
struct AffectedBuildings {
    /// Building ids, in the store's order.
    let ids: [String]
    /// Their address codes (楼栋), without repeats.
    let codes: Set<String>
    /// Every prefix of every code (for "this address is above a building").
    private let prefixes: Set<String>
    /// The lengths of the codes (for "this address is below a building").
    private let lengths: Set<Int>

    init(ids: [String], codes: Set<String>) {
        self.ids = ids
        self.codes = codes
        var prefixes = Set<String>()
        for code in codes {
            for n in 1...max(1, code.count) { prefixes.insert(String(code.prefix(n))) }
        }
        self.prefixes = prefixes
        self.lengths = Set(codes.map(\.count))
    }

    /// The buildings `filter` selects (none when `caller` may not read `buildings`).
    static func load(_ filter: FilterExpression, from store: any FeatureStore, by caller: Caller) async throws -> AffectedBuildings {
        guard try await store.layerDefinition("buildings", for: caller) != nil else { return AffectedBuildings(ids: [], codes: []) }
        var ids: [String] = [], codes = Set<String>()
        for try await f in store.stream(layer: "buildings", FeatureQuery(filter: filter, properties: ["address_code"], limit: 5000), by: caller) {
            ids.append(f.id?.description ?? "")
            if let code = f.properties["address_code"]?.stringValue, !code.isEmpty { codes.insert(code) }
        }
        return AffectedBuildings(ids: ids, codes: codes)
    }

    /// Whether `code` is a building's code, above one (its prefix) or below one (extends it).
    func owns(_ code: String) -> Bool {
        if prefixes.contains(code) { return true }
        return lengths.contains { $0 < code.count && codes.contains(String(code.prefix($0))) }
    }

    /// Ids of the addresses `filter` selects that belong to these buildings, leaving out `known`.
    func addresses(_ filter: FilterExpression, from store: any FeatureStore, by caller: Caller,
                   besides known: Set<String>) async throws -> [String] {
        guard !codes.isEmpty, try await store.layerDefinition("addresses", for: caller) != nil else { return [] }
        var out: [String] = []
        for try await f in store.stream(layer: "addresses", FeatureQuery(filter: filter, properties: ["address_code"], limit: 5000), by: caller) {
            guard let id = f.id?.description, !known.contains(id), let code = f.properties["address_code"]?.stringValue, owns(code) else { continue }
            out.append(id)
        }
        return out
    }

    /// The households of these buildings, plus those whose point is in `area` outside them.
    func population(within area: Geometry, from store: any FeatureStore, by caller: Caller) async throws -> HouseholdPopulation {
        let everyone = try await HouseholdPopulation.load(from: store, by: caller)
        let inside = try await HouseholdPopulation.load(from: store, by: caller, within: area)
        var households: [(code: String, residents: Double)] = []
        var seen = Set<String>()
        for (code, residents) in zip(everyone.codes, everyone.residents) where owns(code) {
            households.append((code, residents))
            seen.insert(code)
        }
        for (code, residents) in zip(inside.codes, inside.residents) where !seen.contains(code) {
            households.append((code, residents))
        }
        return HouseholdPopulation(source: everyone.source, households: households)
    }
}
