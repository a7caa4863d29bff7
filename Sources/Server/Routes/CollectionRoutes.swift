import Governance
import Flood
import GeoCore
import Hummingbird
import TwinStore

/// `/collections` and `/collections/{collectionId}`: the layers of the city's one map.
struct CollectionRoutes: OperationCollection {
    let store: any FeatureStore
    let site: SiteLinks
    let layers: LayerDirectory
    let cityMetricCRS: CityMetricCRSCache
    /// The rasters runs wrote beside their result layers (`ServerOptions.rasters`), linked from a collection.
    let rasters: ResultRasters?
    /// The newest quality summary per layer (`QualityRoutes`), shown in each collection's metadata.
    let quality: QualityLedger
    /// `/collections` and `/collections/{collectionId}`.
    var operations: [APIOperation] {
        let common = APIResponse.standardProblems
        return [
            APIOperation(
                id: "getCollections", method: .get, path: "/collections", summary: "The collections (layers) the caller may read.",
                tag: "Data", parameters: [.f],
                responses: [.ok("The collections.", [(MediaTypeName.json, "Collections"), ("text/html", "HTML")])] + common
            ) { [self] request, context, query in
                let format = try OutputFormat.negotiate(query, request)
                // Refresh the directory as admin (definitions only), then list what the caller may read.
                let all = try await store.layers(for: .admin)
                layers.remember(all)
                let visible = all.filter { AccessPolicy.canRead($0.definition, context.caller) }
                let crs = CRSParameter.advertised(cityMetric: try await cityMetricCRS.metricCRS(of: store, orZoneOf: all.compactMap(\.extent)))
                let links = site.selfAndAlternate("/collections", query: query, format: format, jsonType: MediaTypeName.json)
                var documents: [JSONValue] = []
                for info in visible {
                    documents.append(await Tiles3DRoutes.geoVolume(collectionDocument(info, crs: crs), store: store, caller: context.caller, site: site))
                }
                let doc: JSONValue = [
                    "links": .array(links),
                    "collections": .array(documents),
                    "crs": .array(crs.map { .string($0.uri) }),
                ]
                guard format == .html else { return Representation.json(doc).linking(links) }
                // Layers whose existence is public (shared, conditional) but which the caller may not
                // read are listed as needing a token; secret ones (not shared, negative list) never appear.
                let needToken = all.filter { !AccessPolicy.canRead($0.definition, context.caller) && !AccessPolicy.isSecret($0.definition) }
                return Representation.html(DataPages.collectionsPage(visible: visible, needToken: needToken, links: links)).linking(links)
            },
            APIOperation(
                id: "describeCollection", method: .get, path: "/collections/{collectionId}", summary: "One collection: extent, CRSs, links to its items.",
                tag: "Data", parameters: [.collectionID, .f],
                responses: [.ok("The collection.", [(MediaTypeName.json, "Collection"), ("text/html", "HTML")]),
                            .problem(401, "The collection is shared with departments only: send a bearer token (an HTML page says so when HTML is asked for)."),
                            .problem(404, "No such collection (or not visible to the caller).")] + common
            ) { [self] request, context, query in
                let format = try OutputFormat.negotiate(query, request)
                let id = try pathParameter(context, "collectionId")
                let info = try await layers.layer(id, for: context.caller)
                var doc = collectionDocument(info, crs: CRSParameter.advertised(cityMetric: try await cityMetricCRS.metricCRS(of: store, orZoneOf: [info.extent].compactMap { $0 })))
                doc = await Tiles3DRoutes.geoVolume(doc, store: store, caller: context.caller, site: site)
                let links = site.selfAndAlternate("/collections/\(id)", query: query, format: format, jsonType: MediaTypeName.json)
                    + itemLinks(info.definition) + rasterLinks(id)
                if var o = doc.objectValue {
                    o["links"] = .array(links)
                    doc = .object(o)
                }
                guard format == .html else { return Representation.json(doc).linking(links) }
                return Representation.html(DataPages.collectionPage(info, document: doc)).linking(links)
            },
        ]
    }

