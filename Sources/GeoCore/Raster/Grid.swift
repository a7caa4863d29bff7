/// A single-band Float32 raster such as a DEM, a flood-depth grid or a land-use surface.
///
/// Values are held in one contiguous row-major `[Float]` starting at the top row (row 0 is the
/// row at `geoTransform.originY`, the north edge of a north-up grid), so a 5000 × 5000 DEM is one
/// 100 MB allocation. Cell (column, row) covers the continuous cell coordinates
/// `[column, column + 1) × [row, row + 1)` of `geoTransform`.
///
/// A cell is *valid* when its value is neither `noData` nor NaN; statistics and sampling skip
/// the others. Value semantics: copies share storage until one of them is written.
public struct Grid: Equatable, Sendable {
    /// Number of columns (cells per row).
    public let width: Int
    /// Number of rows.
    public let height: Int
    /// Cell space to map coordinates, in the units of the grid's CRS.
    public var geoTransform: GeoTransform
    /// The value marking cells without data (ESRI `NODATA_value`), if any. NaN cells are
    /// treated as no-data whatever this says.
    public var noData: Float?
    /// The cell values, row-major from the top row; `values.count == width * height`.
    @inlinable public var values: [Float] { storage }
    @usableFromInline var storage: [Float]

    /// A grid over the given values (row-major from the top row).
    /// - Throws: `GeometryError` `.invalidArgument` when a size is negative or
    ///   `values.count != width * height`.
    public init(width: Int, height: Int, geoTransform: GeoTransform, noData: Float? = nil, values: [Float]) throws {
        let count = try Grid.cellCount(width: width, height: height)
        guard values.count == count else {
            throw GeometryError(.invalidArgument,
                                "a \(width) x \(height) grid needs \(count) values, got \(values.count)")
        }
        self.init(unchecked: width, height, geoTransform, noData, values)
    }

    /// A grid whose every cell holds `value` (by default `noData`, or 0 when there is none).
    /// - Throws: `GeometryError` `.invalidArgument` when a size is negative or the cell count overflows.
    public init(width: Int, height: Int, geoTransform: GeoTransform, noData: Float? = nil,
                repeating value: Float? = nil) throws {
        let count = try Grid.cellCount(width: width, height: height)
        self.init(unchecked: width, height, geoTransform, noData,
                  [Float](repeating: value ?? noData ?? 0, count: count))
    }

    /// A grid whose cell values come from `cellValue(column, row)`, called row by row from the top.
    /// - Throws: `GeometryError` `.invalidArgument` for a bad size, or what `cellValue` throws.
    public init(width: Int, height: Int, geoTransform: GeoTransform, noData: Float? = nil,
                cellValue: (_ column: Int, _ row: Int) throws -> Float) throws {
        let count = try Grid.cellCount(width: width, height: height)
        var values: [Float] = []
        values.reserveCapacity(count)
        for row in 0..<height {
            for column in 0..<width { values.append(try cellValue(column, row)) }
        }
        self.init(unchecked: width, height, geoTransform, noData, values)
    }

    @usableFromInline
    init(unchecked width: Int, _ height: Int, _ geoTransform: GeoTransform, _ noData: Float?, _ values: [Float]) {
        self.width = width
        self.height = height
        self.geoTransform = geoTransform
        self.noData = noData
        self.storage = values
    }

    static func cellCount(width: Int, height: Int) throws -> Int {
        guard width >= 0, height >= 0 else {
            throw GeometryError(.invalidArgument, "grid size must not be negative, got \(width) x \(height)")
        }
        let (count, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow else {
            throw GeometryError(.invalidArgument, "grid size \(width) x \(height) is too large")
        }
        return count
    }

    /// Number of cells, `width * height`.
    @inlinable public var cellCount: Int { values.count }

    /// Whether the grid has no cells.
    @inlinable public var isEmpty: Bool { values.isEmpty }

    /// The value of one cell. Indices out of range are a programming error (as with `Array`);
    /// use `cell(containing:)` to turn map positions into checked indices.
    @inlinable
    public subscript(column column: Int, row row: Int) -> Float {
        get {
            precondition(column >= 0 && column < width && row >= 0 && row < height,
                         "cell (\(column), \(row)) outside a \(width) x \(height) grid")
            return values[row * width + column]
        }
        set {
            precondition(column >= 0 && column < width && row >= 0 && row < height,
                         "cell (\(column), \(row)) outside a \(width) x \(height) grid")
            storage[row * width + column] = newValue
        }
    }

    /// Whether `value` is data: not the no-data value and not NaN.
    @inlinable
    public func isValid(_ value: Float) -> Bool {
        if value.isNaN { return false }
        if let noData, value == noData { return false }
        return true
    }

    /// The map position of the centre of cell (`column`, `row`).
    @inlinable
    public func cellCenter(column: Int, row: Int) -> Position {
        geoTransform.position(column: Double(column) + 0.5, row: Double(row) + 0.5)
    }

    /// The cell whose area contains `position`, or `nil` outside the grid. Cells are half-open:
    /// a point on the boundary between two cells belongs to the one with the larger index, and
    /// the grid's last column/row edge is outside.
    public func cell(containing position: Position) -> (column: Int, row: Int)? {
        guard let (c, r) = geoTransform.cellCoordinates(of: position),
              c >= 0, r >= 0, c < Double(width), r < Double(height) else { return nil }
        return (Swift.min(Int(c), width - 1), Swift.min(Int(r), height - 1))
    }

    /// The map-space bounding box of all cells (the four outer corners through `geoTransform`).
    public var envelope: Envelope {
        let w = Double(width), h = Double(height)
        let corners = [geoTransform.position(column: 0, row: 0), geoTransform.position(column: w, row: 0),
                       geoTransform.position(column: 0, row: h), geoTransform.position(column: w, row: h)]
        var e = Envelope(minX: corners[0].x, minY: corners[0].y, maxX: corners[0].x, maxY: corners[0].y)
        for p in corners.dropFirst() { e.expand(toInclude: p) }
        return e
    }

    /// Gives `body` mutable access to all cell values at once (row-major from the top row), for
    /// kernels that sweep the whole grid without per-cell bounds checks.
    public mutating func withUnsafeMutableValues<R>(_ body: (inout UnsafeMutableBufferPointer<Float>) throws -> R) rethrows -> R {
        try storage.withUnsafeMutableBufferPointer { try body(&$0) }
    }

    /// Sets every cell, valid or not, to `value`.
    public mutating func fill(_ value: Float) {
        withUnsafeMutableValues { buffer in buffer.update(repeating: value) }
    }

    /// A grid with `transform` applied to every valid cell; no-data and NaN cells are copied
    /// unchanged, and size, transform and `noData` stay the same.
    public func map(_ transform: (Float) throws -> Float) rethrows -> Grid {
        var out = values
        try out.withUnsafeMutableBufferPointer { buffer in
            if let noData {
                for i in buffer.indices where !buffer[i].isNaN && buffer[i] != noData {
                    buffer[i] = try transform(buffer[i])
                }
            } else {
                for i in buffer.indices where !buffer[i].isNaN { buffer[i] = try transform(buffer[i]) }
            }
        }
        return Grid(unchecked: width, height, geoTransform, noData, out)
    }
}
