import Foundation
import GeoCore
import TwinStore

/// Which SensorThings Things stand for which devices of the register (a Thing's
/// `properties.iot_device`), kept per store and brought up to date from the change feed: a Thing
/// created, edited or deleted since is read again by id. Joining a tile's or a page's features to
/// their latest readings asks for the Things of a few devices; listing every Thing of a city for it
/// grew with the city.
actor DeviceThings {
    static let shared = DeviceThings()

    private struct Entry {
        /// The last change-feed sequence the entry reflects.
        var seen: Int64
        /// The device each Thing names.
        var deviceOf: [Int64: String] = [:]
        var things: [String: [Int64: SensingEntity]] = [:]

        mutating func set(_ id: Int64, _ thing: SensingEntity?) {
            if let old = deviceOf.removeValue(forKey: id) {
                things[old]?[id] = nil
                if things[old]?.isEmpty == true { things[old] = nil }
            }
            guard let thing, let device = SensorFeatureLinks.device(of: thing) else { return }
            deviceOf[id] = device
            things[device, default: [:]][id] = thing
        }
    }

    private var entries: [ObjectIdentifier: Entry] = [:]
    /// The store each identifier was last seen for: a store freed and another made at its address starts afresh.
    private var owners: [ObjectIdentifier: Owner] = [:]
    private struct Owner { weak var store: AnyObject? }

    /// The Things of each of `devices` that has one (in id order).
    func things(of devices: Set<String>, store: any FeatureStore, sensing: any SensingStore) async throws -> [String: [SensingEntity]] {
        guard type(of: store) is AnyClass else { return try await Self.listed(devices, sensing) }
        let key = ObjectIdentifier(store as AnyObject)
        if owners[key]?.store !== (store as AnyObject) {
            entries[key] = nil
            owners[key] = Owner(store: store as AnyObject)
        }
        var entry: Entry
        // Left in place while it is brought up to date: a tile read meanwhile answers from it instead of
        // listing every Thing (a register rarely changes, so the copy below is rarely made).
        if let kept = entries[key] {
            entry = kept
            var changed = Set<Int64>()
            let latest = try await store.follow(since: entry.seen, by: .admin) { events in
                for e in events where e.layer == SensingAlerts.governingLayer {
                    if let id = SensorFeatureLinks.entityID(e.featureID, "sta:Things(") { changed.insert(id) }
                }
                return true
            }
            let ids = changed.sorted()
            let read = ids.isEmpty ? [:] : Dictionary(try await sensing.sensingEntities(.thing, ids: ids).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            for id in ids { entry.set(id, read[id]) }
            entry.seen = latest
        } else {
            entry = Entry(seen: try await store.latestChange())
            for t in try await sensing.sensingEntities(.thing, linkedBy: nil) { entry.set(t.id, t) }
        }
        entries[key] = entry
        var out: [String: [SensingEntity]] = [:]
        for d in devices { if let t = entry.things[d] { out[d] = t.keys.sorted().map { t[$0]! } } }
        return out
    }

    private static func listed(_ devices: Set<String>, _ sensing: any SensingStore) async throws -> [String: [SensingEntity]] {
        var out: [String: [SensingEntity]] = [:]
        for t in try await sensing.sensingEntities(.thing, linkedBy: nil) {
            if let d = SensorFeatureLinks.device(of: t), devices.contains(d) { out[d, default: []].append(t) }
        }
        return out
    }
}
