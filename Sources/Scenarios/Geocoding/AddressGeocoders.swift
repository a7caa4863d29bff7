import Foundation
import CityModel
import GeoCore
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

    /// The geocoder over the addresses `caller` may read.
    /// - Throws: `ScenarioError` `.missingLayer` when the caller reads no standard addresses.
    public func geocoder(for store: any FeatureStore, by caller: Caller) async throws -> AddressGeocoder {
        guard type(of: store) is AnyClass else { return try await Self.build(store, caller) }
        let key = Key(store: ObjectIdentifier(store as AnyObject), caller: caller)
        if let cached = cache[key] {
            var since = cached.sequence, changed = false
            while true {
                let events = try await store.changes(since: since, limit: 1000, by: caller)
                guard let last = events.last else { break }
                if events.contains(where: { $0.layer == Self.layer }) { changed = true }
                since = last.sequence
            }
            if !changed {
                cache[key] = (cached.geocoder, since)
                return cached.geocoder
            }
        }
        let sequence = try await StoreRoadGraph.latestSequence(of: store, after: 0, by: caller)
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
        return try AddressGeocoder(features: features)
    }
}

extension AddressMatch {
    /// The match as a process output or `/geocode` answer: code, level, confidence (0…1),
    /// address, lon/lat and, for a reverse match, the distance.
    public var json: JSONValue {
        var o: [String: JSONValue] = [
            "address_code": .string(code), "match_level": .string(level.rawValue),
            "confidence": .number((confidence * 1000).rounded() / 1000), "matched_address": .string(record.fullAddress),
            "lon": .number(position.x), "lat": .number(position.y),
        ]
        if let distance { o["distance_m"] = .number((distance * 10).rounded() / 10) }
        return .object(o)
    }
}
