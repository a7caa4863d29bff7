import Foundation
import Synchronization
import CityModel
import GeoCore
import ProcessRuntime
import TwinStore

/// The address geocoders the `geocoding` process and the `/geocode` route answer with: one index
/// per store and view of the standard addresses (`LayerDerivedCache`), built again when the change
/// feed shows the addresses layer changed (a call costs one change-feed query, not an index build).
///
/// Callers who see the same addresses share one geocoder: the view is the set of the layer's
/// sensitive attributes masked for the caller (none for `addresses`: every reader shares one).
/// Requests arriving during a build wait for it, or, when they accept it (`/geocode`), are answered
/// by the previous index while the new one builds, and are told so. `serve` builds the index when
/// it starts (the administrator's view: `geocoder(for:by:)` with `.admin`), so no request pays for the first build.
public struct AddressGeocoders: Sendable {
    /// The geocoders shared by every request of this server or worker.
    public static let shared = AddressGeocoders()
    /// The standard address layer.
    public static let layer = "addresses"

    /// The default bound on one address index's memory: 1 GiB (a city of 2.25 M standard
    /// addresses takes about 340 MB).
    public static let defaultMemoryLimit = 1 << 30

    private let limit = MemoryLimit()
    private let cache: LayerDerivedCache<AddressGeocoder>

    /// The configured bound, shared by the cache's build closure.
    private final class MemoryLimit: Sendable {
        let bytes = Mutex(AddressGeocoders.defaultMemoryLimit)
    }

    /// A geocoder, and whether it is the previous index answering while a newer one builds.
    public struct Lookup: Sendable {
        public let geocoder: AddressGeocoder
        /// The addresses changed since this index was built; the new index is being built.
        public let rebuilding: Bool
    }

    public init() {
        let limit = limit
        cache = LayerDerivedCache<AddressGeocoder>(layers: [Self.layer]) { store, caller in
            try await Self.build(store, caller, memoryLimit: limit.bytes.withLock { $0 })
        }
    }

    /// Bounds the memory one address index may take (`serve`/`worker --address-index-memory`): a
    /// build that would need more stops and geocoding answers why, naming the option.
    public func setMemoryLimit(_ bytes: Int) {
        limit.bytes.withLock { $0 = bytes }
    }

    /// The geocoder over the addresses `caller` may read, as of now (waits for a rebuild when
    /// the addresses changed).
    /// - Throws: `ScenarioError` `.missingLayer` when the caller reads no standard addresses,
    ///   `.invalidDistrict` when a record breaks the address tree.
    public func geocoder(for store: any FeatureStore, by caller: Caller) async throws -> AddressGeocoder {
        try await lookup(for: store, by: caller, acceptingPrevious: false).geocoder
    }

    /// The geocoder over the addresses `caller` may read. With `acceptingPrevious`, a change
    /// since the last build starts a rebuild and the previous index answers meanwhile
    /// (`rebuilding` says so); without, the call waits for the rebuild.
    public func lookup(for store: any FeatureStore, by caller: Caller, acceptingPrevious: Bool) async throws -> Lookup {
        guard try await store.layerDefinition(Self.layer, for: caller) != nil else {
            throw ScenarioError(.missingLayer, "no standard addresses (layer \(Self.layer)) the caller may read")
        }
        let found = try await cache.lookup(for: store, by: caller, acceptingPrevious: acceptingPrevious)
        return Lookup(geocoder: found.value, rebuilding: found.rebuilding)
    }

    /// Reads the layer a feature at a time into the geocoder's columns: neither the features nor
    /// their records are ever held together, so the build's memory is the index's own.
    static func build(_ store: any FeatureStore, _ caller: Caller, memoryLimit: Int = defaultMemoryLimit) async throws -> AddressGeocoder {
        guard try await store.layerDefinition(layer, for: caller) != nil else {
            throw ScenarioError(.missingLayer, "no standard addresses (layer \(layer)) the caller may read")
        }
        var builder = AddressGeocoder.Builder()
        do {
            for try await f in store.stream(layer: layer, FeatureQuery(limit: FeatureQuery.maximumLimit), by: caller) {
                try builder.append(feature: f)
                // The columns alone past the bound: the finished index (columns and name indexes) cannot fit.
                if builder.count % 4096 == 0, builder.memoryBytes > memoryLimit { throw tooLarge(builder, memoryLimit) }
            }
            guard builder.count > 0 else { throw ScenarioError(.missingLayer, "the \(layer) layer holds no standard addresses") }
            let finished = builder
            let geocoder = try await BlockingWork.run { try finished.build() }
            guard geocoder.memoryBytes <= memoryLimit else { throw tooLarge(builder, memoryLimit) }
            return geocoder
        } catch let e as AddressDataError {
            throw ScenarioError(.invalidDistrict, "the \(layer) layer cannot be geocoded against: \(e)")
        }
    }

    private static func tooLarge(_ builder: AddressGeocoder.Builder, _ limit: Int) -> ScenarioError {
        ScenarioError(.invalidDistrict, "the \(layer) layer's index needs more than \(limit >> 20) MiB (\(builder.count) records read), "
                      + "the memory one address index may take: raise serve's or worker's --address-index-memory to geocode it")
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
