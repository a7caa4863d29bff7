/// Values built from whole layers (an address index, a pipe network) once per store and view, and
/// built again when the change feed shows one of the layers changed: a call with nothing new costs
/// one change-feed query, not a read of the layers.
///
/// A view is what a caller reads of the layers: which of them it may read, and which of their
/// sensitive attributes are masked for it. Callers with the same view share one value, so memory is
/// one value per view (at most `maximumViews` of them, the least recently used dropped), not one per
/// department. One build runs per view at a time: calls arriving meanwhile wait for it or, when they
/// accept it, are answered by the previous value and told so (`Lookup.rebuilding`).
///
/// Stores that are not classes are not cached (a value has no identity to key on). An entry holds
/// its store weakly: a store closed and another opened at the same address never meet its values.
public actor LayerDerivedCache<Value: Sendable> {
    public typealias Build = @Sendable (_ store: any FeatureStore, _ caller: Caller) async throws -> Value

    /// A value, and whether it is the previous one answering while a newer one builds.
    public struct Lookup: Sendable {
        public let value: Value
        /// The layers changed since this value was built; the new value is being built.
        public let rebuilding: Bool
    }

    /// The layers the value is built from.
    public nonisolated let layers: Set<String>
    /// How many views stay cached.
    public nonisolated let maximumViews: Int
    private let build: Build

    private struct Key: Hashable {
        var store: ObjectIdentifier
        /// Per layer (sorted by name): nil when the caller may not read it, else its masked attributes.
        var view: [[String]?]
    }
    private struct Entry {
        weak var store: AnyObject?
        var built: (value: Value, sequence: Int64)?
        var building: Task<Value, any Error>?
        var used: UInt64 = 0
    }
    private var entries: [Key: Entry] = [:]
    private var uses: UInt64 = 0

    /// - Parameters:
    ///   - layers: the layers `build` reads; a change to any of them builds the value again.
    ///   - maximumViews: how many views stay cached (at least 1).
    ///   - build: reads the layers as the caller and builds the value.
    public init(layers: Set<String>, maximumViews: Int = 16, build: @escaping Build) {
        self.layers = layers
        self.maximumViews = Swift.max(1, maximumViews)
        self.build = build
    }

    /// The value as `caller` sees the layers now (waits for a build when they changed).
    public func value(for store: any FeatureStore, by caller: Caller) async throws -> Value {
        try await lookup(for: store, by: caller, acceptingPrevious: false).value
    }

    /// The value as `caller` sees the layers. With `acceptingPrevious`, a change since the last
    /// build starts a new build and the previous value answers meanwhile (`rebuilding` says so);
    /// without, the call waits for the new build.
    public func lookup(for store: any FeatureStore, by caller: Caller, acceptingPrevious: Bool) async throws -> Lookup {
        guard type(of: store) is AnyClass else { return Lookup(value: try await build(store, caller), rebuilding: false) }
        let object = store as AnyObject
        let key = Key(store: ObjectIdentifier(object), view: try await view(of: store, by: caller))
        if let entry = entries[key], entry.store !== object { entries[key] = nil }
        uses += 1
        entries[key]?.used = uses
        guard let built = entries[key]?.built else {
            return Lookup(value: try await startBuild(key, store, caller).value, rebuilding: false)
        }
        let (changed, since) = try await store.changes(to: layers, since: built.sequence, by: caller)
        if !changed {
            // Later checks read the feed from here on (unless a newer build replaced the entry meanwhile).
            if entries[key]?.built?.sequence == built.sequence { entries[key]?.built?.sequence = since }
            return Lookup(value: built.value, rebuilding: false)
        }
        // A build that ended while the feed was read, begun after every change just seen, is current.
        if let newer = entries[key]?.built, newer.sequence >= since { return Lookup(value: newer.value, rebuilding: false) }
        let rebuild = startBuild(key, store, caller)
        if acceptingPrevious { return Lookup(value: built.value, rebuilding: true) }
        return Lookup(value: try await rebuild.value, rebuilding: false)
    }

    /// How many views are cached now.
    public var cachedViews: Int { entries.count }

    private func view(of store: any FeatureStore, by caller: Caller) async throws -> [[String]?] {
        var view: [[String]?] = []
        for layer in layers.sorted() {
            guard let definition = try await store.layerDefinition(layer, for: caller) else { view.append(nil); continue }
            view.append(definition.sensitive.filter { !AccessPolicy.seesClearValue(of: $0, in: definition, caller) }.map(\.attribute).sorted())
        }
        return view
    }

    /// The running build of `key`, or a new one.
    private func startBuild(_ key: Key, _ store: any FeatureStore, _ caller: Caller) -> Task<Value, any Error> {
        if let running = entries[key]?.building { return running }
        let build = self.build
        let task = Task<Value, any Error> {
            do {
                let sequence = try await store.latestChange()  // before the build: a change during it is seen next time
                let value = try await build(store, caller)
                self.finished(key, value, sequence)
                return value
            } catch {
                self.finished(key, nil, 0)
                throw error
            }
        }
        if entries[key] == nil {
            uses += 1
            entries[key] = Entry(store: store as AnyObject, used: uses)
        }
        entries[key]?.building = task
        trim()
        return task
    }

    private func finished(_ key: Key, _ value: Value?, _ sequence: Int64) {
        guard entries[key] != nil else { return }
        entries[key]?.building = nil
        if let value { entries[key]?.built = (value, sequence) }
    }

    private func trim() {
        entries = entries.filter { $0.value.store != nil || $0.value.building != nil }
        while entries.count > maximumViews,
              let oldest = entries.filter({ $0.value.building == nil }).min(by: { $0.value.used < $1.value.used })?.key {
            entries[oldest] = nil
        }
    }
}
