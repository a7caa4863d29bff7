import Foundation
import GeoCore
import Hummingbird
import HTTPTypes
import Sensing
import TwinStore

/// The OGC SensorThings API 1.1 Part 1 (Sensing) at `/sta/v1.1`, with the Data Array
/// extension (`CreateObservations`, `$resultFormat=dataArray`) and FROST-Server's
/// `$resultFormat=CSV` for a notebook-ready export of observations.
///
/// Access follows the governing layer `iot_devices` (the city's IoT device register): a
/// caller who may read that layer reads every SensorThings entity, a caller who may write it
/// (its owner department's editors, the admin) writes; anonymous callers of a non-open layer
/// get 401. Writes are audited in that layer's audit log (`sta:Things(1)`, …).
struct SensorThingsRoutes: OperationCollection {
    let store: any FeatureStore
    let site: SiteLinks
    /// Subscribers of threshold alerts (`/alerts/events`).
    let alertFeed: AlertFeed
    /// The bound on SensorThings writes at once (`RequestLimits.sensingWriteQueue`), shared with MQTT.
    let sensingWrites: WriteAdmission
    /// The MQTT broker's subscribers, told of every write.
    let mqtt: SensorThingsMQTT
    let localWrites: LocalWrites
    /// Readings of a parking lot's Datastream recorded as its occupancy.
    let parking: ParkingUpkeep
    /// Readings of a bound Datastream recorded as traffic counts.
    let trafficCounts: TrafficCountRecording
    /// A hydrant's pressure meter sets its status; a hydrant out of service is an alert.
    let hydrants: HydrantStatus
    /// The open event streams (`/alerts/events` among them), counted per caller, tokens checked.
    let streams: LiveStreams

    /// The catalogue layer whose sharing class and owner govern the SensorThings service.
    static let sensorThingsLayer = SensingAlerts.governingLayer
    static let sensorThingsRoot = "/sta/v1.1"

    static let sensorThingsConformance: [JSONValue] = [
        "http://www.opengis.net/spec/iot_sensing/1.1/req/datamodel",
        "http://www.opengis.net/spec/iot_sensing/1.1/req/resource-path/resource-path-to-entities",
        "http://www.opengis.net/spec/iot_sensing/1.1/req/request-data",
        "http://www.opengis.net/spec/iot_sensing/1.1/req/create-update-delete",
        "http://www.opengis.net/spec/iot_sensing/1.1/req/data-array/data-array",
        "http://www.opengis.net/spec/iot_sensing/1.1/req/data-array/create-observations-via-data-array",
    ]

    /// The SensorThings API: the service root and every resource path under it. A resource path has
    /// several segments (`Things(1)/Datastreams`, `Datastreams(2)/Observations`), so the router takes
    /// it whole (`/sta/v1.1/**`) and the OpenAPI document names it as one parameter; the query
    /// options are SensorThings' (`$filter`, `$expand`, …), checked by its reader.
    /// The SensorThings operations, then `/alerts/events`.
    var operations: [APIOperation] { sensorThingsOperations + alertOperations }

