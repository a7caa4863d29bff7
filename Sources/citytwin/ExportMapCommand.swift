import ArgumentParser
import Foundation
import Server
import TwinStore

/// `citytwin export map OUT.pdf --bbox …`: a printed map (the page of `GET /map/print`) to a file.
struct ExportMapCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "map",
        abstract: "Print a map to a PDF or PNG page: title, legend, scale bar, north arrow, date, sources (as GET /map/print).",
        discussion: """
            The page shows what the public may read, or with --department what that department's viewers may; \
            the format follows the output's extension (.pdf or .png).
            """)

    @Argument(help: "The page to write: a .pdf or .png file (must not exist).")
    var output: String
    @Option(help: "The area: minx,miny,maxx,maxy in --bbox-crs (default CRS84: lon,lat).")
    var bbox: String
    @Option(help: "The CRS of --bbox (an OGC URI or EPSG:n).")
    var bboxCrs: String?
    @Option(help: "Comma-separated layer ids, drawn in the web map's order.")
    var layers: String?
    @Option(help: "A flood run id (citytwin flood-runs list): its depth and cut-off resources.")
    var run: String?
    @Option(help: "The map's title.")
    var title: String?
    @Option(help: "The map's CRS (default EPSG:3857).")
    var crs: String?
    @Option(help: "A4 or A3.")
    var paper: String?
    @Option(help: "landscape or portrait.")
    var orientation: String?
    @Option(help: "Pixels per inch of a PNG page (72…300).")
    var dpi: Int?
    @Option(help: "Print as a viewer of this department (default: the public, 公开).")
    var department: String?

    @OptionGroup var storeOption: StoreOption

    func run() async throws {
        let format = (output as NSString).pathExtension.lowercased()
        guard ["pdf", "png"].contains(format) else { throw ValidationError("\(output): the page is written as .pdf or .png") }
        guard !FileManager.default.fileExists(atPath: output) else { throw ValidationError("\(output) already exists") }
        var query = URLComponents()
        let options: [(String, String?)] = [("bbox", bbox), ("bbox-crs", bboxCrs), ("layers", layers), ("run", run), ("title", title),
                                            ("crs", crs), ("format", format), ("paper", paper), ("orientation", orientation),
                                            ("dpi", dpi.map(String.init))]
        query.queryItems = options.compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
        let store = try await StoreLocation(storeOption.path).openExisting()
        let caller: Caller = department.map { .department(name: $0, role: .viewer) } ?? .anonymous
        let page = try await CityTwinServer(store: store).printedMap(query: (query.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B"), caller: caller)
        try Data(page.bytes).write(to: URL(fileURLWithPath: output))
        print("\(output): \(page.mediaType), \(page.bytes.count) bytes")
    }
}
