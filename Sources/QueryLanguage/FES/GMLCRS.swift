import Foundation
import GeoCore

/// A CRS as WFS 2.0 and GML name it (`SRSNAME`, `srsName`), with the axis order its form
/// implies, as GeoServer reads it (docs/http-api.md, "WFS"): the URN and OGC http URI forms
/// (`urn:ogc:def:crs:EPSG::4326`, `urn:x-ogc:def:crs:EPSG:4326`,
/// `http://www.opengis.net/def/crs/EPSG/0/4326`) are strict and follow EPSG's order (latitude
/// first for EPSG:4326 and 4490, northing first for the CGCS2000 Gauss-Krüger zones); the
/// short form `EPSG:4326` and `http://www.opengis.net/gml/srs/epsg.xml#4326` are longitude
/// (easting) first, the assumption of the clients that still send them.
public struct GMLCRS: Hashable, Sendable {
    public var crs: CoordinateReferenceSystem
    /// Coordinates are written east first (x, y) whatever the authority's order.
    public var eastFirst: Bool
    /// The name as the client wrote it (echoed in `srsName`).
    public var name: String

    /// The storage CRS in its strict URN form: the WFS's `DefaultCRS`.
    public static let storage = GMLCRS(crs: .cgcs2000, eastFirst: false, name: "urn:ogc:def:crs:EPSG::4490")

    public init(crs: CoordinateReferenceSystem, eastFirst: Bool, name: String) {
        self.crs = crs
        self.eastFirst = eastFirst
        self.name = name
    }

    /// The strict URN of an EPSG CRS (`urn:ogc:def:crs:EPSG::4547`).
    public init(epsg crs: CoordinateReferenceSystem) {
        self.init(crs: crs, eastFirst: crs.epsgCode == nil, name: crs.epsgCode.map { "urn:ogc:def:crs:EPSG::\($0)" } ?? "urn:ogc:def:crs:OGC:1.3:CRS84")
    }

    /// Reads a CRS name; only EPSG CRSs PROJ relates to EPSG:4490, and CRS84, are accepted.
    /// - Throws: `GeometryError` `.crs` naming the text.
    public init(parsing text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let upper = trimmed.uppercased()
        var identifier = trimmed
        var eastFirst: Bool?
        if upper.hasPrefix("HTTP://WWW.OPENGIS.NET/GML/SRS/EPSG.XML#") {
            identifier = "EPSG:" + trimmed.dropFirst("http://www.opengis.net/gml/srs/epsg.xml#".count)
            eastFirst = true
        } else if upper.hasPrefix("URN:X-OGC:DEF:CRS:EPSG:") {
            let code = trimmed.split(separator: ":", omittingEmptySubsequences: false).last.map(String.init) ?? ""
            identifier = "urn:ogc:def:crs:EPSG::" + code
        } else if upper.hasPrefix("EPSG:") {
            eastFirst = true
        }
        let crs = try CoordinateReferenceSystem(parsing: identifier)
        guard crs == .crs84 || crs.epsgCode != nil else {
            throw GeometryError(.crs, "CRS '\(text)' is not an EPSG CRS or CRS84")
        }
        _ = try CoordinateTransformer.shared(from: .cgcs2000, to: crs)
        let swapped = try crs.metadata.axisOrder.isSwapped
        self.init(crs: crs, eastFirst: eastFirst ?? !swapped, name: trimmed)
    }

    /// Whether positions must be swapped to get east first: the authority puts north first and
    /// this name does not override it.
    public var swapsAxes: Bool {
        get throws {
            if eastFirst { return false }
            return try crs.metadata.axisOrder.isSwapped
        }
    }

    /// A geometry written in this CRS (its axis order) as EPSG:4490 lon/lat.
    public func toStorage(_ g: Geometry) throws -> Geometry {
        let eastNorth = try swapsAxes ? g.mapPositions { Position(x: $0.y, y: $0.x, z: $0.z) } : g
        return try CoordinateTransformer.shared(from: crs, to: .cgcs2000).transform(eastNorth)
    }

    /// An envelope's corners written in this CRS (its axis order) as an EPSG:4490 lon/lat
    /// envelope (edges densified, as every bbox of the API).
    public func envelopeToStorage(_ lower: Position, _ upper: Position) throws -> Envelope {
        let (a, b) = try swapsAxes ? (Position(x: lower.y, y: lower.x), Position(x: upper.y, y: upper.x)) : (lower, upper)
        let box = Envelope(minX: min(a.x, b.x), minY: min(a.y, b.y), maxX: max(a.x, b.x), maxY: max(a.y, b.y))
        return try CoordinateTransformer.shared(from: crs, to: .cgcs2000).transform(box)
    }
}