    private var sensorThingsOperations: [APIOperation] {
        let root = Self.sensorThingsRoot
        let resourcePath = APIParameter("resourcePath", in: .path, "A SensorThings resource path: an entity set (Things, Locations, HistoricalLocations, Datastreams, Sensors, ObservedProperties, Observations, FeaturesOfInterest), an entity (Things(1)), a navigation (Things(1)/Datastreams), a property (Things(1)/name, …/$value) or CreateObservations.",
                                        key: "staResourcePath")
        func option(_ name: String, _ description: String, _ schema: JSONValue = ["type": "string"]) -> APIParameter {
            APIParameter(name, description, schema: schema, key: "sta" + name.dropFirst())
        }
        let query = [
            option("$filter", "An OData filter on the entity set (SensorThings 1.1 §9.3.3.5): comparisons, logical and arithmetic operators, string, date and geospatial functions."),
            option("$expand", "Related entities to include inline, with their own options: Datastreams($select=name;$top=5)."),
            option("$select", "The properties to answer, comma-separated."),
            option("$orderby", "Properties to sort by, each asc or desc."),
            option("$top", "At most this many entities (default 100).", ["type": "integer", "minimum": 0]),
            option("$skip", "Skip this many entities.", ["type": "integer", "minimum": 0]),
            option("$count", "true: the answer carries @iot.count.", ["type": "boolean"]),
            option("$resultFormat", "dataArray (the Data Array extension) or CSV (FROST-Server's) for Observations.", ["type": "string", "enum": ["dataArray", "CSV"]]),
        ]
        let body = APIRequestBody(description: "A SensorThings entity as JSON (POST creates it in the entity set, with related entities inline or by @iot.id; PATCH merges into the entity); for CreateObservations, the Data Array extension's array.",
                                  content: [(MediaTypeName.json, "SensorThingsEntity")])
        let problems: [APIResponse] = [.problem(401, "The service is not open and the request has no token (Bearer, or the password of HTTP Basic)."),
                                       .problem(404, "No such entity, set or property.")] + APIResponse.standardProblems
        let handle: APIOperation.Handler = { [self] request, context, _ in
            try await sensorThings(request, context, path: request.uri.path.dropFirst(root.count + 1))
        }
        return [
            APIOperation(
                id: "getSensorThingsRoot", method: .get, path: root,
                summary: "The SensorThings API 1.1 service root: its entity sets and the conformance classes served.",
                tag: "Data", parameters: [],
                responses: [.ok("value [{name, url}] and serverSettings.conformance.", [(MediaTypeName.json, "SensorThingsEntity")])] + problems
            ) { [self] _, context, _ in
                _ = try await sensorThingsAccess(context.caller, write: false)
                return serviceRoot()
            },
            APIOperation(
                id: "getSensorThings", method: .get, path: root + "/{resourcePath}",
                summary: "Reads SensorThings entities, sets, navigations and properties, with the query options of SensorThings 1.1.",
                tag: "Data", parameters: [resourcePath] + query,
                responses: [.ok("An entity, or {value, @iot.count, @iot.nextLink} for a set; a property as {name: value}, or its $value as text.",
                                [(MediaTypeName.json, "SensorThingsEntity")])] + problems,
                routerPath: root + "/**", handler: handle),
            APIOperation(
                id: "createSensorThings", method: .post, path: root + "/{resourcePath}",
                summary: "Creates an entity in a set (its related entities inline or by @iot.id), or many Observations with CreateObservations; audited in iot_devices' log.",
                tag: "Data", parameters: [resourcePath],
                responses: [APIResponse(status: 201, description: "The entity created (its URL in Location); for CreateObservations, the URLs of the Observations created.",
                                        content: [(MediaTypeName.json, "SensorThingsEntity")])] + problems,
                requestBody: body, routerPath: root + "/**", handler: handle),
            APIOperation(
                id: "updateSensorThings", method: .patch, path: root + "/{resourcePath}",
                summary: "Merges properties into an entity (JSON merge); audited.",
                tag: "Data", parameters: [resourcePath],
                responses: [.ok("The entity as updated.", [(MediaTypeName.json, "SensorThingsEntity")])] + problems,
                requestBody: body, routerPath: root + "/**", handler: handle),
            APIOperation(
                id: "deleteSensorThings", method: .delete, path: root + "/{resourcePath}",
                summary: "Deletes an entity with what depends on it (a Thing's Datastreams and their Observations); audited.",
                tag: "Data", parameters: [resourcePath],
                responses: [APIResponse(status: 200, description: "Deleted.", content: [])] + problems,
                routerPath: root + "/**", handler: handle),
        ]
    }

