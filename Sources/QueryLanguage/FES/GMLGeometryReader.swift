import Foundation
import GeoCore

/// GML 3.2 geometries as a FES 2.0 filter carries them (gml:Point, LineString, LinearRing,
/// Polygon, Envelope, MultiPoint, MultiCurve/MultiLineString, MultiSurface/MultiPolygon), read
/// into EPSG:4490 lon/lat. Each geometry's `srsName` (or its ancestor's, or the request's CRS)
/// gives its CRS and axis order (`GMLCRS`); `gml:pos`, `gml:posList` (with `srsDimension` 2 or
/// 3) and GML 2's `gml:coordinates` are read.
struct GMLGeometryReader {
    /// The CRS of a geometry without a `srsName`.
    let defaultCRS: GMLCRS

    static let geometryNames: Set<String> = [
        "Point", "LineString", "LinearRing", "Polygon", "Envelope", "MultiPoint", "MultiCurve", "MultiLineString",
        "MultiSurface", "MultiPolygon",
    ]

    /// The geometry as EPSG:4490 lon/lat; an envelope is its rectangle.
    func geometry(_ node: XMLTree, crs inherited: GMLCRS? = nil) throws -> Geometry {
        let crs = try node.attributes["srsName"].map(parseCRS) ?? inherited ?? defaultCRS
        if node.name == "Envelope" {
            guard let lower = node.child(named: "lowerCorner"), let upper = node.child(named: "upperCorner") else {
                throw FESError(.malformed, "gml:Envelope needs gml:lowerCorner and gml:upperCorner")
            }
            let (a, b) = (try position(lower), try position(upper))
            let box = try crs.envelopeToStorage(a, b)
            return .polygon(Polygon(exterior: [Position(x: box.minX, y: box.minY), Position(x: box.maxX, y: box.minY),
                                               Position(x: box.maxX, y: box.maxY), Position(x: box.minX, y: box.maxY),
                                               Position(x: box.minX, y: box.minY)]))
        }
        do {
            return try crs.toStorage(try raw(node))
        } catch let e as GeometryError {
            throw FESError(.malformed, "\(node.qualifiedName) in \(crs.name): \(e.message)")
        }
    }

    private func parseCRS(_ text: String) throws -> GMLCRS {
        do { return try GMLCRS(parsing: text) } catch let e as GeometryError {
            throw FESError(.malformed, "srsName '\(text)': \(e.message)")
        }
    }

    /// The geometry in its own CRS and axis order.
    private func raw(_ node: XMLTree) throws -> Geometry {
        switch node.name {
        case "Point":
            let positions = try self.positions(node)
            guard positions.count == 1 else { throw FESError(.malformed, "gml:Point has \(positions.count) positions, not 1") }
            return .point(Point(positions[0]))
        case "LineString":
            let positions = try self.positions(node)
            guard positions.count >= 2 else { throw FESError(.malformed, "gml:LineString needs at least 2 positions") }
            return .lineString(LineString(positions))
        case "LinearRing", "Polygon":
            return .polygon(try polygon(node))
        case "MultiPoint":
            return .multiPoint(MultiPoint(try members(node, ["pointMember", "pointMembers"]).map {
                guard case .point(let p) = try raw($0) else { throw FESError(.malformed, "a gml:MultiPoint member is not a gml:Point") }
                return p
            }))
        case "MultiCurve", "MultiLineString":
            return .multiLineString(MultiLineString(try members(node, ["curveMember", "curveMembers", "lineStringMember"]).map {
                guard case .lineString(let l) = try raw($0) else { throw FESError(.malformed, "a \(node.qualifiedName) member is not a gml:LineString") }
                return l
            }))
        case "MultiSurface", "MultiPolygon":
            return .multiPolygon(MultiPolygon(try members(node, ["surfaceMember", "surfaceMembers", "polygonMember"]).map {
                guard case .polygon(let p) = try raw($0) else { throw FESError(.malformed, "a \(node.qualifiedName) member is not a gml:Polygon") }
                return p
            }))
        default:
            throw FESError(.unsupported, "the GML geometry \(node.qualifiedName) is not supported: \(Self.geometryNames.sorted().joined(separator: ", "))")
        }
    }

