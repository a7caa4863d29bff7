import Foundation
import GeoCore
import Hummingbird
import Synchronization
import Logging
import MapRendering
import TwinStore

/// WMS 1.3.0 at `/wms`: the city's layers drawn on the server (MapRendering) from the web map's
/// style, with their legends and feature info. WMTS (`WMTSRoutes`) draws its PNG tiles the same way.
struct WMSRoutes: OperationCollection {
    let store: any FeatureStore
    let site: SiteLinks
    let layers: LayerDirectory
    /// The catalogue copy of the tiles: the layers a map may show.
    let tileService: TileService
    /// The live parking view, brought up to date before its layer is drawn.
    let parking: ParkingUpkeep
    let cityMetricCRS: CityMetricCRSCache
    /// The drawing styles already read, by layers and audience (`wmsStyle`).
    let styles = RenderStyleCache()

    /// The most layers one GetMap draws (`LayerLimit`, issue 55 §3).
    static let maximumLayers = 50
    /// The most features one layer of a map may hold; a box holding more asks for a smaller one.
    static let maximumFeatures = 200_000

    /// The WMS responses' schemas, merged into `#/components/schemas` of the OpenAPI document.
    static let wmsSchemas: [String: JSONValue] = [
        "WMSCapabilities": ["type": "string", "description": "WMS_Capabilities 1.3.0 XML"],
        "ServiceExceptionReport": ["type": "string", "description": "WMS 1.3.0 ServiceExceptionReport XML"],
        "MapImage": ["type": "string", "format": "binary"],
    ]

    /// WMS 1.3.0 at `/wms` (issue 55 §3): GetCapabilities, GetMap (PNG, JPEG, PDF drawn by
    /// MapRendering from the web map's style), GetFeatureInfo (JSON, HTML) and GetLegendGraphic
    /// (the SLD-WMS extension). Key-value parameters are case-insensitive, as WMS requires,
    /// and checked by the handler; every failure is a `ServiceExceptionReport`. A caller sees
    /// exactly the layers and attributes it may read (anonymous: public ones), as everywhere.
    var operations: [APIOperation] {
        [APIOperation(
            id: "getWMS", method: .get, path: "/wms",
            summary: "OGC WMS 1.3.0: REQUEST=GetCapabilities, GetMap (image/png, image/jpeg, application/pdf; any CRS the server speaks), GetFeatureInfo (application/json, text/html) and GetLegendGraphic; parameters as WMS 1.3.0 names them, case-insensitive.",
            tag: "Tiles",
            parameters: [APIParameter("REQUEST", "GetCapabilities, GetMap, GetFeatureInfo or GetLegendGraphic.", required: true),
                         APIParameter("SERVICE", "WMS."), APIParameter("VERSION", "1.3.0.")],
            responses: [.ok("The capabilities, map, feature information or legend.",
                            [("text/xml", "WMSCapabilities"), ("image/png", "MapImage"), ("image/jpeg", "MapImage"), ("application/pdf", "MapImage"),
                             (MediaTypeName.json, "FeatureCollection"), ("text/html", "HTML")]),
                        APIResponse(status: 400, description: "A WMS ServiceExceptionReport naming the code and the parameter at fault.",
                                    content: [("text/xml", "ServiceExceptionReport")])],
            acceptsQueryables: true  // WMS names are case-insensitive and many: WMSParameters reads them
        ) { [self] _, context, query in
            do {
                let p = try WMSParameters(query)
                if let service = p["SERVICE"], service.uppercased() != "WMS" {
                    throw WMSException(.invalidParameterValue, "SERVICE '\(service)' is not WMS", locator: "SERVICE")
                }
                switch try p.required("REQUEST").lowercased() {
                case "getcapabilities": return try await wmsCapabilities(context.caller)
                case "getmap", "map": return try await wmsMap(p, context.caller)
                case "getfeatureinfo": return try await wmsFeatureInfo(p, context.caller)
                case "getlegendgraphic": return try await wmsLegend(p, context.caller)
                case let other:
                    throw WMSException(.operationNotSupported, "REQUEST '\(other)' is not served: GetCapabilities, GetMap, GetFeatureInfo, GetLegendGraphic",
                                       locator: "REQUEST")
                }
            } catch {
                let (report, status) = WMSException.from(error)
                if status.code >= 500 { context.logger.error("wms: \(error)") }
                return report.representation(status: status)
            }
        }]
    }

