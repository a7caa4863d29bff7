extension FeatureStore {
    /// Walks the change feed after `sequence` to its end: whether any event touched one of
    /// `layers`, and the last sequence seen (`sequence` when nothing happened). What a cache built
    /// from layers (road graphs, geocoders) asks before it answers from memory.
    ///
    /// The last sequence is the feed's end when the walk began, also when its last events are on
    /// layers the caller may not read: the next walk starts after them instead of reading them
    /// again on every call, and a call with nothing new costs one `latestChange()`.
    public func changes(to layers: Set<String>, since sequence: Int64, by caller: Caller) async throws -> (touched: Bool, latest: Int64) {
        var touched = false
        let latest = try await follow(since: sequence, by: caller) { events in
            if !touched, events.contains(where: { layers.contains($0.layer) }) { touched = true }
            return true
        }
        return (touched, latest)
    }

    /// Walks the change feed after `sequence` to its end, handing each batch of events to `batch`
    /// (which returns false to stop early), and returns the last sequence seen: the feed's end when
    /// the walk began at least (`sequence` when nothing happened), so a walk that met nothing
    /// `caller` may read still moves past it. The one way a cache built from the store catches up.
    public func follow(since sequence: Int64, by caller: Caller, _ batch: ([ChangeEvent]) async throws -> Bool) async throws -> Int64 {
        let end = try await latestChange()
        guard end > sequence else { return sequence }
        var since = sequence
        while true {
            let events = try await changes(since: since, limit: 10_000, by: caller)
            guard let last = events.last else { break }
            since = last.sequence
            guard try await batch(events) else { return since }
        }
        return Swift.max(since, end)
    }
}
