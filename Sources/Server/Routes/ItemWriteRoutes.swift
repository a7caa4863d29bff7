import Foundation
import GeoCore
import Hummingbird
import Sensing
import TwinStore

/// Part 4 writes of features: create, replace, update, delete, with strong ETags; each write
/// checked against the city's extent and the parking rules, noted for the tile cache and the
/// change subscribers, and a step of adaptive signal control after a counts row.
struct ItemWriteRoutes: OperationCollection {
    let store: any FeatureStore
    let site: SiteLinks
    let layers: LayerDirectory
    /// One queue per feature being written in this process.
    let writeLocks: FeatureWriteLocks
    let localWrites: LocalWrites
    let parking: ParkingUpkeep
    let retiming: SignalRetiming
    /// A hydrant going out of service or back raises or ends its alert in the request that wrote it.
    let hydrants: HydrantStatus
    /// OGC API Features Part 4: POST, PUT, PATCH and DELETE of features. Every write goes
    /// through the store (a version row and an audit entry, in one transaction) as the caller
    /// of the bearer token; the store decides who may write (the owner department's editors
    /// and the admin). `If-Match` is checked against the feature's strong `ETag`.
    var operations: [APIOperation] {
        let written: [APIResponse] = [
            .problem(400, "A malformed body (problem+json naming the JSON path) or parameter."),
            .problem(401, "No bearer token, or an invalid or expired one."),
            .problem(403, "The token's department does not own the collection."),
            .problem(404, "No such collection or feature."),
            .problem(415, "The body's media type is not accepted."),
            .problem(500, "A server fault (never caused by input)."),
        ]
        let featureBody = APIResponse.ok("The feature as stored, in CRS84, with its new ETag.", [(MediaTypeName.geoJSON, "Feature")])
        return [
            APIOperation(
                id: "createFeature", method: .post, path: "/collections/{collectionId}/items",
                summary: "Adds a feature (GeoJSON; coordinates in the Content-Crs CRS, default CRS84). The server assigns the id when the body has none.",
                tag: "Data", parameters: [.collectionID, .contentCRS, .allowOutsideExtent],
                responses: [APIResponse(status: 201, description: "Created; Location names the new feature.",
                                        content: [(MediaTypeName.geoJSON, "Feature")]),
                            .problem(409, "A feature with the body's id exists.")] + written,
                requestBody: .feature
            ) { [self] request, context, query in
                try await create(request, context, query)
            },
            APIOperation(
                id: "replaceFeature", method: .put, path: "/collections/{collectionId}/items/{featureId}",
                summary: "Replaces a feature (a new version; the old one stays in the history).",
                tag: "Data", parameters: [.collectionID, .featureID, .ifMatch, .contentCRS, .allowOutsideExtent],
                responses: [featureBody, .problem(412, "If-Match does not match the current ETag.")] + written,
                requestBody: .feature
            ) { [self] request, context, query in
                try await replace(request, context, query)
            },
            APIOperation(
                id: "updateFeature", method: .patch, path: "/collections/{collectionId}/items/{featureId}",
                summary: "Changes some properties or the geometry of a feature (RFC 7396 merge patch).",
                tag: "Data", parameters: [.collectionID, .featureID, .ifMatch, .contentCRS, .allowOutsideExtent],
                responses: [featureBody, .problem(412, "If-Match does not match the current ETag.")] + written,
                requestBody: .mergePatch
            ) { [self] request, context, query in
                try await update(request, context, query)
            },
            APIOperation(
                id: "deleteFeature", method: .delete, path: "/collections/{collectionId}/items/{featureId}",
                summary: "Ends a feature's current version (it stays in the history).",
                tag: "Data", parameters: [.collectionID, .featureID, .ifMatch],
                responses: [APIResponse(status: 204, description: "Deleted.", content: []),
                            .problem(412, "If-Match does not match the current ETag.")] + written
            ) { [self] request, context, _ in
                try await remove(request, context)
            },
        ]
    }

    /// Refuses a feature whose geometry lies outside the city's extent (`CityExtent`: the catalogue's
    /// extent widened by 10 km) with a 400 naming `$.geometry` and the range allowed, unless the
    /// request says `allowOutsideExtent=true` (data that really lies there).
    func checkExtent(_ feature: Feature, _ query: QueryParameters) async throws {
        let override: Bool
        switch query["allowOutsideExtent"] {
        case nil, "false"?: override = false
        case "true"?: override = true
        case let other?: throw Problem.invalid("allowOutsideExtent", "must be true or false, got '\(other)'")
        }
        guard !override, let geometry = feature.geometry, let extent = try await CityExtent.of(store),
              let outside = extent.outside(geometry) else { return }
        throw Problem(.invalidBody, "$.geometry: " + extent.refusal(outside, override: "?allowOutsideExtent=true"), parameter: "geometry", position: "$.geometry")
    }

