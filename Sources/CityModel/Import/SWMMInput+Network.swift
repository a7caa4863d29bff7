import Foundation
import GeoCore
import SWMMFormat

extension SWMMInput {
    /// The model's drainage layers, in `crs` (or in local metres placed with (0, 0) at `origin`,
    /// EPSG:4490 degrees, through `crs`).
    ///
    /// Each record, and each error found here after reading, is placed by the line that defined
    /// its object (`line 12`; by section and name, `[CONDUITS] C1`, if the line is unknown).
    /// - Parameter system: the drainage system code given to manholes, outfalls and pipes (YS, WS, HS).
    /// - Throws: `ImportError` naming the object and field of a node without coordinates, a
    ///   subcatchment without an outline, a conduit at a flow divider, a conduit with zero
    ///   roughness, or a conduit cross-section other than CIRCULAR, FORCE_MAIN or RECT_CLOSED.
    public func network(origin: Position? = nil, crs: CoordinateReferenceSystem = .districtMetric,
                        system: String = "YS") throws -> NetworkImport {
        let name = file.lastPathComponent
        // The line that defined the object (`line 12`), as the reader's own errors say it.
        func place(_ section: String, _ object: String) -> String {
            let line: Int? = switch section {
            case "JUNCTIONS", "OUTFALLS", "STORAGE": lines.node(object)
            case "CONDUITS", "PUMPS": lines.link(object)
            case "SUBCATCHMENTS": lines.subcatchment(object)
            case "XSECTIONS": lines.crossSection(object)
            default: nil
            }
            return line.map { "line \($0)" } ?? "[\(section)] \(object)"
        }
        func fail(_ code: ImportError.Code, _ section: String, _ object: String, _ field: String?, _ why: String) -> ImportError {
            ImportError(code, file: name, location: place(section, object), field: field, why)
        }
        let length = model.units.length                  // ft or m → m
        let area = model.units.landArea / 10_000         // acre or ha → ha
        var shift = Position(x: 0, y: 0)
        if let origin {
            do { shift = try CoordinateTransformer.shared(from: .cgcs2000, to: crs).transform(origin) } catch {
                throw ImportError(.crs, file: name, field: "origin", "cannot place the origin in \(crs): \(error)")
            }
        }
        func position(_ p: SWMMMapPoint) -> Position { Position(x: p.x + shift.x, y: p.y + shift.y) }
        var coordinates: [String: Position] = [:]
        for p in model.coordinates { coordinates[p.name] = position(p) }
        var vertices: [String: [Position]] = [:]
        for p in model.vertices { vertices[p.name, default: []].append(position(p)) }
        var polygons: [String: [Position]] = [:]
        for p in model.polygons { polygons[p.name, default: []].append(position(p)) }
        func located(_ node: String, _ section: String, _ object: String, _ field: String) throws -> Position {
            guard let p = coordinates[node] else {
                throw fail(.danglingReference, section, object, field, "node \(node) has no [COORDINATES] entry")
            }
            return p
        }

        // Nodes: invert elevation in metres, by name.
        var inverts: [String: Double] = [:]
        var manholes: [SourceRecord] = [], outfalls: [SourceRecord] = [], storage: [SourceRecord] = []
        for j in model.junctions {
            let invert = j.elevation * length
            let depth = j.maxDepth * length
            inverts[j.name] = invert
            manholes.append(SourceRecord(location: place("JUNCTIONS", j.name), feature: Feature(
                id: .string(j.name), geometry: .point(Point(try located(j.name, "JUNCTIONS", j.name, "Name"))),
                properties: ["system": .string(system), "rim_elevation_m": .number(invert + depth),
                             "invert_elevation_m": .number(invert), "depth_m": .number(depth),
                             "well_shape": "圆形", "road": "", "subsidiary": "检查井"])))
        }
        for o in model.outfalls {
            let invert = o.elevation * length
            inverts[o.name] = invert
            outfalls.append(SourceRecord(location: place("OUTFALLS", o.name), feature: Feature(
                id: .string(o.name), geometry: .point(Point(try located(o.name, "OUTFALLS", o.name, "Name"))),
                properties: ["name": .string(o.name), "system": .string(system), "invert_elevation_m": .number(invert),
                             "receiving_water": "", "outfall_type": .string(o.boundary.keyword), "flap_gate": .bool(o.gated)])))
        }
        for s in model.storage {
            let invert = s.elevation * length
            let depth = s.maxDepth * length
            inverts[s.name] = invert
            // Surface area: FUNCTIONAL A = a·d^b + c evaluated at half depth; curves and the
            // SWMM 5.2 shapes are not read, so their footprint defaults to 100 m².
            var surface = 100.0
            if let a = s.functionalArea(depth: s.maxDepth / 2), a > 0 { surface = a * model.units.area }
            let half = surface.squareRoot() / 2
            let p = try located(s.name, "STORAGE", s.name, "Name")
            let ring = [Position(x: p.x - half, y: p.y - half), Position(x: p.x + half, y: p.y - half),
                        Position(x: p.x + half, y: p.y + half), Position(x: p.x - half, y: p.y + half),
                        Position(x: p.x - half, y: p.y - half)]
            storage.append(SourceRecord(location: place("STORAGE", s.name), feature: Feature(
                id: .string(s.name), geometry: .polygon(ring),
                properties: ["name": .string(s.name), "kind": "调蓄池", "volume_m3": .number(surface * depth),
                             "node": .string(s.name), "bottom_elevation_m": .number(invert)])))
        }

        // Subcatchments, and the area draining to each node (for pipe catchments).
        var localArea: [String: Double] = [:]
        var subcatchments: [SourceRecord] = []
        for s in model.subcatchments {
            let ha = s.area * area
            localArea[s.outlet, default: 0] += ha
            guard var ring = polygons[s.name], ring.count >= 3 else {
                throw fail(.invalidGeometry, "SUBCATCHMENTS", s.name, "Name", "subcatchment \(s.name) has no outline in [POLYGONS]")
            }
            if ring.first != ring.last, let first = ring.first { ring.append(first) }
            if Polygon.doubledSignedArea(ofRing: ring) < 0 { ring.reverse() }
            // ψ: 0.90 on impervious, 0.15 on pervious surfaces (GB 50014 table values for roofs/roads and lawns).
            let psi = (0.90 * s.percentImpervious + 0.15 * (100 - s.percentImpervious)) / 100
            subcatchments.append(SourceRecord(location: place("SUBCATCHMENTS", s.name), feature: Feature(
                id: .string(s.name), geometry: .polygon(ring),
                properties: ["area_ha": .number(ha), "imperviousness_pct": .number(s.percentImpervious),
                             "slope_pct": .number(s.percentSlope), "width_m": .number(s.width * length),
                             "outlet_node": .string(s.outlet), "runoff_coefficient": .number(psi)])))
        }

        // Conduits: the reader has checked that each has a cross section and existing end nodes.
        let crossSections = Dictionary(model.crossSections.map { ($0.link, $0) }) { first, _ in first }
        let conduits = model.conduits
        // Upstream area per link: the area draining to its upstream node plus every link entering it.
        var entering: [String: [Int]] = [:]
        for (i, c) in conduits.enumerated() { entering[c.toNode, default: []].append(i) }
        var catchment = [Double?](repeating: nil, count: conduits.count)
        func upstream(_ i: Int, _ visiting: inout Set<Int>) -> Double {
            if let c = catchment[i] { return c }
            guard visiting.insert(i).inserted else { return 0 }      // a loop: count its area once
            var total = localArea[conduits[i].fromNode] ?? 0
            for j in entering[conduits[i].fromNode] ?? [] { total += upstream(j, &visiting) }
            catchment[i] = total
            return total
        }
        var pipes: [SourceRecord] = []
        for (i, c) in conduits.enumerated() {
            guard let xs = crossSections[c.name] else {
                throw fail(.danglingReference, "CONDUITS", c.name, "Name", "conduit \(c.name) has no [XSECTIONS] entry")
            }
            let geom2 = xs.geometry.count > 1 ? xs.geometry[1] : 0
            guard let section = SewerSection(swmmShape: xs.shape, geom1: xs.depth * length, geom2: geom2 * length) else {
                throw fail(.unsupported, "XSECTIONS", c.name, "Shape", "cross-section \(xs.shape) is not CIRCULAR or RECT_CLOSED")
            }
            let lengthM = c.length * length
            let n = c.roughness
            var inOffset = c.inletOffset * length
            var outOffset = c.outletOffset * length
            for (node, field) in [(c.fromNode, "FromNode"), (c.toNode, "ToNode")] where inverts[node] == nil {
                throw fail(.unsupported, "CONDUITS", c.name, field, "node \(node) is a flow divider, which the drainage layers do not hold")
            }
            let upInvert = inverts[c.fromNode] ?? 0, downInvert = inverts[c.toNode] ?? 0
            if model.offsetsAreElevations { inOffset -= upInvert; outOffset -= downInvert }
            guard n > 0 else { throw fail(.invalidValue, "CONDUITS", c.name, "Roughness", "must be positive") }
            let path = [try located(c.fromNode, "CONDUITS", c.name, "FromNode")] + (vertices[c.name] ?? [])
                + [try located(c.toNode, "CONDUITS", c.name, "ToNode")]
            let slope = ((upInvert + inOffset) - (downInvert + outOffset)) / lengthM
            var visiting = Set<Int>()
            var properties = section.pipeProperties
            properties.merge([
                "system": .string(system), "material": .string(SewerSection.material(manningN: n)), "manning_n": .number(n),
                "upstream_node": .string(c.fromNode), "downstream_node": .string(c.toNode),
                "inlet_offset_m": .number(inOffset), "outlet_offset_m": .number(outOffset), "flow_dir": "+",
                "length_m": .number(lengthM), "slope": .number(slope),
                // The .inp carries no design storm: design flow is unknown (0); capacity is full-pipe Manning.
                "design_flow_ls": .number(0),
                "capacity_ls": .number(section.fullCapacity(slope: abs(slope), manningN: n) * 1000),
                "catchment_ha": .number(upstream(i, &visiting)),
            ]) { $1 }
            pipes.append(SourceRecord(location: place("CONDUITS", c.name),
                                      feature: Feature(id: .string(c.name), geometry: .lineString(path), properties: properties)))
        }

        var pumps: [SourceRecord] = []
        for p in model.pumps {
            pumps.append(SourceRecord(location: place("PUMPS", p.name), feature: Feature(
                id: .string(p.name), geometry: .point(Point(try located(p.fromNode, "PUMPS", p.name, "FromNode"))),
                properties: ["name": .string(p.name), "capacity_m3s": .number(0), "pump_count": .integer(1),
                             "inlet_node": .string(p.fromNode), "outfall": .string(p.toNode),
                             "start_level_m": .number(p.startupDepth * length), "stop_level_m": .number(p.shutoffDepth * length)])))
        }
        return NetworkImport(file: name, crs: crs, layers: [
            ("drainage_manholes", manholes), ("drainage_outfalls", outfalls), ("drainage_storage", storage),
            ("drainage_pipes", pipes), ("drainage_pumps", pumps), ("subcatchments", subcatchments),
        ])
    }
}
