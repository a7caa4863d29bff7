import Flood
import Foundation
import GeoCore
import Hummingbird
import MapRendering
import TwinStore

/// `GET /map/print` (issue 55 §5): a printable map of a box — a PDF or PNG page (A4 or A3, either
/// way up) with a title, the map drawn from the web map's style, a legend of the drawn layers,
/// a scale bar measured on the ground, a north arrow to true north, the date, the data's sources
/// and whom it was made for (`PrintedMap`). `run` adds a flood run's depth and cut-off
/// resources. The caller's access rules apply as to every output: a layer it may not read is
/// refused (401/403), and labels show attributes as the store masks them for it.
struct MapPrintRoutes: OperationCollection {
    /// The layers and who may read them.
    let layers: LayerDirectory
    /// Where the city's data lies (`CityExtent`): a box wholly outside it is refused.
    let cityExtent: @Sendable () async throws -> CityExtent?
    /// The flood runs a caller may see (`run`).
    let floodRuns: FloodRunCatalog
    /// The web map's style of some layers for a caller, the given flood run's layers shown.
    let style: @Sendable ([LayerInfo], Caller, _ floodRunStem: String?) async throws -> RenderStyle
    /// A layer's features meeting a box (EPSG:4490) as the caller may read them (at most
    /// `WMSRoutes.maximumFeatures`; more is a 400 naming `bbox`).
    let features: @Sendable (_ layer: String, _ box: Envelope, Caller) async throws -> [Feature]

    /// The most layers one page draws (its legend column holds about that many).
    static let maximumLayers = 30
    static let dpiRange = 72...300
    static let defaultDPI = 150

    var operations: [APIOperation] {
        let enumerated = { (values: [String]) -> JSONValue in ["type": "string", "enum": .array(values.map { .string($0) })] }
        return [APIOperation(
            id: "getMapPrint", method: .get, path: "/map/print",
            summary: "A printable map of a box: a PDF (vector) or PNG page, A4 or A3, with title, the map drawn from the web map's style, legend, scale bar, north arrow, date, data sources and the caller's department; `run` adds a flood run's depth and cut-off resources.",
            tag: "Tiles",
            parameters: [
                APIParameter("bbox", "The area to print: minx,miny,maxx,maxy in bbox-crs and its axis order; widened to the map frame's proportions.",
                             required: true, schema: ["type": "array", "minItems": 4, "maxItems": 4, "items": ["type": "number"]], commaList: true),
                .bboxCRS,
                APIParameter("crs", "The map's CRS (an OGC URI or EPSG:n; default EPSG:3857, as the web map shows it).", schema: ["type": "string"]),
                APIParameter("layers", "Comma-separated collection ids to draw (at most \(Self.maximumLayers)), drawn in the web map's order.",
                             schema: ["type": "array", "items": ["type": "string"]], commaList: true),
                APIParameter("run", "A flood run id (/flood-runs): its depth and cut-off resources are drawn and explained in the legend."),
                APIParameter("title", "The map's title (at most \(PrintedMap.maximumTitleLength) characters; default 专题图)."),
                APIParameter("format", "pdf (default) or png.", schema: enumerated(["pdf", "png"])),
                APIParameter("paper", "A4 (default) or A3.", schema: enumerated(PrintPaper.Size.allCases.map(\.rawValue))),
                APIParameter("orientation", "landscape (default) or portrait.", schema: enumerated(PrintPaper.Orientation.allCases.map(\.rawValue))),
                APIParameter("dpi", "Pixels per inch of a PNG page: \(Self.dpiRange.lowerBound)…\(Self.dpiRange.upperBound), default \(Self.defaultDPI).",
                             schema: ["type": "integer", "minimum": .integer(Int64(Self.dpiRange.lowerBound)),
                                      "maximum": .integer(Int64(Self.dpiRange.upperBound))]),
            ],
            responses: [.ok("The printed page.", [("application/pdf", "MapImage"), ("image/png", "MapImage")]),
                        .problem(401, "A layer or the run is not open: send a bearer token."),
                        .problem(403, "The caller's department may not read a layer."),
                        .problem(404, "No such layer or flood run.")] + APIResponse.standardProblems
        ) { [self] _, context, query in
            try await page(query, context.caller)
        }]
    }

