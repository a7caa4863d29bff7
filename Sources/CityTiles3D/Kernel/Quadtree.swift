/// The explicit quadtree over a tileset's leaves: leaves (level 0, on `LeafGrid`) are grouped
/// four by four (column and row, counted from the south-west leaf, halved) into parents until
/// one root holds them all. Inner tiles have no content; each bounds its children's boxes and has a geometric error of a
/// quarter of its side (metres), so a viewer opens a quarter of a kilometre's leaves when the
/// error on screen grows past its limit; leaves have error 0 (they are the full model).
public enum Quadtree {
    /// The hierarchy over `leaves` (content name, box in the frame, by leaf key); `nil` when empty.
    public static func build(leaves: [LeafGrid.Key: (content: String, box: (min: SIMD3<Double>, max: SIMD3<Double>))],
                             leafSize: Double) -> TileNode? {
        // Keys counted from the south-west leaf, so halving them meets at one root (leaves on both
        // sides of the CRS's origin never would: ⌊−1/2⌋ = −1).
        guard let west = leaves.keys.map(\.column).min(), let south = leaves.keys.map(\.row).min() else { return nil }
        var level: [LeafGrid.Key: TileNode] = [:]
        for (key, leaf) in leaves {
            level[LeafGrid.Key(column: key.column - west, row: key.row - south)] = TileNode(box: leaf.box, geometricError: 0, content: leaf.content)
        }
        var depth = 0
        while level.count > 1 || depth == 0 {
            depth += 1
            var parents: [LeafGrid.Key: [LeafGrid.Key]] = [:]
            for key in level.keys {
                parents[LeafGrid.Key(column: key.column / 2, row: key.row / 2), default: []].append(key)
            }
            let side = leafSize * Double(1 << depth)
            var next: [LeafGrid.Key: TileNode] = [:]
            for (parent, keys) in parents {
                let children = keys.sorted().map { level[$0]! }
                var lo = children[0].box.min, hi = children[0].box.max
                for c in children { lo = pointwiseMin(lo, c.box.min); hi = pointwiseMax(hi, c.box.max) }
                next[parent] = TileNode(box: (lo, hi), geometricError: side / 4, children: children)
            }
            level = next
        }
        return level.values.first
    }
}
