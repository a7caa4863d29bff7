/// Normalised place names (with aliases and former names) → what they name, with exact lookup of
/// every name starting at a text position and typo-tolerant lookup (one substituted, missing or
/// extra character) through a symmetric-deletion index.
struct NameLexicon<Value: Hashable & Sendable>: Sendable {
    private(set) var entries: [String: [Value]] = [:]
    private var prefixes: Set<String> = []
    private var deletions: [String: [String]] = [:]
    private(set) var longest = 0
    /// Names shorter than this are matched exactly only (a typo in a two-character name is a different name).
    let fuzzyMinimum: Int

    init(fuzzyMinimum: Int = 3) { self.fuzzyMinimum = fuzzyMinimum }

    /// An estimate of the bytes the lexicon holds: a dictionary entry with its key's and its
    /// array's heap storage is about 96 bytes, a set member about 48.
    var memoryBytes: Int { 96 * (entries.count + deletions.count) + 48 * prefixes.count }

    mutating func add(_ name: [Unicode.Scalar], _ value: Value) {
        guard !name.isEmpty else { return }
        let key = Self.string(name[...])
        if entries[key]?.contains(value) == true { return }
        entries[key, default: []].append(value)
        longest = max(longest, name.count)
        for n in 1...name.count { prefixes.insert(Self.string(name[..<n])) }
        if name.count >= fuzzyMinimum {
            for k in Self.deletionKeys(name[...]) where deletions[k]?.contains(key) != true {
                deletions[k, default: []].append(key)
            }
        }
    }

    /// Removes a name (used for aliases that turn out to be ambiguous).
    mutating func remove(_ key: String) { entries[key] = nil }

    func values(_ key: String) -> [Value] { entries[key] ?? [] }

    /// Names found exactly at `start`: (end index, values), shortest first.
    func exactMatches(in text: [Unicode.Scalar], from start: Int) -> [(end: Int, values: [Value])] {
        var out: [(Int, [Value])] = []
        var end = start
        var key = String.UnicodeScalarView()
        while end < text.count && end - start < longest {
            key.append(text[end])
            end += 1
            let s = String(key)
            guard prefixes.contains(s) else { break }
            if let v = entries[s] { out.append((end, v)) }
        }
        return out
    }

    /// Names within one edit (substitution, insertion or deletion) of `slice` but not equal to it,
    /// with the name's length. The slice must have at least `fuzzyMinimum` characters (so a
    /// two-character word never stands for a three-character name). Ordered by name, so the
    /// answer never depends on hashing.
    func fuzzyMatches(_ slice: ArraySlice<Unicode.Scalar>) -> [(name: String, length: Int, values: [Value])] {
        guard slice.count >= fuzzyMinimum else { return [] }
        var candidates: Set<String> = []
        let whole = Self.string(slice)
        if let names = deletions[whole] { candidates.formUnion(names) }
        // Missing character: the query is a deletion of the name (`whole` above). Substitution: both
        // share a deletion. Extra character: a deletion of the query is the name itself.
        for k in Self.deletionKeys(slice) {
            if let names = deletions[k] { candidates.formUnion(names) }
            if k.unicodeScalars.count >= fuzzyMinimum, entries[k] != nil { candidates.insert(k) }
        }
        var out: [(String, Int, [Value])] = []
        // Sorted: a Set's order differs between instances, and callers keep the first of equal scores.
        for name in candidates.sorted() where name != whole {
            let n = Array(name.unicodeScalars)
            if Self.withinOneEdit(slice, n[...]), let v = entries[name] { out.append((name, n.count, v)) }
        }
        return out
    }

    static func string(_ s: ArraySlice<Unicode.Scalar>) -> String {
        var v = String.UnicodeScalarView()
        v.append(contentsOf: s)
        return String(v)
    }

    static func deletionKeys(_ s: ArraySlice<Unicode.Scalar>) -> [String] {
        var keys: [String] = []
        keys.reserveCapacity(s.count)
        for i in s.indices {
            var v = String.UnicodeScalarView()
            v.append(contentsOf: s[s.startIndex..<i])
            v.append(contentsOf: s[(i + 1)...])
            keys.append(String(v))
        }
        return keys
    }

    /// Whether the Levenshtein distance between `a` and `b` is at most 1.
    static func withinOneEdit(_ a: ArraySlice<Unicode.Scalar>, _ b: ArraySlice<Unicode.Scalar>) -> Bool {
        let (short, long) = a.count <= b.count ? (Array(a), Array(b)) : (Array(b), Array(a))
        if long.count - short.count > 1 { return false }
        var i = 0, j = 0, edits = 0
        while i < short.count && j < long.count {
            if short[i] == long[j] { i += 1; j += 1; continue }
            edits += 1
            if edits > 1 { return false }
            if short.count == long.count { i += 1 }
            j += 1
        }
        edits += (long.count - j) - (short.count - i)
        return edits <= 1
    }
}
