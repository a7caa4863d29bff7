import Foundation
import GeoCore
import Hummingbird
import Sensing
import TwinStore

/// `/collections/{collectionId}/items` and `/collections/{collectionId}/items/{featureId}`: the
/// features of a layer as pages, single features, versions as of an instant and downloads
/// (CollectionDownload.swift).
struct ItemRoutes: OperationCollection {
    let store: any FeatureStore
    let site: SiteLinks
    let layers: LayerDirectory
    /// Collections of at most this many features count the features matched (`ServerOptions.exactCountLimit`).
    let exactCountLimit: Int
    /// The live parking view, brought up to date before a read of its layers.
    let parking: ParkingUpkeep
    /// The declared parameters of `getFeatures`; any other one must be a simple queryable.
    static let featuresParameters: [APIParameter] = [
        .collectionID, .limit, .bbox, .bboxCRS, .crs, .datetime, .filter, .filterLang, .filterCRS, .properties, .sortby, .cursor, .itemsFormat, .asOf, .lang,
    ]

    /// `/collections/{collectionId}/items` and `/collections/{collectionId}/items/{featureId}`
    /// (reads here, Part 4 writes in `ItemWriteRoutes`).
    var operations: [APIOperation] {
        let common = APIResponse.standardProblems
        return [
            APIOperation(
                id: "getFeatures", method: .get, path: "/collections/{collectionId}/items",
                summary: "A page of features; follow the next link for the rest (keyset paging).",
                tag: "Data",
                parameters: Self.featuresParameters,
                responses: [.ok("A page of features; with f=csv or f=gpkg the whole selection as a download (webmap: CollectionDownload.swift).",
                                [(MediaTypeName.geoJSON, "FeatureCollection"), ("text/html", "HTML"),
                                 ("text/csv", "HTML"), (DownloadFormat.geoPackageMediaType, "VectorTile")]),
                            .problem(401, "The collection is shared with departments only: send a bearer token."),
                            .problem(404, "No such collection (or not visible to the caller).")] + common,
                acceptsQueryables: true
            ) { [self] request, context, query in
                try await features(request, context, query)
            },
            APIOperation(
                id: "getFeature", method: .get, path: "/collections/{collectionId}/items/{featureId}",
                summary: "One feature.", tag: "Data",
                parameters: [.collectionID, .featureID, .crs, .f, .asOf],
                responses: [.ok("The feature, with a strong ETag for If-Match.", [(MediaTypeName.geoJSON, "Feature"), ("text/html", "HTML")]),
                            .problem(401, "The collection is shared with departments only: send a bearer token."),
                            .problem(404, "No such collection or feature.")] + common
            ) { [self] request, context, query in
                try await feature(request, context, query)
            },
        ]
    }

    private func features(_ request: Request, _ context: CityTwinRequestContext, _ query: QueryParameters) async throws -> Representation {
        let download = DownloadFormat(query)  // webmap: f=csv, f=gpkg
        let format = download == nil ? try OutputFormat.negotiate(query, request) : .json
        let id = try pathParameter(context, "collectionId")
        await parking.catchUp([id])  // parking: the live view as of now (Routes/ParkingRoutes.swift)
        let info = try await layers.layer(id, for: context.caller)
        let declared = Set(Self.featuresParameters.filter { $0.location == .query }.map(\.name))
        var items = try ItemsRequest(query, layer: info.definition, caller: context.caller, declared: declared)
        items.query.asOf = try AsOfParameter.parse(query)  // webmap
        if let download {
            return try await self.download(download, layer: info, items: items, query: query, caller: context.caller)
        }
        let page = try await store.query(layer: id, items.query, by: context.caller)
        var numberMatched: Int?
        if info.count <= exactCountLimit {
            // A first page with no next page holds every match: its length is the count, and the
            // count's statement (a second scan and round trip, issue 57) is not needed.
            numberMatched = if items.query.after == nil, page.next == nil { page.features.count }
                else { try await store.count(layer: id, items.query, by: context.caller) }
        }
        var features = try project(page.features, items.projection)
        if items.query.asOf == nil {  // sensorthings: the latest reading of the Thing standing for each feature
            try await latestReadings?.attachLatest(&features, layer: id, caller: context.caller)
        }
        let path = "/collections/\(id)/items"
        let type = format == .json ? MediaTypeName.geoJSON : "text/html"
        var links = site.selfAndAlternate(path, query: query, format: format, jsonType: MediaTypeName.geoJSON)
        if let next = page.next {
            let href = path + query.encoded(replacing: ["cursor": next.token, "limit": String(items.limit), "f": format.rawValue])
            links.append(site.link(href, rel: "next", type: type, title: "The next page"))
        }
        links.append(site.link("/collections/\(id)", rel: "collection", type: MediaTypeName.json, title: info.definition.title.zh))
        // Part 3 /req/queryables/queryables-link: a filterable resource links its queryables (its
        // abstract test looks for the Link header of a HEAD request here).
        links.append(site.link("/collections/\(id)/queryables", rel: "http://www.opengis.net/def/rel/ogc/1.0/queryables",
                               type: MediaTypeName.schemaJSON, title: "Queryables"))
        let timeStamp = RFC3339.formatSeconds(TwinClock.current.now)
        var headers = HTTPFields()
        headers[.contentCRS] = "<\(items.projection.target.uri)>"
        switch format {
        case .json:
            var members: [String: JSONValue] = [
                "links": .array(links), "numberReturned": .integer(Int64(features.count)), "timeStamp": .string(timeStamp),
            ]
            if let numberMatched { members["numberMatched"] = .integer(Int64(numberMatched)) }
            Self.markConditions(&members, info.definition)
            var body = GeoJSON.encodeBytes(.featureCollection(FeatureCollection(features)), options: items.projection.writeOptions)
            body.removeLast()  // the collection's closing brace
            body.append(UInt8(ascii: ","))
            body += JSONText.members(members)
            body.append(UInt8(ascii: "}"))
            return Representation(mediaType: MediaTypeName.geoJSON, body: body, headers: headers).linking(links)
        case .html:
            let page = DataPages.itemsPage(info, features: features, numberMatched: numberMatched, crs: items.projection.target.uri,
                                 query: query, links: links)
            var representation = Representation.html(page)
            representation.headers = headers
            return representation.linking(links)
        }
    }

