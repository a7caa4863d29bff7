import CityModel
import DataSources
import Foundation
import GeoCore

/// An OpenStreetMap extract (`.osm.pbf` or `.osm`) as GDAL's OSM driver reads it: its ways (the
/// `lines` layer), tagged nodes (`points`) and areas (`multipolygons`: closed ways and multipolygon
/// relations), longitude/latitude on WGS 84.
public struct OSMExtract {
    public let file: URL
    public private(set) var ways: [RoadNetworkDraft.Way] = []
    public private(set) var signals: [Position] = []
    public private(set) var stops: [Position] = []
    /// The nodes and areas some `FeatureRule` selects.
    public private(set) var objects: [CityFeatureDraft.Object] = []
    /// Areas GDAL assembled with a geometry that cannot be read (an open ring where the extract cut a
    /// way), left out.
    public private(set) var unreadableAreas = 0
    /// The extent of every way read, degrees.
    public private(set) var extent: Envelope?

    /// Reads the ways and the nodes road building uses.
    /// - Throws: `ImportError` naming the file when GDAL cannot read it as OpenStreetMap.
    public init(file: URL) throws {
        self.file = file
        do {
            let dataset = try VectorDataset(file: file)
            guard dataset.driver == "OSM" else {
                throw ImportError(.unsupported, file: file.lastPathComponent, "is not an OpenStreetMap extract (GDAL read it as \(dataset.driver))")
            }
            let lines = try dataset.layer(named: "lines")
            while case let batch = try lines.next(upTo: 10_000), !batch.isEmpty {
                for f in batch {
                    guard case .lineString(let line)? = f.geometry else { continue }
                    let tags = Self.tags(f)
                    if FeatureRule.all.contains(where: { $0.shape == .line && $0.matches(tags) }) {
                        objects.append(.init(id: "way/\(f.properties["osm_id"]?.stringValue ?? "\(objects.count + 1)")", geometry: .lineString(line), tags: tags))
                    }
                    guard tags["highway"] != nil else { continue }
                    ways.append(.init(id: f.properties["osm_id"]?.stringValue ?? "\(ways.count + 1)", positions: line.positions, tags: tags))
                    for p in line.positions {
                        if extent == nil { extent = Envelope(minX: p.x, minY: p.y, maxX: p.x, maxY: p.y) } else { extent?.expand(toInclude: p) }
                    }
                }
            }
            let points = try dataset.layer(named: "points")
            while case let batch = try points.next(upTo: 10_000), !batch.isEmpty {
                for f in batch {
                    guard case .point(let point)? = f.geometry, let p = point.position else { continue }
                    let tags = Self.tags(f)
                    switch tags["highway"] {
                    case "traffic_signals": signals.append(p)
                    case "stop", "give_way": stops.append(p)
                    default: break
                    }
                    if CityFeatureDraft.uses(tags) {
                        objects.append(.init(id: "node/\(f.properties["osm_id"]?.stringValue ?? "\(objects.count + 1)")", geometry: .point(point), tags: tags))
                    }
                }
            }
            let areas = try dataset.layer(named: "multipolygons")
            areas.skipsUnreadableGeometries = true
            defer { unreadableAreas = areas.unreadableGeometries }
            while case let batch = try areas.next(upTo: 10_000), !batch.isEmpty {
                for f in batch {
                    guard let geometry = f.geometry else { continue }
                    switch geometry { case .polygon, .multiPolygon: break; default: continue }
                    let tags = Self.tags(f)
                    guard CityFeatureDraft.uses(tags) else { continue }
                    let id = f.properties["osm_way_id"]?.stringValue.map { "way/\($0)" }
                        ?? f.properties["osm_id"]?.stringValue.map { "relation/\($0)" } ?? "area/\(objects.count + 1)"
                    objects.append(.init(id: id, geometry: geometry, tags: tags))
                }
            }
        } catch let e as DataSourceError {
            throw ImportError(e.code == .unreadable ? .unreadable : .malformed, file: file.lastPathComponent, location: e.location, e.reason)
        }
    }

    static func tags(_ f: Feature) -> OSMTags {
        var fields: [String: String] = [:]
        for (k, v) in f.properties { if let s = v.stringValue { fields[k] = s } }
        return OSMTags(fields: fields, otherTags: f.properties["other_tags"]?.stringValue)
    }
}
