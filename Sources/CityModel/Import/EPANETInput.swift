import EPANETFormat
import Foundation
import GeoCore

/// An EPANET 2 water network (`.inp`) read as the CIM water-supply layers: junctions, reservoirs
/// (水源) and tanks (水池) → water_nodes; pipes, pumps (水泵) and control valves (控制阀) →
/// water_mains, each link a line from its first node through its `[VERTICES]` to its second;
/// isolation valves, which EPANET models do not hold, from a separate table (`valves`) → water_valves.
///
/// EPANET holds no pipe material (`未知`) or pressure zone (its `[TAGS]` category when it has one,
/// else empty). Coordinates are in a projected CRS (`crs`), or in local metres placed with (0, 0)
/// at `origin`.
public struct EPANETInput: Sendable {
    public let file: URL
    public let model: EPANETModel

    /// Reads `file`.
    /// - Throws: `ImportError` naming the line and field the reader rejected.
    public init(file: URL) throws {
        self.file = file
        do { model = try EPANETModel(contentsOf: file) } catch let e as EPANETInputError {
            var reason = e.reason
            if let section = e.section, e.field != nil { reason = "in [\(section)], " + reason }
            throw ImportError(e.field == nil ? .malformed : .invalidValue, file: file.lastPathComponent,
                              location: e.line.map { "line \($0)" }, field: e.field ?? e.section, reason)
        }
    }

    /// An isolation valve as a utility's valve table has it (wntr's valve layer: the link it sits
    /// on and the node it is next to), with its normal status.
    public struct IsolationValve: Sendable, Hashable {
        public var id: String
        public var link: String
        public var node: String
        public var normallyClosed: Bool

        public init(id: String, link: String, node: String, normallyClosed: Bool = false) {
            self.id = id
            self.link = link
            self.node = node
            self.normallyClosed = normallyClosed
        }
    }

