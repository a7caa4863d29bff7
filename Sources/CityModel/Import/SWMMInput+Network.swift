import Foundation
import GeoCore

extension SWMMInput {
    /// The model's drainage layers, in `crs` (or in local metres placed with (0, 0) at `origin`,
    /// EPSG:4490 degrees, through `crs`).
    /// - Parameter system: the drainage system code given to manholes, outfalls and pipes (YS, WS, HS).
    /// - Throws: `ImportError` naming the line and column of a bad number, an unknown node, a node
    ///   without coordinates, or an unsupported cross-section shape.
    public func network(origin: Position? = nil, crs: CoordinateReferenceSystem = CoordinateReferenceSystem(epsg: 4547),
                        system: String = "YS") throws -> NetworkImport {
        let name = file.lastPathComponent
        func fail(_ code: ImportError.Code, _ line: Line, _ field: String?, _ why: String) -> ImportError {
            ImportError(code, file: name, location: line.location, field: field, why)
        }
        let length = usesUSUnits ? 0.3048 : 1.0          // ft → m
        let area = usesUSUnits ? 0.40468564224 : 1.0     // acre → ha
        var shift = Position(x: 0, y: 0)
        if let origin {
            do { shift = try CoordinateTransformer.shared(from: .cgcs2000, to: crs).transform(origin) } catch {
                throw ImportError(.crs, file: name, field: "origin", "cannot place the origin in \(crs): \(error)")
            }
        }
        var coordinates: [String: Position] = [:]
        for line in lines("COORDINATES") {
            coordinates[try token(line, 0, "Node")] = Position(x: try number(line, 1, "X-Coord") + shift.x,
                                                                y: try number(line, 2, "Y-Coord") + shift.y)
        }
        var vertices: [String: [Position]] = [:]
        for line in lines("VERTICES") {
            vertices[try token(line, 0, "Link"), default: []].append(
                Position(x: try number(line, 1, "X-Coord") + shift.x, y: try number(line, 2, "Y-Coord") + shift.y))
        }
        var polygons: [String: [Position]] = [:]
        for line in lines("POLYGONS") {
            polygons[try token(line, 0, "Subcatchment"), default: []].append(
                Position(x: try number(line, 1, "X-Coord") + shift.x, y: try number(line, 2, "Y-Coord") + shift.y))
        }
        func place(_ node: String, _ line: Line, _ column: String) throws -> Position {
            guard let p = coordinates[node] else { throw fail(.danglingReference, line, column, "node \(node) has no [COORDINATES] entry") }
            return p
        }

        // Nodes: invert elevation in metres, by name.
        var inverts: [String: Double] = [:]
        var manholes: [SourceRecord] = [], outfalls: [SourceRecord] = [], storage: [SourceRecord] = []
        for line in lines("JUNCTIONS") {
            let id = try token(line, 0, "Name")
            let invert = try number(line, 1, "Elevation") * length
            let depth = try number(line, 2, "MaxDepth") * length
            inverts[id] = invert
            manholes.append(SourceRecord(location: line.location, feature: Feature(
                id: .string(id), geometry: .point(Point(try place(id, line, "Name"))),
                properties: ["system": .string(system), "rim_elevation_m": .number(invert + depth),
                             "invert_elevation_m": .number(invert), "depth_m": .number(depth),
                             "well_shape": "圆形", "road": "", "subsidiary": "检查井"])))
        }
        for line in lines("OUTFALLS") {
            let id = try token(line, 0, "Name")
            let invert = try number(line, 1, "Elevation") * length
            let type = try token(line, 2, "Type").uppercased()
            let gatedAt = (type == "FREE" || type == "NORMAL") ? 3 : 4
            let gated = line.tokens.count > gatedAt ? line.tokens[gatedAt].uppercased() == "YES" : false
            inverts[id] = invert
            outfalls.append(SourceRecord(location: line.location, feature: Feature(
                id: .string(id), geometry: .point(Point(try place(id, line, "Name"))),
                properties: ["name": .string(id), "system": .string(system), "invert_elevation_m": .number(invert),
                             "receiving_water": "", "outfall_type": .string(type), "flap_gate": .bool(gated)])))
        }
        for line in lines("STORAGE") {
            let id = try token(line, 0, "Name")
            let invert = try number(line, 1, "Elev.") * length
            let depth = try number(line, 2, "MaxDepth") * length
            inverts[id] = invert
            // Surface area: FUNCTIONAL A = a·d^b + c evaluated at half depth; TABULAR curves are
            // not read, so their footprint defaults to 100 m².
            var surface = 100.0
            if try token(line, 4, "Shape").uppercased() == "FUNCTIONAL" {
                let a = try number(line, 5, "Coeff"), b = try number(line, 6, "Exponent"), c = try number(line, 7, "Constant")
                let s = (a * pow(depth / length / 2, b) + c) * length * length
                if s > 0 { surface = s }
            }
            let half = surface.squareRoot() / 2
            let p = try place(id, line, "Name")
            let ring = [Position(x: p.x - half, y: p.y - half), Position(x: p.x + half, y: p.y - half),
                        Position(x: p.x + half, y: p.y + half), Position(x: p.x - half, y: p.y + half),
                        Position(x: p.x - half, y: p.y - half)]
            storage.append(SourceRecord(location: line.location, feature: Feature(
                id: .string(id), geometry: .polygon(ring),
                properties: ["name": .string(id), "kind": "调蓄池", "volume_m3": .number(surface * depth),
                             "node": .string(id), "bottom_elevation_m": .number(invert)])))
        }

        // Subcatchments, and the area draining to each node (for pipe catchments).
        var localArea: [String: Double] = [:]
        var subcatchments: [SourceRecord] = []
        for line in lines("SUBCATCHMENTS") {
            let id = try token(line, 0, "Name")
            let outlet = try token(line, 2, "Outlet")
            let ha = try number(line, 3, "Area") * area
            let imperv = try number(line, 4, "%Imperv")
            let width = try number(line, 5, "Width") * length
            let slope = try number(line, 6, "%Slope")
            localArea[outlet, default: 0] += ha
            guard var ring = polygons[id], ring.count >= 3 else {
                throw fail(.invalidGeometry, line, "Name", "subcatchment \(id) has no outline in [POLYGONS]")
            }
            if ring.first != ring.last, let first = ring.first { ring.append(first) }
            if ShapeGeometry.signedArea(ring) < 0 { ring.reverse() }
            // ψ: 0.90 on impervious, 0.15 on pervious surfaces (GB 50014 table values for roofs/roads and lawns).
            let psi = (0.90 * imperv + 0.15 * (100 - imperv)) / 100
            subcatchments.append(SourceRecord(location: line.location, feature: Feature(
                id: .string(id), geometry: .polygon(ring),
                properties: ["area_ha": .number(ha), "imperviousness_pct": .number(imperv), "slope_pct": .number(slope),
                             "width_m": .number(width), "outlet_node": .string(outlet), "runoff_coefficient": .number(psi)])))
        }

        // Conduits.
        var sections: [String: (line: Line, section: SewerSection)] = [:]
        for line in lines("XSECTIONS") {
            let link = try token(line, 0, "Link")
            let shape = try token(line, 1, "Shape")
            guard let s = SewerSection(swmmShape: shape, geom1: try number(line, 2, "Geom1") * length,
                                       geom2: line.tokens.count > 3 ? try number(line, 3, "Geom2") * length : 0) else {
                if shape.uppercased() == "DUMMY" || shape.uppercased() == "IRREGULAR" { continue }
                throw fail(.unsupported, line, "Shape", "cross-section \(shape) is not CIRCULAR or RECT_CLOSED")
            }
            sections[link] = (line, s)
        }
        let offsetsAreElevations = option("LINK_OFFSETS")?.uppercased() == "ELEVATION"
        struct Link { var id: String; var from: String; var to: String; var line: Line }
        var links: [Link] = []
        for line in lines("CONDUITS") {
            links.append(Link(id: try token(line, 0, "Name"), from: try token(line, 1, "From Node"), to: try token(line, 2, "To Node"), line: line))
        }
        // Upstream area per link: the area draining to its upstream node plus every link entering it.
        var entering: [String: [Int]] = [:]
        for (i, l) in links.enumerated() { entering[l.to, default: []].append(i) }
        var catchment = [Double?](repeating: nil, count: links.count)
        func upstream(_ i: Int, _ visiting: inout Set<Int>) -> Double {
            if let c = catchment[i] { return c }
            guard visiting.insert(i).inserted else { return 0 }      // a loop: count its area once
            var total = localArea[links[i].from] ?? 0
            for j in entering[links[i].from] ?? [] { total += upstream(j, &visiting) }
            catchment[i] = total
            return total
        }
        var pipes: [SourceRecord] = []
        for (i, l) in links.enumerated() {
            let line = l.line
            let lengthM = try number(line, 3, "Length") * length
            let n = try number(line, 4, "Roughness")
            var inOffset = try number(line, 5, "InOffset") * length
            var outOffset = try number(line, 6, "OutOffset") * length
            guard let upInvert = inverts[l.from] else { throw fail(.danglingReference, line, "From Node", "no node \(l.from)") }
            guard let downInvert = inverts[l.to] else { throw fail(.danglingReference, line, "To Node", "no node \(l.to)") }
            if offsetsAreElevations { inOffset -= upInvert; outOffset -= downInvert }
            guard let xs = sections[l.id] else { throw fail(.danglingReference, line, "Name", "conduit \(l.id) has no [XSECTIONS] entry") }
            guard lengthM > 0, n > 0 else { throw fail(.invalidValue, line, lengthM > 0 ? "Roughness" : "Length", "must be positive") }
            let path = [try place(l.from, line, "From Node")] + (vertices[l.id] ?? []) + [try place(l.to, line, "To Node")]
            let slope = ((upInvert + inOffset) - (downInvert + outOffset)) / lengthM
            var visiting = Set<Int>()
            var properties = xs.section.pipeProperties
            properties.merge([
                "system": .string(system), "material": .string(SewerSection.material(manningN: n)), "manning_n": .number(n),
                "upstream_node": .string(l.from), "downstream_node": .string(l.to),
                "inlet_offset_m": .number(inOffset), "outlet_offset_m": .number(outOffset), "flow_dir": "+",
                "length_m": .number(lengthM), "slope": .number(slope),
                // The .inp carries no design storm: design flow is unknown (0); capacity is full-pipe Manning.
                "design_flow_ls": .number(0),
                "capacity_ls": .number(xs.section.fullCapacity(slope: abs(slope), manningN: n) * 1000),
                "catchment_ha": .number(upstream(i, &visiting)),
            ]) { $1 }
            pipes.append(SourceRecord(location: line.location, feature: Feature(id: .string(l.id), geometry: .lineString(path), properties: properties)))
        }

        var pumps: [SourceRecord] = []
        for line in lines("PUMPS") {
            let id = try token(line, 0, "Name")
            let from = try token(line, 1, "From Node"), to = try token(line, 2, "To Node")
            let start = line.tokens.count > 5 ? try number(line, 5, "Startup") * length : 0
            let stop = line.tokens.count > 6 ? try number(line, 6, "Shutoff") * length : 0
            pumps.append(SourceRecord(location: line.location, feature: Feature(
                id: .string(id), geometry: .point(Point(try place(from, line, "From Node"))),
                properties: ["name": .string(id), "capacity_m3s": .number(0), "pump_count": .integer(1),
                             "inlet_node": .string(from), "outfall": .string(to),
                             "start_level_m": .number(start), "stop_level_m": .number(stop)])))
        }
        return NetworkImport(file: name, crs: crs, layers: [
            ("drainage_manholes", manholes), ("drainage_outfalls", outfalls), ("drainage_storage", storage),
            ("drainage_pipes", pipes), ("drainage_pumps", pumps), ("subcatchments", subcatchments),
        ])
    }
}