    // MARK: - GetCapabilities

    private func wmsCapabilities(_ caller: Caller) async throws -> Representation {
        let layers = try await tileService.visibleLayers(caller)
        let metric = try await cityMetricCRS.metricCRS(of: store)
        let style = try wmsStyle(layers, caller)
        var sizes: [String: (width: Int, height: Int)] = [:]
        for info in layers {
            sizes[info.definition.id] = try MapLegend(collection: info.definition.id, title: info.definition.title.zh, style: style).size()
        }
        let document = WMSCapabilities(layers: layers, crsList: CRSParameter.advertised(cityMetric: metric), legendSizes: sizes, serviceURL: site.url("/wms"))
        var r = Representation(mediaType: "text/xml; charset=utf-8", body: Array(document.xml.utf8))
        r.headers[.cacheControl] = "public, max-age=60"
        return r
    }

    // MARK: - GetMap

    /// What GetMap and GetFeatureInfo share: the layers (readable by the caller, in the
    /// request's order), the view and the style.
    struct WMSMapRequest {
        let layers: [LayerInfo]
        let view: MapView
        let style: RenderStyle
    }

    func wmsMapRequest(_ p: WMSParameters, _ caller: Caller) async throws -> WMSMapRequest {
        if let version = p["VERSION"], version != "1.3.0" {
            throw WMSException(.invalidParameterValue, "VERSION '\(version)' is not served: 1.3.0", locator: "VERSION")
        }
        let ids = try p.list("LAYERS")
        guard ids.count <= WMSRoutes.maximumLayers else {
            throw WMSException(.invalidParameterValue, "LAYERS names \(ids.count) layers; at most \(WMSRoutes.maximumLayers) are drawn at once", locator: "LAYERS")
        }
        try p.checkStyles(layerCount: ids.count)
        var layers: [LayerInfo] = []
        for id in ids {
            guard !id.isEmpty else { throw WMSException(.layerNotDefined, "LAYERS has an empty name", locator: "LAYERS") }
            let info = try await wmsLayer(id, caller, locator: "LAYERS")
            guard info.definition.hasGeometry else { throw WMSException(.layerNotDefined, "layer '\(id)' has no geometry to draw", locator: "LAYERS") }
            layers.append(info)
        }
        let crs = try p.crs()
        let bbox = try p.bbox(crs)
        let (width, height) = try p.size()
        let view: MapView
        do { view = try MapView(bbox: bbox, crs: crs, width: width, height: height) } catch let e as GeometryError {
            throw WMSException(.invalidParameterValue, "BBOX cannot be drawn in \(WMSNames.crs(crs)): \(e.message)", locator: "BBOX")
        }
        // Layers draw in the request's order (the first at the bottom); labels of all above them.
        let style = try wmsStyle(layers, caller)
        let drawn = layers.flatMap { style.layers(for: $0.definition.id).filter { $0.kind != .symbol } }
        let labels = layers.flatMap { style.layers(for: $0.definition.id).filter { $0.kind == .symbol } }
        return WMSMapRequest(layers: layers, view: view, style: RenderStyle(layers: drawn + labels))
    }

    /// A layer the caller may read; a missing one, and one hidden from the caller, is
    /// `LayerNotDefined` (the store's other failures pass through).
    func wmsLayer(_ id: String, _ caller: Caller, locator: String) async throws -> LayerInfo {
        do {
            return try await layers.layer(id, for: caller)
        } catch {
            let problem = Problem(mapping: error)
            guard [401, 403, 404].contains(problem.kind.status.code) else { throw error }
            throw WMSException(.layerNotDefined, "no layer '\(id)' for this caller: \(problem.detail)", locator: locator)
        }
    }

    /// The web map's style (WebMap/MapStyle.swift) of `layers` for the caller, with its text
    /// layers (the renderer's fonts are pango's, whatever glyphs the web map serves). The
    /// renderer draws every layer it is asked for whatever the web map shows by default
    /// (`layout.visibility`, where the current flood run matters), so the style is the same
    /// for the same layers and audience: built and read once, not for every tile.
    func wmsStyle(_ layers: [LayerInfo], _ caller: Caller) throws -> RenderStyle {
        let audience = MapAudience.of(caller)
        return try styles.style(layers, audience) {
            try RenderStyle(document: MapStyle(layers: layers, audience: audience, url: site.url, fontstack: GlyphAssets.fontstack).document)
        }
    }