    /// Server-Sent Events: one `alert` event (a GeoJSON feature of `alerts`) per alert raised,
    /// updated or cleared (by a threshold or a flood nowcast), from the moment of subscription, until the client disconnects; a
    /// comment line as heartbeat every 15 s.
    private var alertOperations: [APIOperation] {
        [
            APIOperation(
                id: "getAlertEvents", method: .get, path: "/alerts/events",
                summary: "Alerts as Server-Sent Events: each alert raised, updated or cleared (by a threshold or a flood nowcast) from the moment of subscription.",
                tag: "Data", parameters: [],
                responses: [.ok("Server-Sent Events until the client disconnects: `alert` (a GeoJSON feature of alerts), a comment as heartbeat every 15 s; a last `error` event (a problem document) when the token that opened the stream is revoked, expires or no longer matches the secret.",
                                [("text/event-stream", "AlertEvents")]),
                            .problem(401, "The SensorThings service is not open and the request has no token."),
                            .problem(429, "The caller has as many event streams open as it may (--token-streams, --address-streams).")]
                    + APIResponse.standardProblems
            ) { [self] _, context, _ in
                _ = try await sensorThingsAccess(context.caller, write: false)
                let ticket = StreamTicket(try streams.open(context, kind: "alerts"), in: streams)
                return Representation.featureEventStream(try await alertFeed.subscribe(), ticket: ticket, banner: "CityTwin alerts") { _ in "alert" }
            },
        ]
    }

    private func serviceRoot() -> Representation {
        let base = site.url(Self.sensorThingsRoot)
        let sets = SensingKind.allCases.map { k -> JSONValue in ["name": .string(k.entitySet), "url": .string("\(base)/\(k.entitySet)")] }
        return .json(["value": .array(sets), "serverSettings": ["conformance": .array(Self.sensorThingsConformance)]])
    }

    /// The SensorThings store and the governing layer, after checking `caller` may read (or write) it.
    /// `feedOnly`: the caller may not write the API but may send traffic counts through it (the
    /// writer then refuses anything else: Routes/SensorThings/TrafficCountRecording.swift).
    func sensorThingsAccess(_ caller: Caller, write: Bool) async throws -> (any SensingStore, LayerDefinition, feedOnly: Bool) {
        guard let sensing = store as? any SensingStore else {
            throw Problem(.notFound, "this store has no SensorThings tables")
        }
        guard let def = try await store.layerDefinition(Self.sensorThingsLayer, for: caller) else {
            if caller == .anonymous {
                throw Problem(.unauthorized, "the SensorThings service needs a department token (Bearer, or the password of HTTP Basic)")
            }
            throw Problem(.notFound, "the SensorThings service is governed by layer '\(Self.sensorThingsLayer)', which this caller cannot read")
        }
        if write, !AccessPolicy.canWrite(def, caller) {
            if caller == .anonymous { throw Problem(.unauthorized, "SensorThings writes need a department token (Bearer, or the password of HTTP Basic)") }
            if try await trafficCounts.mayFeed(caller) { return (sensing, def, true) }
            throw Problem(.forbidden, "SensorThings writes need an editor of \(def.owner) or an admin")
        }
        return (sensing, def, false)
    }

