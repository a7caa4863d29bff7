import Flood
import Foundation
import GeoCore
import MapRendering

/// The parameters of `GET /map/print`, checked: each bad value is a 400 naming the parameter and
/// what it allows.
struct MapPrintRequest: Sendable {
    /// The box asked for, in the storage CRS (EPSG:4490 lon/lat).
    let storageBox: Envelope
    /// The map's CRS.
    let crs: CoordinateReferenceSystem
    let layers: [String]
    let run: String?
    let title: String
    let format: MapImageFormat
    let paper: PrintPaper
    let dpi: Int

    init(_ query: QueryParameters) throws {
        guard let bboxText = query["bbox"] else { throw Problem.invalid("bbox", "required: minx,miny,maxx,maxy of the area to print") }
        let bboxCRS = try query["bbox-crs"].map { try CRSParameter.parse($0, parameter: "bbox-crs") } ?? .crs84
        storageBox = try BBoxParameter.parse(bboxText, crs: bboxCRS).envelope
        guard storageBox.width > 0, storageBox.height > 0 else {
            throw Problem.invalid("bbox", "the box has no area: its minimum must be below its maximum on both axes")
        }
        crs = try query["crs"].map { try CRSParameter.parse($0, parameter: "crs") } ?? .webMercator
        let list = query["layers"] ?? ""
        let ids = list.isEmpty ? [] : list.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        if let empty = ids.firstIndex(of: "") { throw Problem.invalid("layers", "entry \(empty + 1) is empty: comma-separated collection ids") }
        guard ids.count <= MapPrintRoutes.maximumLayers else {
            throw Problem.invalid("layers", "names \(ids.count) layers; a page draws 1…\(MapPrintRoutes.maximumLayers)")
        }
        if let twice = ids.enumerated().first(where: { ids[..<$0.offset].contains($0.element) }) {
            throw Problem.invalid("layers", "names '\(twice.element)' twice")
        }
        layers = ids
        if let run = query["run"] {
            guard FloodRun.isValidID(run) else { throw Problem.invalid("run", "'\(run)' is no flood run id (<scenario>-<n>, as /flood-runs lists them)") }
        }
        run = query["run"]
        let title = (query["title"] ?? "专题图").trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...PrintedMap.maximumTitleLength).contains(title.count) else {
            throw Problem.invalid("title", "\(title.count) characters; a title has 1…\(PrintedMap.maximumTitleLength)")
        }
        guard !title.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw Problem.invalid("title", "contains a control character")
        }
        self.title = title
        switch (query["format"] ?? "pdf").lowercased() {
        case "pdf", "application/pdf": format = .pdf
        case "png", "image/png": format = .png
        case let other: throw Problem.invalid("format", "'\(other)' is not served: pdf or png")
        }
        let size = try Self.choice(query, "paper", PrintPaper.Size.a4) { text in PrintPaper.Size.allCases.first { $0.rawValue.lowercased() == text } }
        let orientation = try Self.choice(query, "orientation", PrintPaper.Orientation.landscape, PrintPaper.Orientation.init(rawValue:))
        paper = PrintPaper(size, orientation)
        if let text = query["dpi"] {
            guard format == .png else { throw Problem.invalid("dpi", "applies to format=png only (a PDF is vector)") }
            guard let dpi = Int(text), MapPrintRoutes.dpiRange.contains(dpi) else {
                throw Problem.invalid("dpi", "'\(text)' is not an integer in \(MapPrintRoutes.dpiRange.lowerBound)…\(MapPrintRoutes.dpiRange.upperBound)")
            }
            self.dpi = dpi
        } else {
            dpi = MapPrintRoutes.defaultDPI
        }
    }

    /// One of a closed set of values (case-insensitive), `fallback` when absent.
    private static func choice<T: RawRepresentable & CaseIterable>(_ query: QueryParameters, _ name: String, _ fallback: T,
                                                                     _ read: (String) -> T?) throws -> T where T.RawValue == String {
        guard let text = query[name] else { return fallback }
        guard let value = read(text.lowercased()) else {
            throw Problem.invalid(name, "'\(text)' is not one of \(T.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return value
    }
}
