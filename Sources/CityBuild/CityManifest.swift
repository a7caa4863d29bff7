import Foundation
import GeoCore

/// A city's sources, as `citytwin city build MANIFEST.json` reads them (docs/capabilities/city-build.md):
/// its name and metric CRS, an OpenStreetMap extract, per layer its vector sources with their field
/// map, value map and defaults, a DEM, a SWMM drainage model and an EPANET water network. `--osm`
/// is the manifest `{"osm": EXTRACT}` (with its `--dem`, `--drainage`, `--water`, `--name`): one
/// build, one plan. Relative paths are resolved against the manifest's directory. This type checks
/// the manifest's shape; `CityBuildPlan` checks it against the layers and the files.
public struct CityManifest: Sendable {
    /// `fields`: where a target property's value comes from.
    public enum FieldSource: Sendable, Hashable {
        /// A field (column) of the source, by name.
        case field(String)
        /// The same value on every feature (`{"constant": …}`, or a number or boolean as it is).
        case constant(JSONValue)
    }

    /// One vector source of a layer.
    public struct LayerSource: Sendable {
        /// The manifest path of this source (`layers.roads`, `layers.fire_stations[1]`), for errors.
        public var path: String
        public var file: URL
        /// The GDAL layer (GeoPackage table, FileGDB feature class); the only one when `nil`.
        public var layer: String?
        /// The CRS of its coordinates when the file names none (or to override it).
        public var crs: CoordinateReferenceSystem?
        /// An attribute filter in GDAL's SQL (`-where`).
        public var filter: String?
        /// A CSV's coordinate columns.
        public var x: String?
        public var y: String?
        /// The attributes' text encoding where the format leaves it to the reader (a Shapefile without `.cpg`).
        public var encoding: String?
        /// Target property ← source.
        public var fields: [String: FieldSource]
        /// Per target property: the source's value (as text) → the target's value (`null`: not kept).
        public var values: [String: [String: JSONValue]]
        /// Per target property: the value of a feature whose source value is empty (reported as defaulted).
        public var defaults: [String: JSONValue]
    }

    /// `dem`: a raster imported as the city's managed DEM.
    public struct RasterSource: Sendable {
        public var path: String
        public var file: URL
        public var crs: CoordinateReferenceSystem?
        public var cellSize: Double?
        public var resampling: String?
    }

    /// `drainage` (SWMM) or `water` (EPANET): a model whose coordinates are in `crs` (default: the
    /// city's metric CRS) or local metres placed at `origin`.
    public struct ModelSource: Sendable {
        public var path: String
        public var file: URL
        public var crs: CoordinateReferenceSystem?
        public var origin: Position?
        /// `water`: the isolation valves (CSV: link,node[,status]).
        public var valves: URL?
    }

    public var directory: URL
    public var name: String?
    public var metricCRS: CoordinateReferenceSystem?
    public var osm: URL?
    /// Layer id → its sources, in the order of `CityManifest.order`.
    public var layers: [(id: String, sources: [LayerSource])]
    public var dem: RasterSource?
    public var drainage: ModelSource?
    public var water: ModelSource?

    /// The `--osm` shortcut's manifest.
    public init(osm: URL, name: String?, dem: URL?, drainage: URL?, water: URL?, directory: URL) {
        self.directory = directory
        self.name = name
        self.osm = osm
        layers = []
        self.dem = dem.map { RasterSource(path: "--dem", file: $0) }
        self.drainage = drainage.map { ModelSource(path: "--drainage", file: $0) }
        self.water = water.map { ModelSource(path: "--water", file: $0) }
    }