    private func sensorThings(_ request: Request, _ context: CityTwinRequestContext, path: Substring) async throws -> Representation {
        let method = request.method
        let (sensing, _, feedOnly) = try await sensorThingsAccess(context.caller, write: method != .get)
        // A write waits for the store only while the queue has room; else 503 before any byte is written.
        guard method == .get || sensingWrites.enter() else {
            throw Problem(.writeQueueFull, "\(sensingWrites.limit) SensorThings writes are already in progress or waiting; nothing was written, send it again",
                          retryAfter: 1)
        }
        defer { if method != .get { sensingWrites.leave() } }
        let monitor = AlertMonitor(store: store, sensing: sensing, hydrants: hydrants)
        let query = try QueryParameters(request.uri.query)
        let reader = STAReader(store: sensing, root: site.url(Self.sensorThingsRoot))
        if path == "CreateObservations" {
            guard method == .post else { throw Problem(.notFound, "CreateObservations takes POST") }
            let writer = trafficCounts.staWriter(reader, caller: context.caller, feedOnly: feedOnly)
            let ids = try await writer.createObservations(try await APIRequestBody.json(request, context: context))
            mqtt.changed(writer.change, observationIDs: ids)  // MQTT subscribers (MQTTSensorThings.swift)
            try await monitor.evaluate(writer.change, ids: ids, by: context.caller)
            localWrites.note()  // tiles showing the readings, change subscribers
            await parking.recordReadings(writer, sensing: sensing, by: context.caller)  // parking: Routes/ParkingRoutes.swift
            await trafficCounts.record(writer, sensing: sensing, by: context.caller)  // Routes/SensorThings/TrafficCountRecording.swift
            return .json(.array(ids.map { .string(reader.selfLink(.observation, $0)) }), status: .created)
        }
        let (node, ref) = try await reader.resolve(try STAPath(path))
        switch method {
        case .get:
            return try await read(node, ref: ref, reader: reader, query: query, path: String(path))
        case .post:
            guard case .collection(let kind, let source) = node, !ref else { throw Problem(.notFound, "POST creates entities in a collection") }
            let body = try await APIRequestBody.json(request, context: context)
            let id = try await createSensingEntity(kind, in: source, body, reader: reader, sensing: sensing, caller: context.caller, feedOnly: feedOnly)
            guard let row = try await reader.row(kind, id) else { throw Problem(.internalError, "the new \(kind.rawValue) vanished") }
            var answer = Representation.json(.object(try await reader.render(row, STAQueryOptions())), status: .created)
            answer.headers[.location] = reader.selfLink(kind, id)
            return answer
        case .patch:
            guard case .entity(let kind, let id) = node, !ref else { throw Problem(.notFound, "PATCH changes one entity") }
            let body = try await APIRequestBody.json(request, context: context)
            // The patch applies to the entity as stored when it lands: when another writer (another
            // server on the store) changed it after it was read here, it is read and patched again.
            let writer = try await StoreError.retryingChangedVersions {
                let writer = trafficCounts.staWriter(reader, caller: context.caller, feedOnly: feedOnly)
                try await writer.patch(kind, id, body)
                return writer
            }
            mqtt.changed(writer.change, observationIDs: [])  // MQTT subscribers of the entity and its properties
            // A corrected reading: the alert its old version raised ends, and its Datastream's newest
            // reading (the corrected one, unless it is a late one) is evaluated again.
            try await monitor.withdraw(writer.withdrawn.map(\.observation) + writer.change.observationUpdates, by: context.caller)
            try await monitor.evaluate(writer.change, ids: [], by: context.caller)  // and readings a deep insert in the PATCH created
            localWrites.note()  // tiles showing the readings, change subscribers
            await parking.recordReadings(writer, sensing: sensing, by: context.caller)  // a corrected reading
            await trafficCounts.record(writer, sensing: sensing, by: context.caller)  // a corrected count
            guard let row = try await reader.row(kind, id) else { throw Problem(.internalError, "the \(kind.rawValue) vanished") }
            return .json(.object(try await reader.render(row, STAQueryOptions())))
        case .delete:
            guard case .entity(let kind, let id) = node, !ref else { throw Problem(.notFound, "DELETE removes one entity") }
            let writer = trafficCounts.staWriter(reader, caller: context.caller, feedOnly: feedOnly)
            try await writer.delete(kind, id)
            try await monitor.withdraw(writer.withdrawn.map(\.observation), by: context.caller)  // the alert a deleted reading raised
            localWrites.note()  // tiles showing the readings, change subscribers
            await parking.recordReadings(writer, sensing: sensing, by: context.caller)  // a reading taken back
            await trafficCounts.record(writer, sensing: sensing, by: context.caller)  // a count taken back
            return Representation(status: .ok, mediaType: MediaTypeName.json, body: [])
        default:
            throw Problem(.notFound, "no such operation")
        }
    }

    /// Creates the entity `body` describes in the collection `source` of `kind` (an HTTP POST, or an
    /// MQTT PUBLISH: MQTTSensorThings.swift) and returns its id, once committed with its audit entry,
    /// told to MQTT subscribers, its readings' alerts evaluated and the live feeds recorded.
    func createSensingEntity(_ kind: SensingKind, in source: STASource, _ body: JSONValue, reader: STAReader, sensing: any SensingStore,
                             caller: Caller, feedOnly: Bool) async throws -> Int64 {
        let monitor = AlertMonitor(store: store, sensing: sensing, hydrants: hydrants)
        let writer = trafficCounts.staWriter(reader, caller: caller, feedOnly: feedOnly)
        var back: (String, Int64)?
        var holds: (SensingKind, Int64, String)?
        switch source {
        case .all: break
        case .linked(let link): back = (link.name, link.id)
        case .observations(let range):
            if let d = range.datastream { back = ("Datastream", d) }
            if let f = range.featureOfInterest { back = ("FeatureOfInterest", f) }
        case .ids(_, let holder):
            holds = holder
        }
        let temp = try await writer.create(kind, body, path: "$", back: back)
        if let (holderKind, holderID, name) = holds { try await writer.link(holderKind, holderID, name, to: temp) }
        let ids = try await writer.commit()
        mqtt.changed(writer.change, observationIDs: ids)  // MQTT subscribers (MQTTSensorThings.swift)
        try await monitor.evaluate(writer.change, ids: ids, by: caller)
        localWrites.note()  // tiles showing the readings, change subscribers
        await parking.recordReadings(writer, sensing: sensing, by: caller)  // parking
        await trafficCounts.record(writer, sensing: sensing, by: caller)
        return kind == .observation ? (ids.first ?? writer.mapping(temp)) : writer.mapping(temp)
    }