    /// A collection's links to its data: items, queryables and, for layers with geometry, its
    /// vector tilesets (OGC API Tiles geodata-tilesets requires that link).
    func itemLinks(_ definition: LayerDefinition) -> [JSONValue] {
        let id = definition.id
        var links = [site.link("/collections/\(id)/items?f=json", rel: "items", type: MediaTypeName.geoJSON, title: "Features as GeoJSON"),
                     site.link("/collections/\(id)/items?f=html", rel: "items", type: "text/html", title: "Features as HTML"),
                     site.link("/collections/\(id)/queryables", rel: "http://www.opengis.net/def/rel/ogc/1.0/queryables",
                               type: MediaTypeName.schemaJSON, title: "Queryables")]
        if definition.hasGeometry {
            links.append(site.link("/collections/\(id)/tiles", rel: "http://www.opengis.net/def/rel/ogc/1.0/tilesets-vector",
                                   type: MediaTypeName.json, title: "Vector tilesets"))
        }
        if let solids = Tiles3DRoutes.collectionLink(id, site: site) { links.append(solids) }  // OGC API – 3D GeoVolumes
        return links
    }

    /// The collection's rasters as `enclosure` links (a flood run's depth grids).
    func rasterLinks(_ id: String) -> [JSONValue] {
        (rasters?.names(layer: id) ?? []).map { name in
            site.link(ResultRasters.path(layer: id, name: name), rel: "enclosure", type: ResultRasters.mediaType(of: name) ?? "",
                      title: "Raster \(name)")
        }
    }

    /// The temporal reference system of every temporal extent: the Gregorian calendar, by the URI
    /// OGC API Features 1 allows (the only value of `extent.temporal.trs` in its `extent.yaml`;
    /// `…/def/uri/…`, which this server wrote until issue 58, is not it).
    static let gregorianTRS = "http://www.opengis.net/def/uom/ISO-8601/0/Gregorian"

    /// The OGC collection document of a layer (links: items only; callers add self/alternate), its
    /// CRS list `crs` (`CRSParameter.advertised`).
    func collectionDocument(_ info: LayerInfo, crs: [CoordinateReferenceSystem]) -> JSONValue {
        let d = info.definition
        var o: [String: JSONValue] = [
            "id": .string(d.id),
            "title": .string(d.title.zh),
            "description": .string("\(d.title.en). Category \(d.category.rawValue); owner \(d.owner); updated \(d.updateFrequency); sharing \(d.sharing.type.rawValue) (\(d.sharing.requirements))."),
            "keywords": [.string(d.category.rawValue), .string(d.owner)],
            "itemType": "feature",
            "crs": .array(crs.map { .string($0.uri) }),
            "storageCrs": .string(CRSParameter.storage.uri),
            "links": .array(itemLinks(d)),
        ]
        var extent: [String: JSONValue] = [:]
        if let e = info.extent {
            extent["spatial"] = [
                "bbox": [[.number(e.minX), .number(e.minY), .number(e.maxX), .number(e.maxY)]],
                "crs": .string(CoordinateReferenceSystem.crs84.uri),
            ]
        }
        if d.temporal != nil {
            extent["temporal"] = ["interval": [[.null, .null]], "trs": .string(Self.gregorianTRS)]
        }
        if !extent.isEmpty { o["extent"] = .object(extent) }
        if let g = d.geometryType { o["geometryType"] = .string(g.rawValue) }
        if let level = d.cimLevel { o["cim_level"] = .string(level.rawValue) }
        // A what-if's results (a scenario's) say so to every client (the title carries the marking too).
        if let conditions = d.conditions {
            o["whatIf"] = .bool(conditions.isWhatIf)
            o["conditions"] = conditions.document
            if conditions.isWhatIf { o["keywords"] = .array((o["keywords"]?.arrayValue ?? []) + [.string(LayerConditions.whatIfLabel.zh)]) }
        }
        o["quality"] = quality.metadata(info, site: site)  // governance: Routes/QualityRoutes.swift
        return .object(o)
    }
}
