import CityModel
import DataSources
import Foundation
import GeoCore
import TwinStore

/// One vector source of a manifest layer, read through GDAL and mapped to the layer's properties:
/// `fields` (target ← source field or constant), `values` (source value → target value), `defaults`
/// (an empty value takes it, reported as defaulted). Every target is checked against the layer, every
/// source field against the file, every required target for a source or a default — before a feature
/// is read. Features come out in longitude/latitude (EPSG:4326), as the OpenStreetMap build's do.
struct ManifestLayerReader {
    /// The properties a road source may fill; the build derives the rest (ids, ends, length).
    /// `level` (0 at grade, 1 a bridge, -1 a tunnel) decides where lines meet; `id` names the line.
    static let roadTargets = ["class", "id", "lanes", "level", "name", "oneway", "speed_kmh"]

    /// What a layer built by `city build` requires: roads their class (the rest is derived); the
    /// layers `FeatureRule` fills what the rule requires; addresses `AddressDraft.required`; any
    /// other layer its schema's `required`.
    static func required(_ layer: String, _ definition: LayerDefinition) -> [String] {
        if layer == "roads" { return ["class"] }
        if layer == "addresses" { return AddressDraft.required }
        if let rule = FeatureRule.all.first(where: { $0.layer == layer }) { return rule.required }
        return definition.schema.required
    }

    let source: CityManifest.LayerSource
    let layerID: String
    let definition: LayerDefinition
    var report: [String: Int] = [:]

    /// Opens the source and checks the mapping; `read()` then reads it.
    /// - Throws: `ManifestError` naming the member: a missing file or layer, a CRS that cannot be
    ///   read, a filter GDAL refuses, an unknown target or source field, a required target unfilled.
    init(_ source: CityManifest.LayerSource, layer: String, definition: LayerDefinition) throws {
        self.source = source
        layerID = layer
        self.definition = definition
        let p = source.path
        let targets = layer == "roads" ? Self.roadTargets : (Array(definition.schema.properties.keys) + ["id"]).sorted()
        for (member, names) in [("fields", Array(source.fields.keys)), ("values", Array(source.values.keys)), ("defaults", Array(source.defaults.keys))] {
            for name in names.sorted() where !targets.contains(name) {
                throw ManifestError(path: "\(p).\(member).\(name)", "layer \(layer) has no property '\(name)'"
                                    + (layer == "roads" ? " a source fills (the build derives ids, ends and lengths)" : ""),
                                    allowed: targets.joined(separator: ", "))
            }
        }
        for name in Self.required(layer, definition) where source.fields[name] == nil && source.defaults[name] == nil {
            throw ManifestError(path: "\(p).fields", "layer \(layer) requires '\(name)': map it from a source field or give defaults.\(name)",
                                allowed: "fields.\(name) or defaults.\(name)")
        }
        _ = try open()
    }

