import Foundation
import GeoCore
import TwinStore

/// One edit in a scenario's sandbox: a feature added or replaced in a layer, or a feature
/// removed from it (a new storage tank in `drainage_storage`, a closed road removed from
/// `roads`). The edits live in the scenario record, never in the layer: a run applies them in
/// memory to the map it reads (`ScenarioChange.apply`), so the live layers stay as they are.
///
/// JSON: `{"layer": "drainage_storage", "op": "upsert", "feature": {GeoJSON Feature with an id,
/// CGCS2000 lon/lat}}` or `{"layer": "roads", "op": "delete", "id": "R-0012"}`.
public struct ScenarioChange: Sendable, Hashable {
    public enum Operation: String, Sendable, Hashable {
        case upsert, delete
    }

    public var layer: String
    public var operation: Operation
    /// The feature id the change adds, replaces or removes.
    public var featureID: String
    /// The new feature (`upsert` only), its geometry in storage coordinates (EPSG:4490 lon/lat).
    public var feature: Feature?

    public init(layer: String, upsert feature: Feature) {
        self.layer = layer
        self.operation = .upsert
        self.featureID = feature.id.map { "\($0)" } ?? ""
        self.feature = feature
    }

    public init(layer: String, delete id: String) {
        self.layer = layer
        self.operation = .delete
        self.featureID = id
        self.feature = nil
    }

    /// Reads change `index` of a scenario's `changes`, naming `field` (`changes[2].feature`) in errors.
    /// - Throws: `ScenarioError` `.invalidScenario` naming the member at fault.
    public init(json: JSONValue, field: String) throws {
        func fail(_ member: String, _ why: String) -> ScenarioError {
            ScenarioError(.invalidScenario, why, field: "\(field).\(member)")
        }
        guard let o = json.objectValue else {
            throw ScenarioError(.invalidScenario, "a change is an object {layer, op, feature | id}", field: field)
        }
        guard let layer = o["layer"]?.stringValue, LayerDefinition.isSafeIdentifier(layer) else {
            throw fail("layer", "must be a layer id")
        }
        self.layer = layer
        switch o["op"]?.stringValue {
        case "upsert"?:
            operation = .upsert
            guard let value = o["feature"], value.objectValue?["type"]?.stringValue == "Feature" else {
                throw fail("feature", "an upsert needs a GeoJSON Feature")
            }
            let f: Feature
            do { f = try JSONOutput.convert(value, to: Feature.self) } catch {
                throw fail("feature", "not a GeoJSON Feature: \(error)")
            }
            guard let id = f.id else { throw fail("feature.id", "the feature needs an id (the id it has, or gets, in the layer)") }
            featureID = "\(id)"
            feature = f
        case "delete"?:
            operation = .delete
            guard let id = o["id"]?.stringValue ?? o["id"]?.integerValue.map({ String($0) }), !id.isEmpty else {
                throw fail("id", "a delete needs the id of the feature it removes")
            }
            featureID = id
            feature = nil
        default:
            throw fail("op", "must be \"upsert\" or \"delete\"")
        }
    }

    public var json: JSONValue {
        var o: [String: JSONValue] = ["layer": .string(layer), "op": .string(operation.rawValue)]
        switch operation {
        case .upsert:
            if let feature, let v = try? JSONOutput.value(feature) {
                o["feature"] = v
            }
        case .delete:
            o["id"] = .string(featureID)
        }
        return .object(o)
    }

    /// `features` of one layer with `changes` (of that layer) applied in order: an upsert replaces
    /// the feature with its id or adds it at the end, a delete removes it.
    public static func apply(_ changes: [ScenarioChange], to features: [Feature]) -> [Feature] {
        guard !changes.isEmpty else { return features }
        var list = features
        for change in changes {
            let index = list.firstIndex { ($0.id.map { "\($0)" } ?? "") == change.featureID }
            switch change.operation {
            case .upsert:
                guard let f = change.feature else { continue }
                if let index { list[index] = f } else { list.append(f) }
            case .delete:
                if let index { list.remove(at: index) }
            }
        }
        return list
    }
}