    /// Reads a manifest file.
    /// - Throws: `ManifestError` naming the bad member's path, the reason and what is allowed.
    public init(file: URL) throws {
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw ManifestError(path: "$", "cannot read \(file.path): no such file")
        }
        let json: JSONValue
        do { json = try JSONDecoder().decode(JSONValue.self, from: data) } catch {
            throw ManifestError(path: "$", "\(file.lastPathComponent) is not JSON: \(error.localizedDescription)")
        }
        try self.init(json: json, directory: file.deletingLastPathComponent())
    }

    public static let members = ["name", "metric_crs", "osm", "layers", "dem", "drainage", "water"]
    static let sourceMembers = ["file", "layer", "crs", "where", "x", "y", "encoding", "fields", "values", "defaults"]

    public init(json: JSONValue, directory: URL) throws {
        self.directory = directory
        let root = try Self.object(json, "$", allowed: Self.members)
        name = try root["name"].map { try Self.text($0, "name") }
        metricCRS = try root["metric_crs"].map { try Self.crs($0, "metric_crs") }
        if let crs = metricCRS, let m = try? crs.metadata, m.isGeographic || m.unitToSI != 1 {
            throw ManifestError(path: "metric_crs", "\(crs) is not a projected CRS in metres (its unit: \(m.unitName))",
                                allowed: "a projected CRS in metres: the city's Gauss–Krüger or UTM zone, or its national grid (EPSG:3067)")
        }
        osm = try root["osm"].map { try Self.path($0, "osm", directory) }
        layers = []
        if let value = root["layers"] {
            guard let entries = value.objectValue else { throw ManifestError(path: "layers", "is not an object", allowed: "{\"<layer id>\": source or [sources]}") }
            for id in entries.keys.sorted(by: Self.order) {
                let path = "layers.\(id)"
                switch entries[id]! {
                case .array(let items):
                    guard !items.isEmpty else { throw ManifestError(path: path, "lists no source", allowed: "a source object or a non-empty array of them") }
                    layers.append((id, try items.enumerated().map { try Self.source($1, "\(path)[\($0)]", directory) }))
                default:
                    layers.append((id, [try Self.source(entries[id]!, path, directory)]))
                }
            }
        }
        if let value = root["dem"] {
            let o = try Self.fileObject(value, "dem", allowed: ["file", "crs", "cell_size", "resampling"])
            var dem = RasterSource(path: "dem", file: try Self.path(o["file"], "dem.file", directory))
            dem.crs = try o["crs"].map { try Self.crs($0, "dem.crs") }
            if let c = o["cell_size"] {
                guard let size = c.doubleValue, size > 0, size <= 10_000 else { throw ManifestError(path: "dem.cell_size", "is not a size in metres", allowed: "a number in (0, 10000]") }
                dem.cellSize = size
            }
            dem.resampling = try o["resampling"].map { try Self.text($0, "dem.resampling") }
            self.dem = dem
        }
        drainage = try root["drainage"].map { try Self.model($0, "drainage", directory, valves: false) }
        water = try root["water"].map { try Self.model($0, "water", directory, valves: true) }
    }

    /// Layers in build order: roads first, then `FeatureRule.all`'s, then the rest by name.
    static func order(_ a: String, _ b: String) -> Bool {
        let known = ["roads", "addresses"] + FeatureRule.all.map(\.layer)
        return (known.firstIndex(of: a) ?? known.count, a) < (known.firstIndex(of: b) ?? known.count, b)
    }

    static func source(_ json: JSONValue, _ path: String, _ directory: URL) throws -> LayerSource {
        let o = try object(json, path, allowed: sourceMembers)
        var s = LayerSource(path: path, file: try Self.path(o["file"], "\(path).file", directory), fields: [:], values: [:], defaults: [:])
        s.layer = try o["layer"].map { try text($0, "\(path).layer") }
        s.crs = try o["crs"].map { try crs($0, "\(path).crs") }
        s.filter = try o["where"].map { try text($0, "\(path).where") }
        s.x = try o["x"].map { try text($0, "\(path).x") }
        s.y = try o["y"].map { try text($0, "\(path).y") }
        s.encoding = try o["encoding"].map { try text($0, "\(path).encoding") }
        guard (s.x == nil) == (s.y == nil) else { throw ManifestError(path: "\(path).\(s.x == nil ? "x" : "y")", "is given without its pair", allowed: "both x and y, or neither") }
        if let fields = o["fields"] {
            guard let entries = fields.objectValue else { throw ManifestError(path: "\(path).fields", "is not an object", allowed: "{\"<target>\": \"<source field>\" or {\"constant\": value}}") }
            for (target, value) in entries {
                switch value {
                case .string(let name) where !name.isEmpty: s.fields[target] = .field(name)
                case .integer, .number, .bool: s.fields[target] = .constant(value)
                case .object(let c) where c.count == 1 && c["constant"] != nil: s.fields[target] = .constant(c["constant"]!)
                default:
                    throw ManifestError(path: "\(path).fields.\(target)", "is neither a source field nor a constant",
                                        allowed: "a field name, a number, a boolean, or {\"constant\": value}")
                }
            }
        }
        if let values = o["values"] {
            guard let entries = values.objectValue else { throw ManifestError(path: "\(path).values", "is not an object", allowed: "{\"<target>\": {\"<source value>\": target value}}") }
            for (target, map) in entries {
                guard let pairs = map.objectValue else {
                    throw ManifestError(path: "\(path).values.\(target)", "is not an object", allowed: "{\"<source value>\": target value}")
                }
                s.values[target] = pairs
            }
        }
        if let defaults = o["defaults"] {
            guard let entries = defaults.objectValue else { throw ManifestError(path: "\(path).defaults", "is not an object", allowed: "{\"<target>\": value}") }
            for (target, value) in entries where value.isNull {
                throw ManifestError(path: "\(path).defaults.\(target)", "is null", allowed: "a value (leave the entry out for none)")
            }
            s.defaults = entries
        }
        return s
    }

    static func model(_ json: JSONValue, _ path: String, _ directory: URL, valves: Bool) throws -> ModelSource {
        let o = try fileObject(json, path, allowed: ["file", "crs", "origin"] + (valves ? ["valves"] : []))
        var m = ModelSource(path: path, file: try Self.path(o["file"], "\(path).file", directory))
        m.crs = try o["crs"].map { try crs($0, "\(path).crs") }
        if let origin = o["origin"] {
            guard let pair = origin.arrayValue?.compactMap(\.doubleValue), pair.count == 2, (-180...180).contains(pair[0]), (-90...90).contains(pair[1]) else {
                throw ManifestError(path: "\(path).origin", "is not a longitude and latitude", allowed: "[lon, lat] in degrees")
            }
            m.origin = Position(x: pair[0], y: pair[1])
        }
        guard m.crs == nil || m.origin == nil else { throw ManifestError(path: "\(path).origin", "is given with crs", allowed: "crs (coordinates in it) or origin (local metres), not both") }
        m.valves = try o["valves"].map { try Self.path($0, "\(path).valves", directory) }
        return m
    }

    // MARK: - Members

    static func object(_ json: JSONValue, _ path: String, allowed: [String]) throws -> [String: JSONValue] {
        guard let o = json.objectValue else { throw ManifestError(path: path, "is not an object", allowed: "an object with \(allowed.joined(separator: ", "))") }
        for key in o.keys.sorted() where !allowed.contains(key) {
            throw ManifestError(path: path == "$" ? key : "\(path).\(key)", "is not a member of \(path == "$" ? "a manifest" : path)", allowed: allowed.joined(separator: ", "))
        }
        return o
    }

    /// A member that is a file path or an object with `file`.
    static func fileObject(_ json: JSONValue, _ path: String, allowed: [String]) throws -> [String: JSONValue] {
        if case .string = json { return ["file": json] }
        return try object(json, path, allowed: allowed)
    }

    static func text(_ json: JSONValue, _ path: String) throws -> String {
        guard let s = json.stringValue, !s.isEmpty else { throw ManifestError(path: path, "is not a non-empty string") }
        return s
    }

    static func path(_ json: JSONValue?, _ path: String, _ directory: URL) throws -> URL {
        guard let json else { throw ManifestError(path: path, "is missing", allowed: "a file path, relative to the manifest's directory") }
        let text = try text(json, path)
        let url = text.hasPrefix("/") ? URL(fileURLWithPath: text) : directory.appendingPathComponent(text)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw ManifestError(path: path, "names \(url.standardizedFileURL.path), which does not exist", allowed: "a file path, relative to the manifest's directory")
        }
        return url.standardizedFileURL
    }

    static func crs(_ json: JSONValue, _ path: String) throws -> CoordinateReferenceSystem {
        let text: String
        if let i = json.integerValue { text = "EPSG:\(i)" } else { text = try Self.text(json, path) }
        do { return try CoordinateReferenceSystem(parsing: text) } catch {
            throw ManifestError(path: path, "cannot be read: \(error)", allowed: "a CRS PROJ knows: EPSG:<code> (e.g. EPSG:3067), an OGC URI or URN")
        }
    }
}

/// A manifest that cannot be built: the JSON path of the bad member, why, and what is allowed.
public struct ManifestError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var allowed: String?
    public init(path: String, _ reason: String, allowed: String? = nil) {
        self.path = path
        self.reason = reason
        self.allowed = allowed
    }
    public var description: String { "manifest \(path): \(reason)" + (allowed.map { " (allowed: \($0))" } ?? "") }
}
