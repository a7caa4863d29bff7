import CityModel
import Foundation
import GeoCore

extension RoadNetworkDraft {
    /// The draft as the `roads` and `intersections` layers, in longitude/latitude (EPSG:4326,
    /// OpenStreetMap's datum), intersections first.
    public func layers(file: String) -> NetworkImport {
        let intersections = intersections.map { j in
            SourceRecord(location: "intersection \(j.id)", feature: Feature(
                id: .string(j.id), geometry: .point(Point(j.position)),
                properties: ["name": .string(j.name), "control": .string(j.control), "legs": .integer(Int64(j.legs))]))
        }
        let roads = roads.map { r in
            SourceRecord(location: "way \(r.id)", feature: Feature(
                id: .string(r.id), geometry: .lineString(LineString(r.positions)),
                properties: ["name": .string(r.name), "class": .string(r.roadClass), "lanes": .integer(Int64(r.lanes)),
                             "speed_kmh": .integer(Int64(r.speed)), "oneway": .bool(r.oneway), "from_intersection": .string(r.from),
                             "to_intersection": .string(r.to), "length_m": .number(r.length)]))
        }
        return NetworkImport(file: file, crs: CoordinateReferenceSystem(epsg: 4326),
                             layers: [("intersections", intersections), ("roads", roads)])
    }
}
