/// SplitMix64 (Steele, Lea & Flood 2014): a tiny, fast, well-mixed 64-bit generator, the one
/// seeded generator of the project (the sample district, tests, benchmarks): the same seed yields
/// byte-identical layers and inputs on every platform and Swift version (`SystemRandomNumberGenerator` is never used; the standard library's `Double.random(in:)`
/// algorithm is avoided too, so results do not depend on its implementation).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform double in [0, 1) from the top 53 bits.
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// A uniform double in [lower, upper).
    public mutating func uniform(_ lower: Double, _ upper: Double) -> Double { lower + (upper - lower) * unit() }

    /// A uniform integer in the closed range (modulo bias is below 2⁻⁵⁰ for the small ranges used here).
    public mutating func integer(_ range: ClosedRange<Int>) -> Int {
        let span = UInt64(range.upperBound - range.lowerBound + 1)
        return range.lowerBound + Int(next() % span)
    }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { unit() < p }

    /// One element of a non-empty array.
    public mutating func pick<T>(_ items: [T]) -> T { items[integer(0...(items.count - 1))] }
}