    private func wmsMap(_ p: WMSParameters, _ caller: Caller) async throws -> Representation {
        let request = try await wmsMapRequest(p, caller)
        let format = try p.format()
        let background = try p.background(format)
        // Features a little beyond the box too: a line or a circle just outside still reaches in.
        let grown = request.view.storageEnvelope.expanded(byFraction: 0.05)
        var features: [String: [Feature]] = [:]
        // A layer the style does not draw at this scale (buildings below z 14, say) is not read.
        for info in request.layers where request.style.draws(info.definition.id, atZoom: request.view.zoom) {
            features[info.definition.id] = try await wmsFeatures(info.definition.id, in: grown, caller)
        }
        let (style, view, drawn) = (request.style, request.view, features)
        // cairo and pango: seconds of CPU for a large map, off the cooperative threads.
        let bytes = try await BlockingWork.run { try MapRenderer(style: style).image(drawn, view: view, format: format, background: background) }
        var r = Representation(mediaType: format.mediaType, body: bytes)
        r.headers[.cacheControl] = "public, max-age=60"
        return r
    }

    /// The features of a layer whose box meets `box` (EPSG:4490), as the caller may see them.
    func wmsFeatures(_ layer: String, in box: Envelope, _ caller: Caller) async throws -> [Feature] {
        await parking.catchUp([layer])  // parking: the live view as of now
        var query = FeatureQuery(bbox: BoundingBox(box), limit: FeatureQuery.maximumLimit)
        var features: [Feature] = []
        while true {
            let page = try await store.query(layer: layer, query, by: caller)
            features += page.features
            guard features.count <= WMSRoutes.maximumFeatures else {
                throw WMSException(.invalidParameterValue,
                                   "layer '\(layer)' has more than \(WMSRoutes.maximumFeatures) features in BBOX: ask for a smaller box", locator: "BBOX")
            }
            guard let next = page.next else { return features }
            query.after = next
        }
    }

    // MARK: - GetLegendGraphic

    private func wmsLegend(_ p: WMSParameters, _ caller: Caller) async throws -> Representation {
        let id = try p.required("LAYER")
        let info = try await wmsLayer(id, caller, locator: "LAYER")
        if let style = p["STYLE"], !style.isEmpty, style.lowercased() != "default" {
            throw WMSException(.styleNotDefined, "style '\(style)' is not defined: each layer has the style 'default'", locator: "STYLE")
        }
        let format = try p.format(optional: true)
        let style = try wmsStyle([info], caller)
        let legend = MapLegend(collection: id, title: info.definition.title.zh, style: style)
        let bytes = try legend.image(format: format, background: try p.background(format))
        var r = Representation(mediaType: format.mediaType, body: bytes)
        r.headers[.cacheControl] = "public, max-age=300"
        return r
    }
}

/// The drawing styles of the layer sets maps and tiles were drawn with, by the layers as the
/// caller saw them (an edited definition, extent or count is a new entry) and the audience.
final class RenderStyleCache: Sendable {
    private struct Key: Hashable {
        let layers: [LayerInfo]
        let audience: MapAudience
    }

    /// Distinct layer sets kept; past it the table starts again (a client naming ever new
    /// combinations of GetMap layers does not grow it without bound).
    static let capacity = 256
    private let styles = Mutex<[Key: RenderStyle]>([:])

    func style(_ layers: [LayerInfo], _ audience: MapAudience, make: () throws -> RenderStyle) throws -> RenderStyle {
        let key = Key(layers: layers, audience: audience)
        if let known = styles.withLock({ $0[key] }) { return known }
        let style = try make()
        styles.withLock { styles in
            if styles.count >= Self.capacity { styles.removeAll() }
            styles[key] = style
        }
        return style
    }
}

extension Envelope {
    /// The envelope grown on every side by `fraction` of its width and height.
    func expanded(byFraction fraction: Double) -> Envelope {
        Envelope(minX: minX - width * fraction, minY: minY - height * fraction, maxX: maxX + width * fraction, maxY: maxY + height * fraction)
    }
}
