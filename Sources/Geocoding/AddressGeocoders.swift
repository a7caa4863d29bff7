import Foundation
import CityModel
import GeoCore
import ProcessRuntime
import TwinStore

/// The address geocoders the `geocoding` process and the `/geocode` route answer with, built once
/// per store and caller from the standard addresses and rebuilt when the change feed shows the
/// addresses layer changed (a call costs one change-feed query, not a 50,000-record index build).
public actor AddressGeocoders {
    /// The geocoders shared by every request of this server or worker.
    public static let shared = AddressGeocoders()
    /// The standard address layer.
    public static let layer = "addresses"

    private struct Key: Hashable {
        var store: ObjectIdentifier
        var caller: Caller
    }
    private var cache: [Key: (geocoder: AddressGeocoder, sequence: Int64)] = [:]

    public init() {}

    /// The geocoder over the addresses `caller` may read (one per access class: users of one
    /// department and role share it).
    /// - Throws: `ScenarioError` `.missingLayer` when the caller reads no standard addresses,
    ///   `.invalidDistrict` when a record breaks the address tree.
    public func geocoder(for store: any FeatureStore, by caller: Caller) async throws -> AddressGeocoder {
        guard type(of: store) is AnyClass else { return try await Self.build(store, caller) }
        let key = Key(store: ObjectIdentifier(store as AnyObject), caller: caller.accessClass)
        if let cached = cache[key] {
            let (changed, since) = try await store.changes(to: [Self.layer], since: cached.sequence, by: caller)
            if !changed {
                cache[key] = (cached.geocoder, since)
                return cached.geocoder
            }
        }
        let sequence = try await store.latestChange()  // before the build: a change during it is seen next time
        let geocoder = try await Self.build(store, caller)
        cache[key] = (geocoder, sequence)
        return geocoder
    }

    static func build(_ store: any FeatureStore, _ caller: Caller) async throws -> AddressGeocoder {
        guard try await store.layerDefinition(layer, for: caller) != nil else {
            throw ScenarioError(.missingLayer, "no standard addresses (layer \(layer)) the caller may read")
        }
        var features: [Feature] = []
        for try await f in store.stream(layer: layer, FeatureQuery(limit: FeatureQuery.maximumLimit), by: caller) { features.append(f) }
        guard !features.isEmpty else { throw ScenarioError(.missingLayer, "the \(layer) layer holds no standard addresses") }
        do { return try AddressGeocoder(features: features) } catch let e as AddressDataError {
            throw ScenarioError(.invalidDistrict, "the \(layer) layer cannot be geocoded against: \(e)")
        }
    }
}

extension AddressMatch {
    /// The match as a process output or `/geocode` answer: what was asked (`input`), code, level,
    /// confidence (0…1), address, lon/lat and, for a reverse match, the distance. A match
    /// coarser than its text asks for adds `fallback`: the level asked for (`requested_level`),
    /// `reason`, and whether lon/lat are the number's position interpolated along the road
    /// (`interpolated`) or the matched record's own point.
    public func json(input: JSONValue) -> JSONValue {
        var o: [String: JSONValue] = [
            "input": input, "address_code": .string(code), "match_level": .string(level.rawValue),
            "confidence": .number((confidence * 1000).rounded() / 1000), "matched_address": .string(record.fullAddress),
            "lon": .number(position.x), "lat": .number(position.y),
        ]
        if let distance { o["distance_m"] = .number((distance * 10).rounded() / 10) }
        if let fallback {
            o["fallback"] = .object(["requested_level": .string(fallback.requested.rawValue), "reason": .string(fallback.reason),
                                     "interpolated": .bool(fallback.position != nil)])
        }
        return .object(o)
    }
}
