extension FeatureStore {
    /// Walks the change feed after `sequence` to its end: whether any event touched one of
    /// `layers`, and the last sequence seen (`sequence` when nothing happened). What a cache built
    /// from layers (road graphs, geocoders) asks before it answers from memory.
    ///
    /// The last sequence is the feed's end when the walk began, also when its last events are on
    /// layers the caller may not read: the next walk starts after them instead of reading them
    /// again on every call, and a call with nothing new costs one `latestChange()`.
    public func changes(to layers: Set<String>, since sequence: Int64, by caller: Caller) async throws -> (touched: Bool, latest: Int64) {
        let end = try await latestChange()
        guard end > sequence else { return (false, sequence) }
        var since = sequence, touched = false
        while true {
            let events = try await changes(since: since, limit: 10_000, by: caller)
            guard let last = events.last else { break }
            if !touched, events.contains(where: { layers.contains($0.layer) }) { touched = true }
            since = last.sequence
        }
        return (touched, Swift.max(since, end))
    }
}