    /// The collection to write and the caller, or 401 (no token) / 403 (not the owner).
    private func writableLayer(_ context: CityTwinRequestContext) async throws -> LayerDefinition {
        let id = try pathParameter(context, "collectionId")
        let layer = try await layers.definition(id, for: context.caller)
        if context.caller == .anonymous {
            throw Problem(.unauthorized, "writing to '\(id)' needs a bearer token of its owner department (\(layer.owner))")
        }
        guard AccessPolicy.canWrite(layer, context.caller) else {
            throw Problem(.forbidden, "writing to '\(id)' needs an editor of \(layer.owner) or an admin")
        }
        return layer
    }

    private func create(_ request: Request, _ context: CityTwinRequestContext, _ query: QueryParameters) async throws -> Representation {
        let layer = try await writableLayer(context)
        let source = try FeatureBody.Source(header: request.headers[.contentCRS])
        let bytes = try await FeatureBody.bytes(request, accepted: [MediaTypeName.geoJSON, MediaTypeName.json], context: context)
        var feature = try FeatureBody.feature(bytes, source: source)
        if feature.id == nil { feature.id = .string(FeatureIDGenerator.next()) }
        let fid = feature.id?.description ?? ""
        let created = feature
        try await checkExtent(created, query)
        try await parking.checkWrite(layer, created)  // parking: Routes/ParkingRoutes.swift
        try await storeWrite(layer, fid) {
            try await store.insert(layer: layer.id, features: [created], by: context.caller, at: nil)
            localWrites.note()
        }
        await retiming.retime(afterWriting: created, to: layer.id, by: context.caller)  // adaptive control: Routes/SensorThings/TrafficCountRecording.swift
        var representation = try await storedFeature(layer, fid, context)
        representation.status = .created
        representation.headers[.location] = site.url(itemPath(layer.id, fid))
        return representation
    }

    private func replace(_ request: Request, _ context: CityTwinRequestContext, _ query: QueryParameters) async throws -> Representation {
        let layer = try await writableLayer(context)
        let fid = try pathParameter(context, "featureId")
        let source = try FeatureBody.Source(header: request.headers[.contentCRS])
        let bytes = try await FeatureBody.bytes(request, accepted: [MediaTypeName.geoJSON, MediaTypeName.json], context: context)
        var feature = try FeatureBody.feature(bytes, source: source)
        if let id = feature.id, id.description != fid {
            throw Problem(.invalidBody, "$.id: '\(id)' differs from the feature id '\(fid)' in the path", position: "$.id")
        }
        feature.id = .string(fid)
        let replacement = feature
        try await checkExtent(replacement, query)
        try await parking.checkWrite(layer, replacement)  // parking
        let answer = try await writeLocks.withLock("\(layer.id)/\(fid)") { [self] in
            try await storeWrite(layer, fid) {
                try await store.update(layer: layer.id, reading: [fid], by: context.caller) {
                    _ = try await current(layer, fid, request, context)
                    return (FeatureChanges(upserts: [replacement]), ())
                }
                localWrites.note()
            }
            return try await storedFeature(layer, fid, context)
        }
        await retiming.retime(afterWriting: replacement, to: layer.id, by: context.caller)  // adaptive control
        return answer
    }

    private func update(_ request: Request, _ context: CityTwinRequestContext, _ query: QueryParameters) async throws -> Representation {
        let layer = try await writableLayer(context)
        let fid = try pathParameter(context, "featureId")
        let source = try FeatureBody.Source(header: request.headers[.contentCRS])
        let bytes = try await FeatureBody.bytes(request, accepted: [MediaTypeName.mergePatch, MediaTypeName.json], context: context)
        let (answer, after) = try await writeLocks.withLock("\(layer.id)/\(fid)") { [self] in
            var after: Feature?
            try await storeWrite(layer, fid) {
                // The patch applies to the feature as stored when the write lands: if another
                // writer changed it after this read, it is read and patched again.
                after = try await store.update(layer: layer.id, reading: [fid], by: context.caller) {
                    let before = try await current(layer, fid, request, context)
                    let patched = try FeatureBody.patched(before, with: bytes, source: source)
                    if patched.geometry != before.geometry { try await checkExtent(patched, query) }
                    try await parking.checkWrite(layer, patched)  // parking
                    return (FeatureChanges(upserts: [patched]), patched)
                }
                localWrites.note()
            }
            return (try await storedFeature(layer, fid, context), after)
        }
        if let after { await retiming.retime(afterWriting: after, to: layer.id, by: context.caller) }  // adaptive control
        return answer
    }