    private func read(_ node: STANode, ref: Bool, reader: STAReader, query: QueryParameters, path: String) async throws -> Representation {
        let options = try STAQueryOptions(query: query)
        switch node {
        case .collection(let kind, let source):
            if let format = options.resultFormat, kind != .observation {
                throw Problem.invalid("$resultFormat", "\(format) applies to Observations")
            }
            if options.resultFormat == "dataArray", !ref, case .observations(let base) = source,
               let page = try await reader.indexedObservations(base, options, size: options.pageSize) {
                // The index answers it all: rows straight from the observations read (no STARow each).
                var out = [String: JSONValue]()
                if let count = page.count { out["@iot.count"] = .integer(Int64(count)) }
                if page.more {
                    let skip = options.skip + page.observations.count
                    out["@iot.nextLink"] = .string(site.url(Self.sensorThingsRoot) + "/" + path + STAReader.queryString(options, skip: skip, original: query))
                }
                out["value"] = .array(Self.dataArray(page.observations, options, reader: reader))
                return .json(.object(out))
            }
            let (rows, more, count) = try await reader.select(kind, source, options)
            var out = [String: JSONValue]()
            if let count { out["@iot.count"] = .integer(Int64(count)) }
            if more {
                let skip = options.skip + rows.count
                out["@iot.nextLink"] = .string(site.url(Self.sensorThingsRoot) + "/" + path + STAReader.queryString(options, skip: skip, original: query))
            }
            if options.resultFormat == "CSV", !ref {
                return Self.csv(rows, options, next: out["@iot.nextLink"]?.stringValue)
            }
            if ref {
                out["value"] = .array(rows.map { ["@iot.selfLink": .string(reader.selfLink($0.kind, $0.id))] })
            } else if options.resultFormat == "dataArray" {
                out["value"] = .array(Self.dataArray(rows, options, reader: reader))
            } else {
                var values = [JSONValue]()
                values.reserveCapacity(rows.count)
                for r in rows { values.append(.object(try await reader.render(r, options))) }
                out["value"] = .array(values)
            }
            return .json(.object(out))
        case .entity(let kind, let id):
            guard let row = try await reader.row(kind, id) else { throw Problem(.notFound, "no \(kind.rawValue) with @iot.id \(id)") }
            if ref { return .json(["@iot.selfLink": .string(reader.selfLink(kind, id))]) }
            return .json(.object(try await reader.render(row, options)))
        case .property(let kind, let id, let name, let raw):
            guard let row = try await reader.row(kind, id) else { throw Problem(.notFound, "no \(kind.rawValue) with @iot.id \(id)") }
            let value: JSONValue = name == "id" ? .integer(id) : (row.json[name] ?? .null)
            if raw {
                let text: String = if case .string(let s) = value { s } else { String(decoding: JSONText.bytes(value), as: UTF8.self) }
                return Representation(mediaType: "text/plain; charset=utf-8", body: Array(text.utf8))
            }
            return .json([name: value])
        }
    }

