import GeoCore

/// What a layer's features describe when it is not the city as it stands (optional
/// `"conditions"` of a definition): `{"kind": "scenario", "scenarios": ["pl-quick"]}` marks the
/// results of what-if scenarios (a scenario's run, a comparison of two), which no department
/// may take for the real thing. A layer without it describes the city as it is (or as a
/// published flood run says it is).
///
/// The marking travels with the definition, so every place that shows a layer shows it: the
/// title carries `whatIfLabel` before its own (`marked`), set when the layer is written, so the
/// collections list, WMS/WFS/WMTS capabilities, the web map's layer list, legend and popups and
/// the print's legend all say 情景（非实况）; the API adds `whatIf: true` and `conditions` to the
/// collection, its items and the answers of processes that read it. Who may read the layer is
/// still its `sharing` alone (a draft scenario's layers are `not-shared`, `ScenarioCatalog`).
public struct LayerConditions: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The results of what-if scenarios: planned, not observed.
        case scenario
    }

    public var kind: Kind
    /// The scenarios the layer's features come from (one for a run's results, two for a comparison).
    public var scenarios: [String]

    public init(kind: Kind = .scenario, scenarios: [String]) {
        self.kind = kind
        self.scenarios = scenarios
    }

    /// Whether the layer is a what-if (every kind so far is).
    public var isWhatIf: Bool { kind == .scenario }

    /// The marking of a what-if, as titles, legends and prints show it.
    public static let whatIfLabel = LayerTitle(zh: "情景（非实况）", en: "What-if")

    /// `title` with the what-if marking before it (once): `【情景（非实况）】pl-quick：最大积水深度分级`,
    /// `[What-if] scenario_pl_quick: Maximum flood depth`.
    public func marked(_ title: LayerTitle) -> LayerTitle {
        guard isWhatIf else { return title }
        let zh = "【\(Self.whatIfLabel.zh)】", en = "[\(Self.whatIfLabel.en)] "
        return LayerTitle(zh: title.zh.hasPrefix(zh) ? title.zh : zh + title.zh, en: title.en.hasPrefix(en) ? title.en : en + title.en)
    }

    /// The definition file's value.
    public var json: JSONValue {
        ["kind": .string(kind.rawValue), "scenarios": .array(scenarios.map(JSONValue.string))]
    }

    /// What the API shows beside a layer, its items and an answer that read it:
    /// `{"kind": "scenario", "scenarios": [...], "whatIf": true, "label": "情景（非实况）", "labelEn": "What-if"}`.
    public var document: JSONValue {
        var o = json.objectValue ?? [:]
        o["whatIf"] = .bool(isWhatIf)
        o["label"] = .string(Self.whatIfLabel.zh)
        o["labelEn"] = .string(Self.whatIfLabel.en)
        return .object(o)
    }

    /// Reads `"conditions"`: nil for absent or null.
    static func parse(_ value: JSONValue?, fail: (String, String) -> StoreError) throws -> LayerConditions? {
        guard let value, !value.isNull else { return nil }
        guard let o = value.objectValue else { throw fail("conditions", "\"conditions\" must be an object {kind, scenarios}") }
        if let other = o.keys.sorted().first(where: { $0 != "kind" && $0 != "scenarios" }) {
            throw fail("conditions.\(other)", "\"conditions\" takes kind and scenarios only, not \"\(other)\"")
        }
        guard let text = o["kind"]?.stringValue, let kind = Kind(rawValue: text) else {
            throw fail("conditions.kind", "\"kind\" must be one of \(Kind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let list = o["scenarios"]?.arrayValue, !list.isEmpty,
              case let names = list.compactMap(\.stringValue), names.count == list.count, names.allSatisfy({ !$0.isEmpty }) else {
            throw fail("conditions.scenarios", "\"scenarios\" must list the ids of the scenarios the layer comes from (at least one)")
        }
        return LayerConditions(kind: kind, scenarios: names)
    }
}
