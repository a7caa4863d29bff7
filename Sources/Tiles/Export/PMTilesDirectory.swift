/// The addressing of PMTiles version 3 (https://github.com/protomaps/PMTiles/blob/main/spec/v3/spec.md):
/// tile ids along nested Hilbert curves, and directories of entries serialized as columns of
/// varints.
enum PMTiles {
    /// The tile id of z/x/y: the number of tiles on all lower zooms plus the position of
    /// (x, y) along the zoom's Hilbert curve.
    static func tileID(zoom: Int, x: Int, y: Int) -> UInt64 {
        var base: UInt64 = 0
        for z in 0..<zoom { base += UInt64(1) << (2 * UInt64(z)) }
        let n = UInt64(1) << UInt64(zoom)
        var x = UInt64(x), y = UInt64(y), d: UInt64 = 0
        var s = n >> 1
        while s > 0 {
            let rx: UInt64 = (x & s) > 0 ? 1 : 0
            let ry: UInt64 = (y & s) > 0 ? 1 : 0
            d += s * s * ((3 * rx) ^ ry)
            // Rotate the quadrant so the sub-curve has the canonical orientation.
            if ry == 0 {
                if rx == 1 {
                    x = n - 1 - x
                    y = n - 1 - y
                }
                swap(&x, &y)
            }
            s >>= 1
        }
        return base + d
    }

    /// One directory entry: a run of `runLength` tiles from `tileID` sharing one blob at
    /// `offset` (relative to the tile data section) of `length` bytes; `runLength` 0 points at
    /// a leaf directory instead.
    struct Entry: Equatable {
        var tileID: UInt64
        var offset: UInt64
        var length: UInt32
        var runLength: UInt32
    }

    /// The uncompressed serialization of a (non-empty, tile-id-ordered) directory.
    static func serialize(_ entries: [Entry]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(entries.count * 6 + 8)
        varint(UInt64(entries.count), into: &out)
        var last: UInt64 = 0
        for e in entries {
            varint(e.tileID - last, into: &out)
            last = e.tileID
        }
        for e in entries { varint(UInt64(e.runLength), into: &out) }
        for e in entries { varint(UInt64(e.length), into: &out) }
        for (i, e) in entries.enumerated() {
            if i > 0, e.offset == entries[i - 1].offset + UInt64(entries[i - 1].length) {
                varint(0, into: &out)
            } else {
                varint(e.offset + 1, into: &out)
            }
        }
        return out
    }

    static func varint(_ value: UInt64, into out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(v & 0x7f) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }
}