    private func feature(_ request: Request, _ context: CityTwinRequestContext, _ query: QueryParameters) async throws -> Representation {
        let format = try OutputFormat.negotiate(query, request)
        let id = try pathParameter(context, "collectionId")
        let fid = try pathParameter(context, "featureId")
        await parking.catchUp([id])  // parking
        let layer = try await layers.definition(id, for: context.caller)
        let crs = try query["crs"].map { try CRSParameter.parse($0, parameter: "crs") } ?? .crs84
        let projection = try FeatureProjection(target: crs)
        let asOf = try AsOfParameter.parse(query)  // webmap: the version valid at asOf
        let stored = if let asOf { try await featureVersion(layer: id, id: fid, at: asOf, caller: context.caller) }
            else { try await store.feature(layer: id, id: fid, by: context.caller) }
        guard let current = stored,
              var feature = try project([current], projection).first else {
            throw Problem(.featureNotFound, "no feature '\(fid)' in collection '\(id)'")
        }
        if asOf == nil {  // sensorthings: the latest reading of the Thing standing for it
            var one = [feature]
            try await latestReadings?.attachLatest(&one, layer: id, caller: context.caller)
            feature = one[0]
        }
        let path = "/collections/\(id)/items/\(QueryParameters.escape(fid))"
        let links = site.selfAndAlternate(path, query: query, format: format, jsonType: MediaTypeName.geoJSON)
            + [site.link("/collections/\(id)", rel: "collection", type: MediaTypeName.json, title: layer.title.zh)]
        var headers = HTTPFields()
        headers[.contentCRS] = "<\(crs.uri)>"
        headers[.eTag] = EntityTag.of(current)
        switch format {
        case .json:
            var body = GeoJSON.encodeBytes(.feature(feature), options: projection.writeOptions)
            body.removeLast()
            body.append(UInt8(ascii: ","))
            var members: [String: JSONValue] = ["links": .array(links)]
            Self.markConditions(&members, layer)
            body += JSONText.members(members)
            body.append(UInt8(ascii: "}"))
            return Representation(mediaType: MediaTypeName.geoJSON, body: body, headers: headers).linking(links)
        case .html:
            let geometry = feature.geometry.map { String(decoding: GeoJSON.encode($0, options: projection.writeOptions), as: UTF8.self) } ?? "null"
            var representation = Representation.html(DataPages.itemPage(layer, id: fid, feature: feature, geometry: geometry, links: links))
            representation.headers = headers
            return representation.linking(links)
        }
    }

    /// A what-if layer's answer says so (`whatIf`, `conditions`), beside the features: a client
    /// that shows them never takes them for the city as it stands.
    static func markConditions(_ members: inout [String: JSONValue], _ definition: LayerDefinition) {
        guard let conditions = definition.conditions else { return }
        members["whatIf"] = .bool(conditions.isWhatIf)
        members["conditions"] = conditions.document
    }

    /// The page in the response CRS; a position the CRS cannot represent is the `crs` parameter's fault.
    private func project(_ features: [Feature], _ projection: FeatureProjection) throws -> [Feature] {
        do {
            return try projection.project(features)
        } catch let e as GeometryError {
            throw Problem(.invalidCRS, "parameter 'crs': \(e.message)", parameter: "crs")
        }
    }

    /// The latest reading of the Thing standing for each feature (a store with SensorThings tables).
    private var latestReadings: SensorFeatureLinks? {
        (store as? any SensingStore).map { SensorFeatureLinks(store: store, sensing: $0) }
    }

    /// The feature `id` of `layer` as it was at `instant` (its version valid then), as `caller` sees it.
    private func featureVersion(layer: String, id: String, at instant: Date, caller: Caller) async throws -> Feature? {
        let versions = try await store.history(layer: layer, featureID: id, by: caller)
        return versions.last { $0.validFrom <= instant && ($0.validTo.map { instant < $0 } ?? true) }?.feature
    }
}

extension HTTPFields.Element.Name {
    /// OGC API Features Part 2: the CRS of a response's (or a request body's) coordinates.
    static let contentCRS = HTTPFields.Element.Name("Content-Crs")!
}
