import Foundation
import GeoCore

/// A drainage pipeline survey (管线普查) as two tables with the common template's field names:
/// the point table 管线点 (`Exp_No`, `X`, `Y`, `High`, `Subsid`, `WellDeep`, optional `WellShape`,
/// `Address`) and the line table 管线段 (`S_Exp`, `E_Exp`, `S_Deep`, `E_Deep`, `Material`, `PSize`,
/// `FlowDir`). It becomes a topological network: every pipe's ends are the positions of its
/// `S_Exp`/`E_Exp` points (snapped by number, not by distance), manholes in drainage_manholes,
/// 排放口/出水口 points in drainage_outfalls, pipes in drainage_pipes.
///
/// Elevations follow the reference mapping: a pipe end's invert (管内底) is the point's `High`
/// minus the end's burial depth; a manhole's invert is the lowest connected pipe invert, else
/// `High − WellDeep`. `PSize` `600` is a circular 600 mm pipe, `1000X800` a 1000 × 800 mm box.
/// `X` is the easting and `Y` the northing, in EPSG:4547 metres unless the caller says otherwise.
public struct PipelineSurvey {
    public let points: URL
    public let lines: URL
    public let system: String
    private let pointTable: SurveyTable
    private let lineTable: SurveyTable

    /// Reads both tables.
    /// - Parameter system: the drainage system code of the whole survey (YS 雨水, WS 污水, HS 合流).
    public init(points: URL, lines: URL, encoding: TextEncoding = .utf8, system: String = "YS") throws {
        self.points = points
        self.lines = lines
        self.system = system
        pointTable = try SurveyTable(file: points, encoding: encoding, required: ["Exp_No", "X", "Y", "High"])
        lineTable = try SurveyTable(file: lines, encoding: encoding, required: ["S_Exp", "E_Exp", "S_Deep", "E_Deep", "Material", "PSize"])
    }

    /// Manning n by pipe material (the layer schema's four materials and common survey spellings).
    static let materials: [String: (name: String, n: Double)] = [
        "钢筋混凝土": ("钢筋混凝土", 0.013), "混凝土": ("钢筋混凝土", 0.013), "砼": ("钢筋混凝土", 0.013), "钢筋砼": ("钢筋混凝土", 0.013),
        "HDPE": ("HDPE", 0.010), "球墨铸铁": ("球墨铸铁", 0.012), "铸铁": ("球墨铸铁", 0.012),
        "PVC-U": ("PVC-U", 0.009), "UPVC": ("PVC-U", 0.009), "PVC": ("PVC-U", 0.009),
    ]

