/// FNV-1a, 64 bits (Fowler, Noll, Vo): the one non-cryptographic hash of the project, for keys
/// and seeds that must not change between runs or platforms (Swift's `Hasher` is seeded per
/// process): content-derived tile entity tags and cache file names, per-flow RNG seeds.
public enum FNV1a {
    public static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    public static let prime: UInt64 = 0x0000_0100_0000_01b3

    /// The hash of `bytes`.
    public static func hash<S: Sequence>(_ bytes: S) -> UInt64 where S.Element == UInt8 {
        var h = offsetBasis
        for b in bytes { h = (h ^ UInt64(b)) &* prime }
        return h
    }

    /// The hash of a string's UTF-8 bytes.
    public static func hash(_ text: String) -> UInt64 { hash(text.utf8) }

    /// The hash as 16 lowercase hex digits.
    public static func hex<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        let hex = String(hash(bytes), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
