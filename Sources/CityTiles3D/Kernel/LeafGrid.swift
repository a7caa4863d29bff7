import GeoCore

/// Where a feature's solid goes: a fixed grid of square leaf tiles in the city's metric CRS,
/// anchored at the CRS's origin, so a feature's tile depends on the feature alone (never on the
/// layer's extent or on other features). A changed feature stales the one or two leaves its old
/// and new positions fall in, and nothing else.
///
/// A feature belongs to the leaf holding the centre of its envelope in the storage CRS (the
/// envelope the change feed records), so an edit's leaves are known from the change event alone.
public struct LeafGrid: Sendable, Hashable {
    /// A leaf's column and row (east and north, metres / `size`, rounded down).
    public struct Key: Hashable, Sendable, Comparable, CustomStringConvertible {
        public var column: Int
        public var row: Int
        public init(column: Int, row: Int) { self.column = column; self.row = row }
        public static func < (a: Key, b: Key) -> Bool { (a.row, a.column) < (b.row, b.column) }
        /// `column_row`, the content file's name.
        public var description: String { "\(column)_\(row)" }

        /// Reads `column_row` (`nil` for anything else).
        public init?(_ text: some StringProtocol) {
            let parts = text.split(separator: "_", omittingEmptySubsequences: false)
            guard parts.count == 2, let c = Int(parts[0]), let r = Int(parts[1]) else { return nil }
            self.init(column: c, row: r)
        }
    }

    /// A leaf's side, metres.
    public var size: Double
    /// The CRS the grid is laid in (the city's metric zone).
    public var metricCRS: CoordinateReferenceSystem

    public init(size: Double = 250, metricCRS: CoordinateReferenceSystem) {
        self.size = size
        self.metricCRS = metricCRS
    }

    /// The leaf of a metric position.
    public func key(metric p: Position) -> Key {
        Key(column: Int((p.x / size).rounded(.down)), row: Int((p.y / size).rounded(.down)))
    }

    /// The leaf of a storage-CRS envelope (the change feed's or a feature's).
    public func key(storageEnvelope e: Envelope) throws -> Key {
        let toMetric = try CoordinateTransformer.shared(from: .cgcs2000, to: metricCRS)
        return key(metric: try toMetric.transform(e.center))
    }

    /// The leaf's square in the metric CRS.
    public func metricEnvelope(_ k: Key) -> Envelope {
        Envelope(minX: Double(k.column) * size, minY: Double(k.row) * size,
                 maxX: Double(k.column + 1) * size, maxY: Double(k.row + 1) * size)
    }

    /// The leaf's square in the storage CRS (longitude/latitude), widened by 1 m's worth so a
    /// query by it finds every feature whose envelope centre is inside.
    public func storageEnvelope(_ k: Key) throws -> Envelope {
        let toStorage = try CoordinateTransformer.shared(from: metricCRS, to: .cgcs2000)
        let m = metricEnvelope(k).expanded(by: 1)
        var corners = [Position(x: m.minX, y: m.minY), Position(x: m.maxX, y: m.minY),
                       Position(x: m.maxX, y: m.maxY), Position(x: m.minX, y: m.maxY)]
        try toStorage.transform(&corners)
        return Envelope(of: corners)!
    }
}
