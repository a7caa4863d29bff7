import CityModel
import Foundation
import GeoCore

/// The city's layers besides its roads — emergency resources, parking lots, buildings — derived
/// from tagged OpenStreetMap objects by `FeatureRule.all`, with a report of what was written,
/// derived and dropped (and why). Pure: plain values in and out.
public struct CityFeatureDraft: Sendable {
    /// A tagged OpenStreetMap object: a node (point) or an area (closed way or multipolygon
    /// relation, as GDAL's OSM driver assembles it), longitude/latitude on WGS 84.
    public struct Object: Sendable {
        /// `node/123`, `way/456` or `relation/789`.
        public var id: String
        public var geometry: Geometry
        public var tags: OSMTags
        public init(id: String, geometry: Geometry, tags: OSMTags) {
            self.id = id
            self.geometry = geometry
            self.tags = tags
        }
    }

    /// Features per layer, in `FeatureRule.all`'s order (layers no object fills are left out).
    public var layers: [(id: String, features: [Feature])] = []
    /// What the build did, counted: written and dropped per layer with the reason, derived values by property.
    public var report: [String: Int] = [:]

    /// Whether an object with `tags` feeds a layer: a `FeatureRule` selects it or it carries an address.
    public static func uses(_ tags: OSMTags) -> Bool {
        tags["addr:housenumber"] != nil || FeatureRule.all.contains { $0.matches(tags) }
    }

    /// Builds the layers from `objects`. An object may fill several layers (a fire station mapped as
    /// a building is both).
    /// - Parameter metric: longitude/latitude to the city's metric CRS, for footprint areas.
    public static func build(_ objects: [Object], metric: CoordinateTransformer) throws -> CityFeatureDraft {
        var draft = CityFeatureDraft()
        let addresses = try AddressDraft.build(objects)
        if !addresses.features.isEmpty { draft.layers.append(("addresses", addresses.features)) }
        draft.report.merge(addresses.report) { a, _ in a }
        for rule in FeatureRule.all {
            var features: [Feature] = []
            for object in objects where rule.matches(object.tags) {
                var (values, derived) = rule.properties(object.tags, object.id)
                let geometry: Geometry
                switch (rule.shape, object.geometry) {
                case (.point, .point):
                    geometry = object.geometry
                case (.point, _):
                    geometry = try object.geometry.pointOnSurface()
                case (.polygon, .polygon(let p)):
                    geometry = .polygon(p)
                case (.polygon, .multiPolygon(let m)) where m.polygons.count == 1:
                    geometry = .polygon(m.polygons[0])
                case (.polygon, .multiPolygon):
                    draft.report["\(rule.layer): dropped, a multipolygon of several parts (the layer holds single polygons)", default: 0] += 1
                    continue
                case (.polygon, _):
                    draft.report["\(rule.layer): dropped, mapped as a node or line (no footprint)", default: 0] += 1
                    continue
                case (.line, .lineString):
                    geometry = object.geometry
                case (.line, _):
                    draft.report["\(rule.layer): dropped, mapped as a node or area (not a line)", default: 0] += 1
                    continue
                }
                if rule.layer == "buildings", let code = addresses.codes[object.id] { values["address_code"] = .string(code) }
                if let (property, value) = try measured(rule.layer, geometry, metric: metric) { values[property] = value }
                for d in derived { draft.report["\(rule.layer) with \(d) derived (not tagged)", default: 0] += 1 }
                features.append(Feature(id: .string(object.id), geometry: geometry, properties: values))
            }
            guard !features.isEmpty else { continue }
            draft.layers.append((rule.layer, features))
            draft.report["\(rule.layer)"] = features.count
        }
        return draft
    }

    /// The property the builder measures in the city's metric CRS for a layer: a building's
    /// `footprint_m2` (0.1 m²), a lake's `area_km2` (0.01 km²); `nil` for other layers.
    public static func measured(_ layer: String, _ geometry: Geometry, metric: CoordinateTransformer) throws -> (String, JSONValue)? {
        switch layer {
        case "buildings":
            let area = try geometry.mapPositions { try metric.transform($0) }.area
            return ("footprint_m2", .number((area * 10).rounded() / 10))
        case "lakes":
            let area = try geometry.mapPositions { try metric.transform($0) }.area
            return ("area_km2", .number((area / 1e4).rounded() / 100))
        default:
            return nil
        }
    }

    /// The layers as records to import, in longitude/latitude (EPSG:4326, OpenStreetMap's datum).
    public func records(file: String) -> NetworkImport {
        NetworkImport(file: file, crs: CoordinateReferenceSystem(epsg: 4326), layers: layers.map { layer in
            (layer.id, layer.features.map { SourceRecord(location: "\(layer.id) \($0.id.map { "\($0)" } ?? "")", feature: $0) })
        })
    }
}