    /// The network's layers in `crs`.
    /// - Throws: `ImportError` naming the table, row and field: a duplicate `Exp_No`, a line whose
    ///   `S_Exp`/`E_Exp` point is missing, a bad number, an unknown material or PSize.
    public func network(crs: CoordinateReferenceSystem = .districtMetric) throws -> NetworkImport {
        struct SurveyPoint { var row: SurveyTable.Row; var position: Position; var high: Double }
        var byNumber: [String: SurveyPoint] = [:]
        var order: [String] = []
        for row in pointTable.rows {
            let id = try row.text("Exp_No")
            guard byNumber[id] == nil else { throw row.fail(.invalidValue, "Exp_No", "point number \(id) appears twice") }
            byNumber[id] = SurveyPoint(row: row, position: Position(x: try row.number("X"), y: try row.number("Y")), high: try row.number("High"))
            order.append(id)
        }
        var lowestInvert: [String: Double] = [:]
        var pipes: [SourceRecord] = []
        for row in lineTable.rows {
            let from = try row.text("S_Exp"), to = try row.text("E_Exp")
            guard let a = byNumber[from] else { throw row.fail(.danglingReference, "S_Exp", "no point \(from) in \(points.lastPathComponent)") }
            guard let b = byNumber[to] else { throw row.fail(.danglingReference, "E_Exp", "no point \(to) in \(points.lastPathComponent)") }
            let upInvert = a.high - (try row.number("S_Deep")), downInvert = b.high - (try row.number("E_Deep"))
            let materialText = try row.text("Material")
            guard let material = Self.materials[materialText.uppercased()] ?? Self.materials[materialText] else {
                throw row.fail(.invalidValue, "Material", "unknown material \"\(materialText)\" (钢筋混凝土, HDPE, 球墨铸铁, PVC-U)")
            }
            let sizeText = try row.text("PSize")
            guard let section = SewerSection(surveySize: sizeText) else {
                throw row.fail(.invalidValue, "PSize", "\"\(sizeText)\" is not a size in mm (600 or 1000X800)")
            }
            let flow = (row.value("FlowDir") ?? "+").replacingOccurrences(of: "−", with: "-")
            guard flow == "+" || flow == "-" || flow.isEmpty else { throw row.fail(.invalidValue, "FlowDir", "FlowDir must be + or -, not \(flow)") }
            let dir = flow.isEmpty ? "+" : flow
            let dx = b.position.x - a.position.x, dy = b.position.y - a.position.y
            let length = (dx * dx + dy * dy).squareRoot()
            guard length > 0 else { throw row.fail(.invalidGeometry, "E_Exp", "points \(from) and \(to) are at the same position") }
            lowestInvert[from] = min(lowestInvert[from] ?? .infinity, upInvert)
            lowestInvert[to] = min(lowestInvert[to] ?? .infinity, downInvert)
            let slope = (dir == "+" ? 1.0 : -1.0) * (upInvert - downInvert) / length
            var properties = section.pipeProperties
            properties.merge([
                "system": .string(system), "material": .string(material.name), "manning_n": .number(material.n),
                "upstream_node": .string(from), "downstream_node": .string(to), "flow_dir": .string(dir),
                "length_m": .number(length), "slope": .number(slope),
                "design_flow_ls": .number(0), "capacity_ls": .number(section.fullCapacity(slope: abs(slope), manningN: material.n) * 1000),
                "catchment_ha": .number(0),
                "_up_invert": .number(upInvert), "_down_invert": .number(downInvert),
            ]) { $1 }
            pipes.append(SourceRecord(location: row.location, feature: Feature(
                id: .string("\(from)-\(to)"), geometry: .lineString([a.position, b.position]), properties: properties)))
        }
        var manholes: [SourceRecord] = [], outfalls: [SourceRecord] = []
        var inverts: [String: Double] = [:]
        for id in order {
            guard let p = byNumber[id] else { continue }
            let row = p.row
            let subsid = row.value("Subsid") ?? ""
            let invert: Double
            if let low = lowestInvert[id] {
                invert = low
            } else if let deep = row.value("WellDeep"), !deep.isEmpty {
                invert = p.high - (try row.number("WellDeep"))
            } else {
                throw row.fail(.invalidValue, "WellDeep", "point \(id) has no connected pipe and no WellDeep to place its invert")
            }
            inverts[id] = invert
            if subsid.contains("排放口") || subsid.contains("出水口") {
                outfalls.append(SourceRecord(location: row.location, feature: Feature(
                    id: .string(id), geometry: .point(Point(p.position)),
                    properties: ["name": .string(id), "system": .string(system), "invert_elevation_m": .number(invert),
                                 "receiving_water": .string(row.value("Address") ?? ""), "outfall_type": "FREE", "flap_gate": false])))
            } else {
                manholes.append(SourceRecord(location: row.location, feature: Feature(
                    id: .string(id), geometry: .point(Point(p.position)),
                    properties: ["system": .string(system), "rim_elevation_m": .number(p.high), "invert_elevation_m": .number(invert),
                                 "depth_m": .number(p.high - invert), "well_shape": .string(row.value("WellShape").flatMap { $0.isEmpty ? nil : $0 } ?? "圆形"),
                                 "road": .string(row.value("Address") ?? ""), "subsidiary": .string(subsid.isEmpty ? "检查井" : subsid)])))
            }
        }
        // Offsets: pipe invert above the node invert at each end.
        for i in pipes.indices {
            var props = pipes[i].feature.properties
            let up = props.removeValue(forKey: "_up_invert")?.doubleValue ?? 0
            let down = props.removeValue(forKey: "_down_invert")?.doubleValue ?? 0
            let from = props["upstream_node"]?.stringValue ?? "", to = props["downstream_node"]?.stringValue ?? ""
            props["inlet_offset_m"] = .number(up - (inverts[from] ?? up))
            props["outlet_offset_m"] = .number(down - (inverts[to] ?? down))
            pipes[i].feature.properties = props
        }
        return NetworkImport(file: lines.lastPathComponent, crs: crs, layers: [
            ("drainage_manholes", manholes), ("drainage_outfalls", outfalls), ("drainage_pipes", pipes),
        ])
    }
}

/// A survey CSV table read by column name; rows counted from 1 after the header.
struct SurveyTable {
    struct Row {
        var file: String
        var number: Int
        var values: [String: String]
        var location: String { "row \(number)" }

        func fail(_ code: ImportError.Code, _ field: String, _ why: String) -> ImportError {
            ImportError(code, file: file, location: location, field: field, why)
        }
        func value(_ field: String) -> String? { values[field]?.trimmingCharacters(in: .whitespaces) }
        func text(_ field: String) throws -> String {
            guard let v = value(field), !v.isEmpty else { throw fail(.invalidValue, field, "\(field) is empty") }
            return v
        }
        func number(_ field: String) throws -> Double {
            let t = try text(field)
            guard let d = Double(t), d.isFinite else { throw fail(.invalidValue, field, "\"\(t)\" is not a number") }
            return d
        }
    }

    var rows: [Row] = []

    init(file: URL, encoding: TextEncoding, required: [String]) throws {
        let name = file.lastPathComponent
        let data: Data
        do { data = try Data(contentsOf: file) } catch {
            throw ImportError(.unreadable, file: name, "cannot read the file: \(error.localizedDescription)")
        }
        guard let text = encoding.decode(data) else {
            throw ImportError(.malformed, file: name, "the file is not valid \(encoding.rawValue) text (try --encoding GBK)")
        }
        var csv = CSVRows(text: text)
        do {
            guard let header = try csv.next()?.map({ $0.trimmingCharacters(in: .whitespaces) }) else {
                throw ImportError(.malformed, file: name, "the file is empty: a header row is needed")
            }
            for field in required where !header.contains(field) {
                throw ImportError(.malformed, file: name, location: "header", field: field, "the column \(field) is missing")
            }
            var n = 0
            while let fields = try csv.next() {
                if fields.count == 1, fields[0].trimmingCharacters(in: .whitespaces).isEmpty { continue }
                n += 1
                guard fields.count == header.count else {
                    throw ImportError(.malformed, file: name, location: "row \(n)", "the row has \(fields.count) fields, the header \(header.count)")
                }
                rows.append(Row(file: name, number: n, values: Dictionary(zip(header, fields), uniquingKeysWith: { a, _ in a })))
            }
        } catch let e as CSVSyntaxFailure {
            throw ImportError(.malformed, file: name, e.reason)
        }
    }
}