    /// The water-supply layers, in `crs` (or in local metres placed at `origin`, EPSG:4490 degrees).
    /// - Parameter valves: isolation valves; each is placed on its link, 1 m from its node (or at
    ///   a third of the link's length when it is shorter than 3 m).
    /// - Throws: `ImportError` naming the object of a node without coordinates, or a valve on an
    ///   unknown link or next to a node its link does not end at.
    public func network(origin: Position? = nil, crs: CoordinateReferenceSystem = .districtMetric,
                        valves: [IsolationValve] = []) throws -> NetworkImport {
        let name = file.lastPathComponent
        var shift = Position(x: 0, y: 0)
        if let origin {
            do { shift = try CoordinateTransformer.shared(from: .cgcs2000, to: crs).transform(origin) } catch {
                throw ImportError(.crs, file: name, field: "origin", "cannot place the origin in \(crs): \(error)")
            }
        }
        func place(_ c: EPANETModel.Coordinate) -> Position { Position(x: c.x + shift.x, y: c.y + shift.y) }
        func located(_ node: String, _ object: String) throws -> Position {
            guard let c = model.coordinates[node] else {
                throw ImportError(.danglingReference, file: name, location: object, field: "COORDINATES", "node \(node) has no [COORDINATES] entry")
            }
            return place(c)
        }
        func zone(node id: String) -> JSONValue { .string(model.nodeTags[id] ?? "") }

        var nodes: [SourceRecord] = []
        for j in model.junctions {
            nodes.append(SourceRecord(location: "[JUNCTIONS] \(j.id)", feature: Feature(
                id: .string(j.id), geometry: .point(Point(try located(j.id, "[JUNCTIONS] \(j.id)"))),
                properties: ["node_type": "节点", "name": .string(j.id), "elevation_m": .number(j.elevation),
                             "base_demand_ls": .number(j.baseDemand), "pressure_zone": zone(node: j.id)])))
        }
        for r in model.reservoirs {
            nodes.append(SourceRecord(location: "[RESERVOIRS] \(r.id)", feature: Feature(
                id: .string(r.id), geometry: .point(Point(try located(r.id, "[RESERVOIRS] \(r.id)"))),
                properties: ["node_type": "水源", "name": .string(r.id), "elevation_m": .number(r.head), "head_m": .number(r.head),
                             "base_demand_ls": 0, "pressure_zone": zone(node: r.id)])))
        }
        for t in model.tanks {
            nodes.append(SourceRecord(location: "[TANKS] \(t.id)", feature: Feature(
                id: .string(t.id), geometry: .point(Point(try located(t.id, "[TANKS] \(t.id)"))),
                properties: ["node_type": "水池", "name": .string(t.id), "elevation_m": .number(t.elevation), "base_demand_ls": 0,
                             "tank_diameter_m": .number(t.diameter), "tank_max_level_m": .number(t.maximumLevel),
                             "pressure_zone": zone(node: t.id)])))
        }

        var geometries: [String: [Position]] = [:]
        func line(_ id: String, _ node1: String, _ node2: String, _ object: String) throws -> Geometry {
            let points = [try located(node1, object)] + (model.vertices[id] ?? []).map(place) + [try located(node2, object)]
            geometries[id] = points
            return .lineString(LineString(points))
        }
        func link(_ id: String, _ node1: String, _ node2: String) -> [String: JSONValue] {
            ["from_node": .string(node1), "to_node": .string(node2), "material": "未知",
             "pressure_zone": .string(model.linkTags[id] ?? model.nodeTags[node1] ?? "")]
        }
        let status: [EPANETModel.LinkStatus: JSONValue] = [.open: "开", .closed: "关", .checkValve: "止回"]
        var mains: [SourceRecord] = []
        for p in model.pipes {
            var properties = link(p.id, p.node1, p.node2)
            properties["link_type"] = "管道"
            properties["diameter_mm"] = .integer(Int64(p.diameter.rounded()))
            properties["length_m"] = .number(p.length)
            properties["initial_status"] = status[p.status]
            if model.headloss == .hazenWilliams {
                properties["hazen_williams_c"] = .number(p.roughness)
            } else {
                properties["roughness"] = .number(p.roughness)
                properties["roughness_formula"] = .string(model.headloss.rawValue)
            }
            mains.append(SourceRecord(location: "[PIPES] \(p.id)", feature: Feature(
                id: .string(p.id), geometry: try line(p.id, p.node1, p.node2, "[PIPES] \(p.id)"), properties: properties)))
        }
        for p in model.pumps {
            var properties = link(p.id, p.node1, p.node2)
            properties["link_type"] = "水泵"
            properties["diameter_mm"] = 0
            properties["initial_status"] = status[p.status]
            if let curve = p.headCurve { properties["pump_head_curve"] = .string(curve) }
            if let power = p.power { properties["pump_power_kw"] = .number(power) }
            let geometry = try line(p.id, p.node1, p.node2, "[PUMPS] \(p.id)")
            properties["length_m"] = .number(0)
            mains.append(SourceRecord(location: "[PUMPS] \(p.id)", feature: Feature(id: .string(p.id), geometry: geometry, properties: properties)))
        }
        for v in model.valves {
            var properties = link(v.id, v.node1, v.node2)
            properties["link_type"] = "控制阀"
            properties["diameter_mm"] = .integer(Int64(v.diameter.rounded()))
            properties["length_m"] = .number(0)
            properties["valve_type"] = .string(v.type.rawValue)
            if v.type != .gpv { properties["valve_setting"] = .number(v.setting) }
            if let fixed = v.fixedStatus { properties["initial_status"] = status[fixed] }
            mains.append(SourceRecord(location: "[VALVES] \(v.id)", feature: Feature(
                id: .string(v.id), geometry: try line(v.id, v.node1, v.node2, "[VALVES] \(v.id)"), properties: properties)))
        }

        let ends = Dictionary(model.links.map { ($0.id, ($0.node1, $0.node2)) }, uniquingKeysWith: { a, _ in a })
        let diameters = Dictionary(model.pipes.map { ($0.id, $0.diameter) }, uniquingKeysWith: { a, _ in a })
        var isolation: [SourceRecord] = []
        for (k, v) in valves.enumerated() {
            let location = "valve \(k + 1)"
            guard let (node1, node2) = ends[v.link], let points = geometries[v.link] else {
                throw ImportError(.danglingReference, file: name, location: location, field: "link", "the model has no link \(v.link)")
            }
            guard v.node == node1 || v.node == node2 else {
                throw ImportError(.danglingReference, file: name, location: location, field: "node",
                                  "link \(v.link) runs from \(node1) to \(node2), not from \(v.node)")
            }
            let along = Geometry.lineString(LineString(v.node == node1 ? points : Array(points.reversed())))
            let position: Position
            do {
                let length = try along.length
                position = length > 0 ? try along.interpolate(distance: length < 3 ? length / 3 : 1) : points[0]
            } catch {
                throw ImportError(.invalidGeometry, file: name, location: location, field: "link", "cannot place the valve on link \(v.link): \(error)")
            }
            isolation.append(SourceRecord(location: location, feature: Feature(
                id: .string(v.id), geometry: .point(Point(position)),
                properties: ["main": .string(v.link), "near_node": .string(v.node),
                             "diameter_mm": .integer(Int64((diameters[v.link] ?? 0).rounded())),
                             "status": v.normallyClosed ? "常闭" : "常开"])))
        }
        var layers: [(id: String, records: [SourceRecord])] = [("water_nodes", nodes), ("water_mains", mains)]
        if !isolation.isEmpty { layers.append(("water_valves", isolation)) }
        return NetworkImport(file: name, crs: crs, layers: layers)
    }
}

