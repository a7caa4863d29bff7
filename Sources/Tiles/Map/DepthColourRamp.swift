/// The colour classes of water depth on map tiles (metres): dry below 5 cm (transparent, the
/// depth layer's lowest class starts there), then < 0.15, 0.15–0.3, 0.3–0.5 and > 0.5 m, the
/// classes of the road rule (flood.md §1.1) and the depth polygons; the shallowest teal, as the
/// web map's depth classes, apart from the water blue of lakes. Class `k` is palette index
/// `k`, so a decoded tile names the class of every pixel.
public struct DepthColourRamp: Sendable, Hashable {
    /// Lower bounds of the wet classes, m; a depth ≥ `bounds[k]` and < `bounds[k + 1]` is class k + 1.
    public let bounds: [Float]
    /// Index 0 = dry (transparent), then one colour per wet class.
    public let palette: [PNGEncoder.Colour]
    /// Labels of the classes, for a legend.
    public let labels: [String]

    public static let flood = DepthColourRamp(
        bounds: [0.05, 0.15, 0.3, 0.5],
        palette: [.transparent,
                  .init(red: 0x7F, green: 0xCD, blue: 0xBB, alpha: 200), .init(red: 0x69, green: 0xB1, blue: 0xFF, alpha: 210),
                  .init(red: 0x16, green: 0x77, blue: 0xFF, alpha: 220), .init(red: 0x00, green: 0x3A, blue: 0x8C, alpha: 230)],
        labels: ["< 0.05 m (dry)", "0.05–0.15 m", "0.15–0.3 m", "0.3–0.5 m", "> 0.5 m"])

    /// The class (palette index) of `depth`: 0 for dry, not finite or negative.
    @inlinable public func index(_ depth: Float) -> UInt8 {
        guard depth.isFinite, depth >= bounds[0] else { return 0 }
        var k = 1
        while k < bounds.count, depth >= bounds[k] { k += 1 }
        return UInt8(k)
    }

    /// The legend: label and RGBA hex colour per class.
    public var legend: [(label: String, colour: String)] {
        zip(labels, palette).map { label, c in
            (label, "#" + [c.red, c.green, c.blue, c.alpha].map { String($0, radix: 16).leftPadded(2) }.joined())
        }
    }
}

extension String {
    fileprivate func leftPadded(_ n: Int) -> String { count >= n ? self : String(repeating: "0", count: n - count) + self }
}
