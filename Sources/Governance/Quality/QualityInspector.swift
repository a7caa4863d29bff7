import Foundation
import GeoCore
import TwinStore

/// Runs a layer's quality checks against a store: reads the layer's current features (as the
/// caller may read them: run it as the owner department for unmasked values), the nodes of its
/// network, the city's extent and the layer's last write, and reports what the checks find.
public struct QualityInspector: Sendable {
    public let store: any FeatureStore
    /// Findings listed per check; the count covers them all.
    public var findingsCap: Int
    /// The layer whose extent is the city's (its administrative divisions); the catalogue's
    /// extent when the store has no such layer.
    public var cityLayer: String

    public init(store: any FeatureStore, findingsCap: Int = 100, cityLayer: String = "admin_divisions") {
        self.store = store
        self.findingsCap = findingsCap
        self.cityLayer = cityLayer
    }

    /// The quality report of `layer` at `now`.
    /// - Throws: `StoreError` `.layerNotFound` when the caller may not read the layer (or a
    ///   network node layer), `.invalidLayerDefinition` for a malformed `quality` object.
    public func report(layer: String, by caller: Caller, now: Date = TwinClock.current.now) async throws -> QualityReport {
        guard let definition = try await store.layerDefinition(layer, for: caller) else {
            throw StoreError(.layerNotFound, "no layer \"\(layer)\"", layer: layer)
        }
        let rules = try QualityRules(definition)
        // The catalogue as the administrator sees it: only extents and the layer's last change
        // leave this function, never a hidden layer's features.
        let catalogue = try await store.layers(for: .admin)
        let extent = Self.cityExtent(catalogue, cityLayer: cityLayer)
        var findings = QualityFindings(cap: findingsCap)
        var checks = FeatureChecks(definition: definition, rules: rules, extent: extent)
        var kinds = checks.kinds.union([.freshness])
        var links: [Feature] = []
        var count = 0
        for try await feature in store.stream(layer: layer, FeatureQuery(limit: 5000), by: caller) {
            count += 1
            checks.check(feature, into: &findings)
            if rules.network != nil { links.append(feature) }
        }
        if let network = rules.network {
            let topology = NetworkTopology(rules: network, nodes: try await nodes(of: network, by: caller))
            topology.check(links, into: &findings)
            kinds.formUnion(network.invert == nil ? NetworkTopology.kinds.subtracting([.flowAgainstInverts]) : NetworkTopology.kinds)
        }
        let lastChange = catalogue.first { $0.definition.id == layer }?.lastChange ?? 0
        let last = try await lastWrite(of: layer, lastChange)
        if let why = Self.staleness(definition.updateFrequency, lastWrite: last, now: now) { findings.add(.freshness, "*", why) }
        return QualityReport(collection: layer, checkedAt: RFC3339.format(now), features: count, updateFrequency: definition.updateFrequency,
                             lastWritten: last.map(RFC3339.format), lastChange: lastChange, checks: findings.checks(kinds))
    }

    /// Why a layer last written at `lastWrite` is stale at `now`, or nil when it is fresh.
    static func staleness(_ frequency: String, lastWrite: Date?, now: Date) -> String? {
        guard let allowed = UpdateFrequency.allowedAge(frequency) else {
            return "the update frequency '\(frequency)' is not one of realtime, hourly, daily, weekly, monthly, quarterly, yearly, as-needed"
        }
        guard allowed.isFinite else { return nil }   // as-needed: never stale, written or not
        guard let lastWrite else { return "never written; \(frequency) data is expected" }
        let age = now.timeIntervalSince(lastWrite)
        guard age > allowed else { return nil }
        return "last written \(RFC3339.format(lastWrite)), \(Self.days(age)) ago; \(frequency) allows \(Self.days(allowed))"
    }

    private static func days(_ seconds: TimeInterval) -> String {
        seconds < 86_400 ? String(format: "%.1f h", seconds / 3600) : String(format: "%.1f days", seconds / 86_400)
    }

    /// The city's extent: its administrative divisions', else the whole catalogue's.
    static func cityExtent(_ catalogue: [LayerInfo], cityLayer: String) -> CityExtent? {
        if let e = catalogue.first(where: { $0.definition.id == cityLayer })?.extent { return CityExtent(catalogue: e) }
        var union: Envelope?
        for info in catalogue {
            guard let e = info.extent else { continue }
            if union == nil { union = e } else { union?.expand(toInclude: e) }
        }
        return union.map { CityExtent(catalogue: $0) }
    }

    /// The instant of the layer's last change (its newest audit entry that changed data).
    private func lastWrite(of layer: String, _ last: Int64) async throws -> Date? {
        guard last > 0 else { return nil }
        return try await store.auditLog(layer: layer, after: last - 1, limit: 1, by: .admin).first?.at
    }

    /// The network's nodes by id, with position and invert.
    private func nodes(of network: QualityRules.NetworkRules, by caller: Caller) async throws -> [String: NetworkTopology.Node] {
        var out: [String: NetworkTopology.Node] = [:]
        for layer in network.nodeLayers {
            for try await f in store.stream(layer: layer, FeatureQuery(limit: 5000), by: caller) {
                guard let id = f.id.map({ "\($0)" }) else { continue }
                var position: Position?
                if case .point(let p)? = f.geometry { position = p.position } else { position = f.geometry?.envelope?.center }
                out[id] = NetworkTopology.Node(position: position, invert: network.invert.flatMap { f.properties[$0.node]?.doubleValue },
                                               isTerminal: network.terminalLayers.contains(layer))
            }
        }
        return out
    }
}
