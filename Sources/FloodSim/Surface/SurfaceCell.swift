/// One cell of the 2D surface grid, addressed as in `GeoCore.Grid`: `column` counts eastward from
/// the west edge, `row` southward from the top (north) row.
public struct SurfaceCell: Hashable, Sendable, CustomStringConvertible {
    /// Column index, 0 at the west edge.
    public var column: Int
    /// Row index, 0 at the north edge.
    public var row: Int

    public init(column: Int, row: Int) {
        self.column = column
        self.row = row
    }

    public var description: String { "cell (\(column), \(row))" }
}
