import GeoCore
import TwinStore

/// The `lid_facilities` layer (海绵设施, `Layers/lid_facilities.json`): a sponge-city plan's LID
/// facilities as features planners edit like any layer, each in one plan (`plan`), read into
/// `LIDFacility` values for `SWMMModel.withLIDFacilities(_:)`.
public enum LIDFacilityLayer {
    public static let id = "lid_facilities"
    /// What a run names for "no plan": the model without LID facilities.
    public static let basePlan = "base"

    /// The layer's Chinese type names, by SWMM kind (the layer's `type` enum).
    public static let typeNames: [LIDFacility.Kind: String] = [
        .bioRetention: "生物滞留设施", .rainGarden: "雨水花园", .greenRoof: "绿色屋顶", .infiltrationTrench: "渗透沟/渗渠",
        .permeablePavement: "透水铺装", .rainBarrel: "雨水罐", .rooftopDisconnection: "屋顶断接", .vegetativeSwale: "植草沟",
    ]
    /// The named parameter sets a feature may give as `preset`.
    public static let presets = ["swmm-typical"]

    /// One facility of a plan with what it costs.
    public struct PlannedFacility: Sendable, Hashable {
        public var facility: LIDFacility
        public var name: String
        /// 元: `total_cost_yuan`, else area × `unit_cost_yuan_m2`, else 0 (`costed` false).
        public var totalCostYuan: Double
        public var costed: Bool
        public var areaSquareMetres: Double
    }

    /// A feature of the layer as a facility.
    /// - Throws: `SpongeInputError` naming the feature and the field (`lid_facilities LID-3.type`).
    public static func facility(_ f: Feature) throws -> PlannedFacility {
        let fid = f.id.map { "\($0)" } ?? ""
        func fail(_ field: String, _ why: String) -> SpongeInputError { SpongeInputError("\(id) \(fid).\(field)", why) }
        func number(_ key: String) -> Double? { f.properties[key]?.doubleValue }
        guard let typeName = f.properties["type"]?.stringValue,
              let kind = typeNames.first(where: { $0.value == typeName })?.key else {
            throw fail("type", "one of \(LIDFacility.Kind.allCases.compactMap { typeNames[$0] }.joined(separator: ", ")), got \(f.properties["type"].map { "\($0)" } ?? "nothing")")
        }
        guard let sub = f.properties["subcatchment"]?.stringValue, !sub.isEmpty else { throw fail("subcatchment", "the subcatchment the facility serves is required") }
        guard let area = number("area_m2"), area > 0, area.isFinite else { throw fail("area_m2", "the facility's area is more than 0 m²") }
        let units = Int(number("units") ?? 1)
        guard units >= 1 else { throw fail("units", "at least 1 unit, got \(units)") }
        guard let fromImperv = number("from_impervious_pct") else { throw fail("from_impervious_pct", "the percent of impervious area treated is required") }
        if let preset = f.properties["preset"]?.stringValue, !presets.contains(preset) {
            throw fail("preset", "no preset '\(preset)'; presets: \(presets.joined(separator: ", "))")
        }
        var layers: [LIDFacility.Layer: [Double]] = [:]
        if let given = f.properties["parameters"] {
            guard let object = given.objectValue else { throw fail("parameters", "an object of SWMM layers (SURFACE, SOIL, …), each an array of numbers") }
            for (key, value) in object {
                guard let layer = LIDFacility.Layer(rawValue: key.uppercased()) else {
                    throw fail("parameters.\(key)", "not an LID layer (\(LIDFacility.Layer.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                guard kind.layers.contains(layer) else {
                    throw fail("parameters.\(key)", "a \(typeName) (\(kind.rawValue)) has the layers \(kind.layers.map(\.rawValue).joined(separator: ", ")), not \(layer.rawValue)")
                }
                guard let values = value.arrayValue?.map(\.doubleValue), !values.contains(nil) else {
                    throw fail("parameters.\(key)", "an array of numbers (\(layer.parameters.joined(separator: ", ")))")
                }
                layers[layer] = values.map { $0! }
            }
        }
        // SWMM names have no spaces: the feature id with any whitespace replaced.
        let controlName = String(fid.map { $0.isWhitespace ? "_" : $0 })
        let facility = LIDFacility(id: controlName, kind: kind, subcatchment: sub, units: units, unitArea: area / Double(units),
                                   width: number("width_m") ?? 0, fromImperviousPercent: fromImperv,
                                   fromPerviousPercent: number("from_pervious_pct") ?? 0,
                                   toPervious: f.properties["to_pervious"]?.boolValue ?? false, layers: layers)
        let total = number("total_cost_yuan") ?? number("unit_cost_yuan_m2").map { $0 * area }
        return PlannedFacility(facility: facility, name: f.properties["name"]?.stringValue ?? fid, totalCostYuan: total ?? 0,
                               costed: total != nil, areaSquareMetres: area)
    }

    /// The facilities of `plan` in `store`, read as `caller`, in id order; none for `basePlan`.
    /// - Throws: `SpongeInputError` naming `plan` when the layer holds no facility of it (or is
    ///   missing), or a feature's field; `StoreError` from the store.
    public static func plan(_ plan: String, store: any FeatureStore, caller: Caller, field: String = "plan") async throws -> [PlannedFacility] {
        guard plan != basePlan else { return [] }
        guard try await store.layerDefinition(id, for: caller) != nil else {
            throw SpongeInputError(field, "the store has no layer \(id), so no plan '\(plan)'")
        }
        var list: [PlannedFacility] = []
        for try await f in store.stream(layer: id, FeatureQuery(limit: 2000), by: caller) where f.properties["plan"]?.stringValue == plan {
            list.append(try facility(f))
        }
        guard !list.isEmpty else { throw SpongeInputError(field, "layer \(id) holds no facility of plan '\(plan)' (\(basePlan) is the model without LID facilities)") }
        return list.sorted { $0.facility.id < $1.facility.id }
    }
}
