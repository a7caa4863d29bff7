import CityModel
import Foundation
import Geocoding
import GeoCore
import Hummingbird
import ProcessRuntime
import Scenarios
import TwinStore

/// `/geocode`: one address (forward or reverse) by GET, a CSV table by POST.
struct GeocodeRoutes: OperationCollection {
    /// A single address is answered at once: after the standard addresses changed, by the
    /// previous index while the new one builds, and the answer says so (`index_rebuilding`).
    static func answer(_ match: JSONValue, _ index: AddressGeocoders.Lookup) -> JSONValue {
        guard index.rebuilding, case .object(var o) = match else { return match }
        o["index_rebuilding"] = true
        return .object(o)
    }
    static let rebuildingNote = " (the address index is being rebuilt after a change to the standard addresses: try again shortly)"

    let store: any FeatureStore
    /// The processes: a table is geocoded by the `geocoding` process.
    let processes: ProcessRegistry
    /// `/geocode`: one address (or one point) for a service that needs no process: the same
    /// geocoder and the same answer as the `geocoding` process's match.
    var operations: [APIOperation] {
        [
            APIOperation(
                id: "getGeocode", method: .get, path: "/geocode",
                summary: "The standard address best matching an address text (q), or nearest to a point (lon, lat): code, match level, confidence (0–1), full address and position.",
                tag: "Service",
                parameters: [APIParameter("q", "An address text to geocode (forward), e.g. 新洲区邾城街道问津大道12号.", schema: ["type": "string"]),
                             APIParameter("lon", "Longitude (CRS84) of a point to reverse geocode, with lat.", schema: ["type": "number"]),
                             APIParameter("lat", "Latitude (CRS84) of a point to reverse geocode, with lon.", schema: ["type": "number"])],
                responses: [.ok("The best match.", [(MediaTypeName.json, "AddressMatch")]),
                            .problem(404, "No standard address matches.")] + APIResponse.standardProblems
            ) { [self] _, context, query in
                // The standard addresses are shared with departments: a caller who may not read them is told so (401/403).
                _ = try await ProcessLayers(reads: [AddressGeocoders.layer]).check(process: "geocoding", store: store, caller: context.caller)
                if let q = query["q"] {
                    guard query["lon"] == nil, query["lat"] == nil else { throw Problem.invalid("q", "give q or lon and lat, not both") }
                    guard !q.trimmingCharacters(in: .whitespaces).isEmpty else { throw Problem.invalid("q", "must be a non-empty address text") }
                    let index = try await AddressGeocoders.shared.lookup(for: store, by: context.caller, acceptingPrevious: true)
                    guard let match = index.geocoder.geocode(q) else {
                        throw Problem(.notFound, "no standard address matches '\(q)'\(index.rebuilding ? Self.rebuildingNote : "")")
                    }
                    return .json(Self.answer(match.json(input: .string(q)), index))
                }
                guard let lonText = query["lon"], let latText = query["lat"] else {
                    throw Problem.invalid("q", "give an address text q, or a point as lon and lat")
                }
                guard let lon = Double(lonText), (-180...180).contains(lon) else { throw Problem.invalid("lon", "must be a longitude in degrees") }
                guard let lat = Double(latText), (-90...90).contains(lat) else { throw Problem.invalid("lat", "must be a latitude in degrees") }
                let index = try await AddressGeocoders.shared.lookup(for: store, by: context.caller, acceptingPrevious: true)
                guard let match = index.geocoder.reverseGeocode(Position(x: lon, y: lat)) else {
                    throw Problem(.notFound, "no door plate or building within 500 m of (\(lon), \(lat))\(index.rebuilding ? Self.rebuildingNote : "")")
                }
                return .json(Self.answer(match.json(input: [.number(lon), .number(lat)]), index))
            },
            APIOperation(
                id: "geocodeTable", method: .post, path: "/geocode",
                summary: "A CSV table (the body, with a header row: UTF-8, or GBK/GB18030 when Content-Type says charset=gbk) geocoded row by row: the table comes back (UTF-8) with address_code, match_level, confidence, matched_address, lon, lat and reason appended. A broken or unmatched row says why in reason; the other rows still answer. The geocoding process's csv input, as an upload.",
                tag: "Service",
                parameters: [APIParameter("column", "The column holding the address text (forward; default address).", schema: ["type": "string"]),
                             APIParameter("reverse", "true: the rows are points (lonColumn, latColumn, CRS84) to reverse geocode.",
                                          schema: ["type": "boolean", "default": false]),
                             APIParameter("lonColumn", "Longitude column for reverse (default lon).", schema: ["type": "string"]),
                             APIParameter("latColumn", "Latitude column for reverse (default lat).", schema: ["type": "string"])],
                responses: [.ok("The table with the match columns and the reason appended.", [("text/csv", "CSVText")]),
                            .problem(413, "The body is larger than the server accepts (--max-body-bytes)."),
                            .problem(415, "Not text/csv, or a charset other than UTF-8 and GBK (GB2312, CP936, GB18030).")] + APIResponse.standardProblems,
                requestBody: APIRequestBody(description: "A CSV table, header row first: UTF-8, or GBK (Excel's CSV on a Chinese Windows) with `Content-Type: text/csv; charset=gbk`.",
                                            content: [("text/csv", "CSVText")])
            ) { [self] request, context, query in
                let encoding = try Self.csvEncoding(request.headers[.contentType])
                let bytes = try await FeatureBody.bytes(request, accepted: ["text/csv"], context: context)
                guard let text = encoding.decode(bytes) else {
                    let hint = encoding == .utf8 ? "; a GBK table (Excel's CSV on a Chinese Windows) says so: Content-Type: text/csv; charset=gbk" : ""
                    throw Problem(.invalidBody, "the CSV body is not valid \(encoding.rawValue) text\(hint)", position: "$")
                }
                var inputs: [String: JSONValue] = ["csv": .string(text)]
                switch query["reverse"]?.lowercased() {
                case nil, "false": if let column = query["column"] { inputs["column"] = .string(column) }
                case "true":
                    inputs["reverse"] = true
                    if let lon = query["lonColumn"] { inputs["lonColumn"] = .string(lon) }
                    if let lat = query["latColumn"] { inputs["latColumn"] = .string(lat) }
                default: throw Problem.invalid("reverse", "must be true or false")
                }
                // The geocoding process answers, as for POST /processes/geocoding/execution with these inputs.
                guard let process = processes["geocoding"] else { throw Problem(.notFound, "this server offers no geocoding process") }
                let result = try await processes.run(process.id, inputs: inputs, caller: context.caller, store: store)
                guard let csv = result["csv"]?.stringValue else { throw Problem(.internalError, "the geocoding process answered without a table") }
                var headers = HTTPFields()
                headers[.contentDisposition] = "inline; filename=\"geocoded.csv\""
                return Representation(mediaType: "text/csv; charset=utf-8; header=present", body: Array(csv.utf8), headers: headers)
            },
        ]
    }

    /// The text encoding a CSV body's `Content-Type` names in its `charset` (UTF-8 when none):
    /// the encodings `citytwin import --encoding` reads (`TextEncoding`); any other is a 415.
    static func csvEncoding(_ contentType: String?) throws -> TextEncoding {
        let parameters = (contentType ?? "").split(separator: ";").dropFirst()
        guard let charset = parameters.lazy.compactMap({ parameter -> String? in
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == "charset" else { return nil }
            return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }).first else { return .utf8 }
        guard let encoding = TextEncoding(name: charset) else {
            throw Problem(.unsupportedMediaType, "the CSV body's charset is \(charset); this operation reads UTF-8 and GBK (GB2312, CP936, GB18030)")
        }
        return encoding
    }
}