    /// The opened GDAL layer and the CRS of its coordinates.
    func open() throws -> (VectorLayer, CoordinateReferenceSystem) {
        let p = source.path
        var options: [String] = []
        if let x = source.x, let y = source.y { options += ["X_POSSIBLE_NAMES=\(x)", "Y_POSSIBLE_NAMES=\(y)", "KEEP_GEOM_COLUMNS=NO"] }
        let layer: VectorLayer
        do {
            var encoding = source.encoding
            if encoding == nil, source.file.pathExtension.lowercased() == "shp" { encoding = try GDALSource.shapefileEncoding(source.file).gdalName }
            let dataset = try VectorDataset(file: source.file, encoding: encoding, openOptions: options)
            do { layer = try dataset.layer(named: source.layer) } catch let e as DataSourceError {
                throw ManifestError(path: "\(p).layer", "\(source.file.lastPathComponent) \(e.reason)", allowed: dataset.layerNames.joined(separator: ", "))
            }
        } catch let e as DataSourceError {
            throw ManifestError(path: "\(p).file", "\(source.file.lastPathComponent): \(e.reason)", allowed: "any vector source GDAL reads")
        } catch let e as ImportError {
            throw ManifestError(path: "\(p).encoding", "\(e)", allowed: "UTF-8, GBK, GB18030, CP936")
        }
        guard let crs = source.crs ?? layer.crs else {
            throw ManifestError(path: "\(p).crs", "\(source.file.lastPathComponent) names no CRS PROJ can identify"
                                + (layer.crsDefinition.map { " (it defines: \($0.prefix(120))…)" } ?? ""), allowed: "the CRS of its coordinates, e.g. EPSG:3067")
        }
        let names = layer.fields.map(\.name)
        for (target, from) in source.fields.sorted(by: { $0.key < $1.key }) {
            guard case .field(let name) = from, !names.contains(name) else { continue }
            throw ManifestError(path: "\(p).fields.\(target)", "\(source.file.lastPathComponent) (layer \(layer.name)) has no field '\(name)'",
                                allowed: names.joined(separator: ", "))
        }
        if let filter = source.filter {
            // Some drivers (GeoPackage) parse the filter only when reading: read one feature to know.
            do { try layer.setAttributeFilter(filter); _ = try layer.next(upTo: 1); layer.rewind() } catch let e as DataSourceError {
                throw ManifestError(path: "\(p).where", e.reason, allowed: "a GDAL SQL condition on the fields \(names.joined(separator: ", "))")
            }
        }
        return (layer, crs)
    }

    /// The features the source holds, mapped, in longitude/latitude; those without a geometry are dropped (counted).
    mutating func read() throws -> [Feature] {
        let (layer, crs) = try open()
        let toLonLat: CoordinateTransformer
        do { toLonLat = try CoordinateTransformer.shared(from: crs, to: CoordinateReferenceSystem(epsg: 4326)) } catch {
            throw ManifestError(path: "\(source.path).crs", "cannot transform \(crs) to longitude/latitude: \(error)", allowed: "a CRS PROJ knows")
        }
        let keepsID = definition.schema.properties["id"] != nil
        var out: [Feature] = []
        var index = 0
        do {
            while case let batch = try layer.next(upTo: 10_000), !batch.isEmpty {
                for f in batch {
                    index += 1
                    guard let geometry = f.geometry else {
                        report["\(layerID): dropped, no geometry", default: 0] += 1
                        continue
                    }
                    var feature = Feature(id: f.id ?? .integer(Int64(index)), geometry: try geometry.rightHandOriented.mapPositions { try toLonLat.transform($0) },
                                          properties: mapped(f.properties))
                    if !keepsID, let id = feature.properties.removeValue(forKey: "id") {
                        if let i = id.integerValue { feature.id = .integer(i) } else if let s = id.stringValue { feature.id = .string(s) }
                    }
                    out.append(feature)
                }
            }
        } catch let e as DataSourceError {
            throw ManifestError(path: "\(source.path).file", "\(source.file.lastPathComponent), \(e.location ?? "feature \(index + 1)"): \(e.reason)")
        }
        return out
    }

    /// A feature's target properties: mapped fields and constants, values translated, empty values defaulted.
    mutating func mapped(_ properties: [String: JSONValue]) -> [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        for (target, from) in source.fields {
            var value: JSONValue
            switch from {
            case .field(let name): value = properties[name] ?? .null
            case .constant(let c): value = c
            }
            if value.stringValue?.trimmingCharacters(in: .whitespaces).isEmpty == true { value = .null }
            if !value.isNull, let map = source.values[target], let to = map[Self.key(value)] { value = to }
            if !value.isNull { out[target] = value }
        }
        for (target, value) in source.defaults where out[target] == nil {
            out[target] = value
            report["\(layerID) with \(target) defaulted (defaults)", default: 0] += 1
        }
        return out
    }

    /// A source value as `values` keys it: text as it is, numbers without a trailing `.0`.
    static func key(_ value: JSONValue) -> String {
        switch value {
        case .string(let s): s
        case .integer(let i): String(i)
        case .number(let d): d.rounded() == d && abs(d) < 9e15 ? String(Int64(d)) : String(d)
        case .bool(let b): b ? "true" : "false"
        default: ""
        }
    }
}
