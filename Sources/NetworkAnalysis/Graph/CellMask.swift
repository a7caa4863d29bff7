/// A set of cells of a square grid, one bit per cell: the raster a service-area polygon is built
/// on (reached roads burnt in, dilated to the buffer width, unreached intersections cleared,
/// then traced into rings by `polygons(originX:originY:cellSide:holes:)`).
///
/// Cell `(column, row)` covers `[column, column + 1] × [row, row + 1]` in grid units; rows are
/// stored bottom-up as runs of 64-bit words, so dilation is a handful of word shifts per row
/// and memory is `width × height / 8` bytes. Reading outside the grid gives "not set".
struct CellMask: Sendable {
    /// Columns.
    let width: Int
    /// Rows.
    let height: Int
    /// 64-bit words per row.
    let wordsPerRow: Int
    /// Row-major words; bit `c % 64` of word `row * wordsPerRow + c / 64` is cell `(c, row)`.
    var words: [UInt64]

    /// An empty mask of `width × height` cells.
    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        wordsPerRow = (width + 63) >> 6
        words = [UInt64](repeating: 0, count: wordsPerRow * height)
    }

    /// Whether cell `(column, row)` is set; `false` outside the grid.
    @inline(__always) func contains(_ column: Int, _ row: Int) -> Bool {
        guard column >= 0, row >= 0, column < width, row < height else { return false }
        return words[row * wordsPerRow + column >> 6] >> UInt64(column & 63) & 1 != 0
    }

    /// Sets cell `(column, row)`; ignored outside the grid.
    @inline(__always) mutating func insert(_ column: Int, _ row: Int) {
        guard column >= 0, row >= 0, column < width, row < height else { return }
        words[row * wordsPerRow + column >> 6] |= 1 << UInt64(column & 63)
    }

    /// Clears cell `(column, row)`; ignored outside the grid.
    @inline(__always) mutating func remove(_ column: Int, _ row: Int) {
        guard column >= 0, row >= 0, column < width, row < height else { return }
        words[row * wordsPerRow + column >> 6] &= ~(1 << UInt64(column & 63))
    }

    /// Sets every cell set in `other` (same size).
    mutating func formUnion(_ other: CellMask) {
        words.withUnsafeMutableBufferPointer { w in
            other.words.withUnsafeBufferPointer { o in
                for k in 0..<w.count { w[k] |= o[k] }
            }
        }
    }

    /// The cells within `radius` cells of a set cell, measured to cell centres on a disc
    /// (`dx² + dy² ≤ radius² + radius`, so radius 1 is the full 3 × 3 neighbourhood and every
    /// radius includes it). O(cells × radius / 64).
    func dilated(radius: Int) -> CellMask {
        let k = max(1, radius)
        let n = wordsPerRow
        // horizontal[w]: each row dilated by w cells along the row.
        var horizontal: [[UInt64]] = [words]
        for w in 1...k {
            let previous = horizontal[w - 1]
            var next = previous
            previous.withUnsafeBufferPointer { p in
                next.withUnsafeMutableBufferPointer { q in
                    for r in 0..<height {
                        let base = r * n
                        for i in 0..<n {
                            let x = p[base + i]
                            var v = x | x << 1 | x >> 1
                            if i > 0 { v |= p[base + i - 1] >> 63 }
                            if i + 1 < n { v |= p[base + i + 1] << 63 }
                            q[base + i] = v
                        }
                    }
                }
            }
            horizontal.append(next)
        }
        var out = CellMask(width: width, height: height)
        let limit = k * k + k
        out.words.withUnsafeMutableBufferPointer { q in
            for dy in -k...k {
                var w = 0
                while (w + 1) * (w + 1) + dy * dy <= limit { w += 1 }
                horizontal[w].withUnsafeBufferPointer { p in
                    for r in 0..<height {
                        let source = r + dy
                        guard source >= 0, source < height else { continue }
                        let a = r * n, b = source * n
                        for i in 0..<n { q[a + i] |= p[b + i] }
                    }
                }
            }
            // Keep the bits past the last column clear.
            if width & 63 != 0 {
                let keep: UInt64 = (1 << UInt64(width & 63)) - 1
                for r in 0..<height { q[r * n + n - 1] &= keep }
            }
        }
        return out
    }
}
