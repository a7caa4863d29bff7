extension Grid {
    /// The value of the cell containing `position` (nearest-neighbour sampling), or `nil` when
    /// the position is outside the grid or the cell is no-data.
    public func value(at position: Position) -> Float? {
        guard let (column, row) = cell(containing: position) else { return nil }
        let v = values[row * width + column]
        return isValid(v) ? v : nil
    }

    /// Bilinear interpolation between the four cell centres around `position`.
    ///
    /// Returns `nil` outside the grid (the grid's outer edges count as inside) and when the cell
    /// containing the position is no-data. Within half a cell of the edge the edge cells are
    /// extended outward. No-data neighbours are left out and the remaining weights renormalised,
    /// so a DEM hole does not drag nearby heights towards the no-data value.
    public func bilinear(at position: Position) -> Float? {
        guard width > 0, height > 0,
              let (c, r) = geoTransform.cellCoordinates(of: position),
              c >= 0, r >= 0, c <= Double(width), r <= Double(height) else { return nil }
        // The cell that holds the position (the far edges belong to the last cell).
        let own = Swift.min(Int(r), height - 1) * width + Swift.min(Int(c), width - 1)
        guard isValid(values[own]) else { return nil }

        let u = c - 0.5, v = r - 0.5
        let u0 = u.rounded(.down), v0 = v.rounded(.down)
        let fx = u - u0, fy = v - v0
        let c0 = Swift.max(0, Swift.min(width - 1, Int(u0)))
        let c1 = Swift.max(0, Swift.min(width - 1, Int(u0) + 1))
        let r0 = Swift.max(0, Swift.min(height - 1, Int(v0)))
        let r1 = Swift.max(0, Swift.min(height - 1, Int(v0) + 1))

        var sum = 0.0, weight = 0.0
        @inline(__always) func add(_ column: Int, _ row: Int, _ w: Double) {
            guard w > 0 else { return }
            let value = values[row * width + column]
            guard isValid(value) else { return }
            sum += w * Double(value)
            weight += w
        }
        add(c0, r0, (1 - fx) * (1 - fy))
        add(c1, r0, fx * (1 - fy))
        add(c0, r1, (1 - fx) * fy)
        add(c1, r1, fx * fy)
        guard weight > 0 else { return nil }
        return Float(sum / weight)
    }
}
