import GeoCore
import Hummingbird
import Scenarios
import TwinStore

extension CityTwinServer {
    /// `/geocode`: one address (or one point) for a service that needs no process: the same
    /// geocoder and the same answer as the `geocoding` process's match.
    var geocodeOperations: [APIOperation] {
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
                    guard let match = try await AddressGeocoders.shared.geocoder(for: store, by: context.caller).geocode(q) else {
                        throw Problem(.notFound, "no standard address matches '\(q)'")
                    }
                    return .json(match.json(input: .string(q)))
                }
                guard let lonText = query["lon"], let latText = query["lat"] else {
                    throw Problem.invalid("q", "give an address text q, or a point as lon and lat")
                }
                guard let lon = Double(lonText), (-180...180).contains(lon) else { throw Problem.invalid("lon", "must be a longitude in degrees") }
                guard let lat = Double(latText), (-90...90).contains(lat) else { throw Problem.invalid("lat", "must be a latitude in degrees") }
                guard let match = try await AddressGeocoders.shared.geocoder(for: store, by: context.caller).reverseGeocode(Position(x: lon, y: lat)) else {
                    throw Problem(.notFound, "no door plate or building within 500 m of (\(lon), \(lat))")
                }
                return .json(match.json(input: [.number(lon), .number(lat)]))
            },
        ]
    }
}