    /// Observations as CSV (`$resultFormat=CSV`, as FROST-Server's CSV result format): a header of
    /// the columns (`$select`, default `id, phenomenonTime, resultTime, result, Datastream/id,
    /// FeatureOfInterest/id`), one row per observation; objects and arrays as JSON text. Ready for
    /// `pandas.read_csv(url)`; the next page, if any, is the `Link` header's `rel="next"`.
    static func csv(_ rows: [STARow], _ options: STAQueryOptions, next: String?) -> Representation {
        let columns = options.select ?? ["id", "phenomenonTime", "resultTime", "result", "Datastream/id", "FeatureOfInterest/id"]
        // Every field through `CSVField`: a number result is written as the number it is, text (a
        // category result, a parameter) that a spreadsheet would take for a formula gets its quote.
        func cell(_ v: JSONValue?) -> String {
            switch v {
            case nil, .null?: return ""
            case .string(let s)?: return CSVField.text(s)
            case .integer(let i)?: return CSVField.text(String(i), as: .number)
            case .number(let d)?: return d.isFinite ? CSVField.text("\(d)", as: .number) : ""
            case .bool(let b)?: return b ? "true" : "false"
            case let other?: return CSVField.text(String(decoding: JSONText.bytes(other), as: UTF8.self))
            }
        }
        var out = CSVField.record(columns) + "\r\n"
        for r in rows {
            out += columns.map { c -> String in
                switch c {
                case "id", "@iot.id": String(r.id)
                case "Datastream/id": r.toOne["Datastream"].map(String.init) ?? ""
                case "FeatureOfInterest/id": r.toOne["FeatureOfInterest"].map(String.init) ?? ""
                default: cell(r.json[c])
                }
            }.joined(separator: ",") + "\r\n"
        }
        var answer = Representation(mediaType: "text/csv; charset=utf-8; header=present", body: Array(out.utf8))
        if let next { answer.headers[HTTPField.Name("Link")!] = "<\(next)>; rel=\"next\"" }
        return answer
    }

    /// Observations grouped by Datastream as `components` + `dataArray` rows (Data Array extension).
    static func dataArray(_ rows: [STARow], _ options: STAQueryOptions, reader: STAReader) -> [JSONValue] {
        dataArray(rows, components: options.select ?? ["id", "phenomenonTime", "result"], reader: reader, datastream: { $0.toOne["Datastream"] ?? 0 }) { r, c in
            switch c {
            case "id", "@iot.id": .integer(r.id)
            case "FeatureOfInterest/id": r.toOne["FeatureOfInterest"].map { .integer($0) } ?? .null
            default: r.json[c] ?? .null
            }
        }
    }

    /// The same from observations as the store read them (`STAReader.indexedObservations`).
    static func dataArray(_ observations: [SensingObservation], _ options: STAQueryOptions, reader: STAReader) -> [JSONValue] {
        dataArray(observations, components: options.select ?? ["id", "phenomenonTime", "result"], reader: reader, datastream: \.datastream) { o, c in
            switch c {
            case "id", "@iot.id": .integer(o.id)
            case "FeatureOfInterest/id": o.featureOfInterest.map { .integer($0) } ?? .null
            case "phenomenonTime": .string(SensingTime.format(o.phenomenonStart, o.phenomenonEnd))
            case "resultTime": o.resultTime.map { .string(SensingTime.format($0)) } ?? .null
            case "result": o.result
            case "resultQuality": o.resultQuality ?? .null
            case "validTime": o.validStart.map { .string(SensingTime.format($0, o.validEnd)) } ?? .null
            case "parameters": o.parameters ?? .null
            default: .null
            }
        }
    }

    private static func dataArray<Row>(_ rows: [Row], components: [String], reader: STAReader, datastream: (Row) -> Int64,
                                       value: (Row, String) -> JSONValue) -> [JSONValue] {
        var groups = [(Int64, [JSONValue])]()
        var index = [Int64: Int]()
        for r in rows {
            let ds = datastream(r)
            let row: JSONValue = .array(components.map { value(r, $0) })
            if let i = index[ds] { groups[i].1.append(row) } else {
                index[ds] = groups.count
                groups.append((ds, [row]))
            }
        }
        return groups.map { ds, list in
            ["Datastream@iot.navigationLink": .string(reader.selfLink(.datastream, ds)),
             "components": .array(components.map { .string($0) }),
             "dataArray@iot.count": .integer(Int64(list.count)), "dataArray": .array(list)]
        }
    }
}