extension EPANETInput {
    /// Isolation valves from a CSV table as wntr writes its valve layer (`valve_layer.to_csv()`:
    /// an unnamed index column, `link`, `node`), or with an `id` column; an optional `status`
    /// column marks normally closed valves (`常闭`, `closed`).
    /// - Throws: `ImportError` naming the row and column of a missing link or node.
    public static func isolationValves(csv file: URL, encoding: TextEncoding = .utf8) throws -> [IsolationValve] {
        let name = file.lastPathComponent
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw ImportError(.unreadable, file: name, "cannot read the file")
        }
        guard let text = encoding.decode(data) else {
            throw ImportError(.malformed, file: name, "the text is not valid \(encoding.rawValue) (give --encoding)")
        }
        var rows = CSVRows(text: text)
        var header: [String]?
        var valves: [IsolationValve] = []
        do {
            while let row = try rows.next() {
                guard row != [""] else { continue }
                guard let columns = header else {
                    header = row.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                    continue
                }
                func value(_ names: [String]) -> String? {
                    for n in names { if let k = columns.firstIndex(of: n), k < row.count, !row[k].isEmpty { return row[k] } }
                    return nil
                }
                let place = "row \(valves.count + 1)"
                guard let link = value(["link", "main"]) else { throw ImportError(.invalidValue, file: name, location: place, field: "link", "is missing") }
                guard let node = value(["node", "near_node"]) else { throw ImportError(.invalidValue, file: name, location: place, field: "node", "is missing") }
                let id = value(["id", "valve", ""]).map { Int($0) != nil ? "V\($0)" : $0 } ?? "V\(valves.count)"
                let status = value(["status"])?.lowercased()
                valves.append(IsolationValve(id: id, link: link, node: node, normallyClosed: status == "常闭" || status == "closed"))
            }
        } catch let failure as CSVSyntaxFailure {
            throw ImportError(.malformed, file: name, location: "line \(rows.line)", failure.reason)
        }
        return valves
    }
}