    private func remove(_ request: Request, _ context: CityTwinRequestContext) async throws -> Representation {
        let layer = try await writableLayer(context)
        let fid = try pathParameter(context, "featureId")
        try await parking.checkWrite(layer, nil)  // parking
        return try await writeLocks.withLock("\(layer.id)/\(fid)") { [self] in
            try await storeWrite(layer, fid) {
                try await store.update(layer: layer.id, reading: [fid], by: context.caller) {
                    _ = try await current(layer, fid, request, context)
                    return (FeatureChanges(deletions: [fid]), ())
                }
                localWrites.note()
            }
            return Representation(status: .noContent, mediaType: "", body: [])
        }
    }

    /// The current feature, after `If-Match`: 412 when the tag differs or the feature is
    /// missing and `If-Match` was given, else 404 for a missing feature.
    private func current(_ layer: LayerDefinition, _ fid: String, _ request: Request,
                         _ context: CityTwinRequestContext) async throws -> Feature {
        let feature = try await store.feature(layer: layer.id, id: fid, by: context.caller)
        if let condition = request.headers[.ifMatch] {
            let tag = feature.map(EntityTag.of)
            guard EntityTag.ifMatch(condition, current: tag) else {
                throw Problem(.preconditionFailed, feature == nil
                              ? "If-Match: no feature '\(fid)' in collection '\(layer.id)'"
                              : "If-Match: feature '\(fid)' has changed (its ETag is now \(tag ?? ""))")
            }
        }
        guard let feature else { throw Problem(.featureNotFound, "no feature '\(fid)' in collection '\(layer.id)'") }
        return feature
    }

    /// A store write whose validation errors are rendered as body problems with a JSON path.
    private func storeWrite(_ layer: LayerDefinition, _ fid: String, _ write: () async throws -> Void) async throws {
        do {
            // A failure to follow is the background follower's to make good (CityTwinServer.run), not the write's.
            if layer.id == HydrantStatus.layer { try? await hydrants.prime() }
            try await write()
            await parking.catchUp([layer.id])  // parking: a new reading reaches the view and the screens in this request
            if layer.id == HydrantStatus.layer { _ = try? await hydrants.catchUp() }  // the out-of-service alert
        } catch let e as StoreError where e.code == .invalidFeature {
            let path: String
            switch e.field {
            case nil: path = "$"
            case "geometry"?: path = "$.geometry"
            case "id"?: path = "$.id"
            case let field?: path = "$.properties.\(field)"
            }
            throw Problem(.invalidFeature, "\(path): \(e.message)", parameter: e.field, position: path)
        } catch let e as StoreError where e.code == .duplicateFeature {
            throw Problem(.conflict, "feature '\(fid)' already exists in collection '\(layer.id)'")
        }
    }

    /// The feature as stored now, in CRS84, with its `ETag` and `Content-Crs`.
    private func storedFeature(_ layer: LayerDefinition, _ fid: String, _ context: CityTwinRequestContext) async throws -> Representation {
        guard let feature = try await store.feature(layer: layer.id, id: fid, by: context.caller) else {
            throw Problem(.featureNotFound, "no feature '\(fid)' in collection '\(layer.id)'")
        }
        let projection = try FeatureProjection(target: .crs84)
        let projected = try projection.project([feature])
        var body = GeoJSON.encodeBytes(.feature(projected.first ?? feature), options: projection.writeOptions)
        body.removeLast()
        body.append(UInt8(ascii: ","))
        body += JSONText.members(["links": [
            site.link(itemPath(layer.id, fid), rel: "self", type: MediaTypeName.geoJSON, title: "This feature"),
            site.link("/collections/\(layer.id)", rel: "collection", type: MediaTypeName.json, title: layer.title.zh),
        ]])
        body.append(UInt8(ascii: "}"))
        var headers = HTTPFields()
        headers[.contentCRS] = "<\(projection.target.uri)>"
        headers[.eTag] = EntityTag.of(feature)
        return Representation(mediaType: MediaTypeName.geoJSON, body: body, headers: headers)
    }

    func itemPath(_ collection: String, _ fid: String) -> String {
        "/collections/\(collection)/items/\(QueryParameters.escape(fid))"
    }
}