    /// The page asked for by `query`, as `caller` may see it.
    func page(_ query: QueryParameters, _ caller: Caller) async throws -> Representation {
        let request = try MapPrintRequest(query)
        // A box in another place would print an empty map under a legend that reads as this city's.
        if let city = try await cityExtent(), !city.meets(request.storageBox) {
            throw Problem.invalid("bbox", city.areaRefusal(request.storageBox))
        }
        var infos: [LayerInfo] = []
        for id in request.layers {
            let info = try await layers.layer(id, for: caller)
            guard info.definition.hasGeometry else { throw Problem.invalid("layers", "layer '\(id)' has no geometry to draw") }
            infos.append(info)
        }
        var stem: String?
        if let runID = request.run {
            let run = try await floodRuns.run(runID, by: caller, field: "run")
            stem = run.stem
            // The run's depth and cut-off resources, as the caller may read them.
            for id in [run.stem + "_depth", run.stem + "_cutoff"] where run.layers.contains(id) && !request.layers.contains(id) {
                infos.append(try await layers.layer(id, for: caller))
            }
        }
        guard !infos.isEmpty else { throw Problem.invalid("layers", "name at least one layer to print (or a flood run in 'run')") }
        let style = try await self.style(infos, caller, stem)
        // The legend and sources in the style's drawing order, top layer first (as a legend reads).
        let order = Dictionary(style.layers.enumerated().compactMap { i, l in l.collection.map { ($0, i) } }, uniquingKeysWith: max)
        infos.sort { order[$0.definition.id, default: -1] > order[$1.definition.id, default: -1] }
        let page: PrintedMap
        do {
            let box = try CoordinateTransformer.shared(from: CRSParameter.storage, to: request.crs).transform(request.storageBox)
            page = try PrintedMap(
                title: request.title, paper: request.paper, bbox: box, crs: request.crs, crsName: WMSNames.crs(request.crs), style: style,
                layers: infos.map { PrintedMap.Layer(id: $0.definition.id, title: $0.definition.title.zh) },
                sources: infos.map { "\($0.definition.title.zh)（\($0.definition.owner)；\($0.definition.sharing.requirements)）" },
                madeFor: caller == .admin ? "平台管理员" : caller.departmentName ?? "公开", printedAt: TwinClock.current.now)
        } catch let e as GeometryError {
            throw Problem.invalid("bbox", "the box cannot be drawn in \(WMSNames.crs(request.crs)): \(e.message)")
        } catch let e as MapRenderingError {
            throw Problem.invalid("bbox", e.message)
        }
        // Features a little beyond the box: a line or a circle just outside still reaches in.
        let grown = page.view.storageEnvelope.expanded(byFraction: 0.05)
        var drawn: [String: [Feature]] = [:]
        for info in infos where style.draws(info.definition.id, atZoom: page.view.zoom) {
            drawn[info.definition.id] = try await features(info.definition.id, grown, caller)
        }
        let (format, dpi, features) = (request.format, Double(request.dpi), drawn)
        let bytes: [UInt8]
        do {
            bytes = try await BlockingWork.run { try page.render(features, format: format, dpi: dpi) }
        } catch let e as MapRenderingError where e.code == .request {
            throw Problem.invalid("bbox", e.message)
        }
        var r = Representation(mediaType: format.mediaType, body: bytes)
        // What a caller may see and the time printed: for this caller, now.
        r.headers[.cacheControl] = "private, no-store"
        r.headers[.contentDisposition] = "inline; filename=\"citytwin-map.\(format.rawValue)\""
        return r
    }
}

extension MapPrintRoutes {
    /// The print route over the WMS collection's drawing: the same style, features and limits.
    init(layers: LayerDirectory, floodRuns: FloodRunCatalog, site: SiteLinks, wms: WMSRoutes, store: any FeatureStore) {
        self.init(
            layers: layers, cityExtent: { try await CityExtent.of(store) }, floodRuns: floodRuns,
            style: { infos, caller, stem in
                // The run asked for is shown; else, as on the web map, the current one.
                var shown = stem
                if shown == nil { shown = try await floodRuns.current(by: caller)?.stem }
                return try RenderStyle(document: MapStyle(layers: infos, audience: MapAudience.of(caller), url: site.url,
                                                          fontstack: GlyphAssets.fontstack, currentFloodRun: shown).document)
            },
            features: { layer, box, caller in
                do { return try await wms.wmsFeatures(layer, in: box, caller) } catch let e as WMSException {
                    throw Problem.invalid("bbox", e.message)
                }
            })
    }
}