    private func members(_ node: XMLTree, _ names: Set<String>) throws -> [XMLTree] {
        node.children.filter { names.contains($0.name) }.flatMap(\.children)
    }

    private func polygon(_ node: XMLTree) throws -> Polygon {
        if node.name == "LinearRing" { return Polygon(exterior: try ring(node)) }
        guard let exterior = node.child(named: "exterior") ?? node.child(named: "outerBoundaryIs"),
              let outer = exterior.child(named: "LinearRing") else {
            throw FESError(.malformed, "gml:Polygon needs a gml:exterior gml:LinearRing")
        }
        let interiors = try (node.children(named: "interior") + node.children(named: "innerBoundaryIs")).map { element in
            guard let ring = element.child(named: "LinearRing") else { throw FESError(.malformed, "gml:interior needs a gml:LinearRing") }
            return try self.ring(ring)
        }
        return Polygon(exterior: try ring(outer), interiors: interiors)
    }

    private func ring(_ node: XMLTree) throws -> [Position] {
        let positions = try self.positions(node)
        guard positions.count >= 4, positions.first == positions.last else {
            throw FESError(.malformed, "a gml:LinearRing needs at least 4 positions, the last equal to the first")
        }
        return positions
    }

    /// The positions of a Point, LineString or LinearRing: a gml:posList, gml:pos elements or gml:coordinates.
    private func positions(_ node: XMLTree) throws -> [Position] {
        if let list = node.child(named: "posList") {
            let dimension = Int(list.attributes["srsDimension"] ?? node.attributes["srsDimension"] ?? "2") ?? 0
            guard dimension == 2 || dimension == 3 else { throw FESError(.malformed, "srsDimension must be 2 or 3") }
            let numbers = try self.numbers(list.text, in: "gml:posList")
            guard !numbers.isEmpty, numbers.count % dimension == 0 else {
                throw FESError(.malformed, "gml:posList has \(numbers.count) numbers, not a multiple of srsDimension \(dimension)")
            }
            return stride(from: 0, to: numbers.count, by: dimension).map {
                Position(x: numbers[$0], y: numbers[$0 + 1], z: dimension == 3 ? numbers[$0 + 2] : nil)
            }
        }
        if let coordinates = node.child(named: "coordinates") {
            return try coordinates.text.split(whereSeparator: \.isWhitespace).map { tuple in
                let n = try numbers(tuple.replacingOccurrences(of: ",", with: " "), in: "gml:coordinates")
                guard n.count == 2 || n.count == 3 else { throw FESError(.malformed, "gml:coordinates tuple '\(tuple)' is not 2 or 3 numbers") }
                return Position(x: n[0], y: n[1], z: n.count == 3 ? n[2] : nil)
            }
        }
        let pos = node.children(named: "pos") + node.children(named: "pointProperty").compactMap { $0.child(named: "Point")?.child(named: "pos") }
        guard !pos.isEmpty else { throw FESError(.malformed, "\(node.qualifiedName) has no gml:pos, gml:posList or gml:coordinates") }
        return try pos.map(position)
    }

    private func position(_ node: XMLTree) throws -> Position {
        let n = try numbers(node.text, in: node.qualifiedName)
        guard n.count == 2 || n.count == 3 else { throw FESError(.malformed, "\(node.qualifiedName) '\(node.text)' is not 2 or 3 numbers") }
        return Position(x: n[0], y: n[1], z: n.count == 3 ? n[2] : nil)
    }

    private func numbers(_ text: String, in name: String) throws -> [Double] {
        try text.split(whereSeparator: \.isWhitespace).map {
            guard let d = Double($0), d.isFinite else { throw FESError(.malformed, "\(name): '\($0)' is not a number") }
            return d
        }
    }
}
