import Foundation
import GeoCore

/// A layer definition read from `Layers/<id>.json` in the package directory, as plain JSON.
struct LayerDefinitionFile {
    let id: String
    let json: JSONValue

    static var directory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Layers")
    }

    static func all() throws -> [LayerDefinitionFile] {
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
        return try files.map { url in
            let json = try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: url))
            return LayerDefinitionFile(id: url.deletingPathExtension().lastPathComponent, json: json)
        }
    }

    var schema: JSONValue? { json["schema"] }
    var geometryType: String? { json["geometryType"]?.stringValue }
}

/// The violations of a feature's properties against a layer's JSON schema: required fields,
/// declared fields only, `type` (string or array of types), `enum`, and array `items.type`.
/// A deliberately small subset of JSON Schema 2020-12, enough for CityTwin's layer definitions.
func schemaViolations(_ properties: [String: JSONValue], schema: JSONValue) -> [String] {
    var problems: [String] = []
    let declared = schema["properties"]?.objectValue ?? [:]
    for case .string(let name) in schema["required"]?.arrayValue ?? [] where properties[name] == nil {
        problems.append("missing required \(name)")
    }
    for (name, value) in properties {
        guard let rule = declared[name] else {
            problems.append("undeclared property \(name)")
            continue
        }
        if !matches(value, type: rule["type"]) { problems.append("\(name): \(value) is not \(rule["type"] ?? .null)") }
        if let options = rule["enum"]?.arrayValue, !options.contains(value) { problems.append("\(name): \(value) not in enum") }
        if let items = rule["items"], let array = value.arrayValue {
            for item in array where !matches(item, type: items["type"]) { problems.append("\(name)[]: \(item) is not \(items["type"] ?? .null)") }
        }
    }
    return problems
}

private func matches(_ value: JSONValue, type: JSONValue?) -> Bool {
    switch type {
    case .string(let t)?: return matches(value, typeName: t)
    case .array(let ts)?: return ts.contains { $0.stringValue.map { matches(value, typeName: $0) } ?? false }
    default: return true
    }
}

private func matches(_ value: JSONValue, typeName: String) -> Bool {
    switch (typeName, value) {
    case ("string", .string), ("integer", .integer), ("number", .integer), ("number", .number),
         ("boolean", .bool), ("array", .array), ("object", .object), ("null", .null): true
    default: false
    }
}

func geometryTypeName(_ g: Geometry?) -> String? { g?.type.rawValue }
