import GeoCore

extension CellMask {
    /// The set cells as valid OGC polygons: one per 4-connected group of cells, its shell
    /// counter-clockwise and its holes clockwise, vertices only where the boundary turns.
    ///
    /// Rings follow cell edges with the set cells on their left. Where two set cells meet only at
    /// a corner (a saddle) the ring keeps each cell's 4-connected group to itself and cuts a
    /// triangle of legs `chamfer` (grid units, < 0.5) off each of the two corners, so no ring
    /// touches itself or another ring: GEOS `isValid` holds by construction. Those triangles lie
    /// within `chamfer` of a cell corner that belongs to an unset cell.
    ///
    /// Holes are matched to their polygon through the cell group on their outer side (a
    /// union-find over row runs), not by point-in-polygon tests. `holes` adds rings (for example
    /// small squares around points that must stay outside) to the polygon owning the named
    /// cell; each must lie strictly inside the interior of its polygon's cells, away from the
    /// chamfers and from other holes (the caller guarantees it).
    /// - Parameters:
    ///   - originX, originY: position of grid corner `(0, 0)` (metres).
    ///   - cellSide: cell side (metres).
    ///   - chamfer: saddle cut in grid units.
    /// - Returns: polygons in scan order (bottom row first); empty for an empty mask.
    func polygons(originX: Double, originY: Double, cellSide s: Double, chamfer: Double = 1.0 / 64,
                  holes extra: [(column: Int, row: Int, ring: [Position])] = []) -> [Polygon] {
        let n = wordsPerRow, w = width, h = height
        // Plain buffers (no closures): the loops below run per cell edge.
        let cells = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: max(1, words.count))
        _ = cells.initialize(from: words)
        let visited = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: n * (h + 1))
        visited.initialize(repeating: 0)
        defer { cells.deallocate(); visited.deallocate() }

        // Runs of set cells per row, and their 4-connected groups (union-find over runs).
        var runStart: [Int32] = [], runEnd: [Int32] = []
        var rowFirstRun = [Int32](repeating: 0, count: h + 1)
        for r in 0..<h {
            rowFirstRun[r] = Int32(runStart.count)
            var inRun = false
            var start = 0
            for i in 0..<n {
                let word = cells[r * n + i]
                if !inRun && word == 0 { continue }
                if inRun && word == .max { continue }
                var pos = 0
                while pos < 64 {
                    let upper: UInt64 = ~0 << UInt64(pos)
                    if inRun {
                        let m = ~word & upper
                        if m == 0 { break }
                        pos = m.trailingZeroBitCount
                        runStart.append(Int32(start)); runEnd.append(Int32(i * 64 + pos))
                        inRun = false
                    } else {
                        let m = word & upper
                        if m == 0 { break }
                        pos = m.trailingZeroBitCount
                        start = i * 64 + pos
                        inRun = true
                    }
                }
            }
            if inRun { runStart.append(Int32(start)); runEnd.append(Int32(w)) }
        }
        rowFirstRun[h] = Int32(runStart.count)
        var groups = RunGroups(count: runStart.count)
        if h > 1 {
            for r in 1..<h {
                var a = Int(rowFirstRun[r - 1]), b = Int(rowFirstRun[r])
                let aEnd = Int(rowFirstRun[r]), bEnd = Int(rowFirstRun[r + 1])
                while a < aEnd && b < bEnd {
                    if runStart[a] < runEnd[b] && runStart[b] < runEnd[a] { groups.union(Int32(a), Int32(b)) }
                    if runEnd[a] < runEnd[b] { a += 1 } else { b += 1 }
                }
            }
        }
        /// The group of set cell `(column, row)`.
        func group(_ column: Int, _ row: Int, _ groups: inout RunGroups) -> Int32 {
            var lo = Int(rowFirstRun[row]), hi = Int(rowFirstRun[row + 1]) - 1
            while lo < hi {
                let mid = (lo + hi + 1) >> 1
                if Int(runStart[mid]) <= column { lo = mid } else { hi = mid - 1 }
            }
            return groups.find(Int32(lo))
        }
        @inline(__always) func set(_ c: Int, _ r: Int) -> Bool {
            c >= 0 && r >= 0 && c < w && r < h && cells[r * n + c >> 6] >> UInt64(c & 63) & 1 != 0
        }

        // Directions: 0 east, 1 north, 2 west, 3 south. A shell is traced before its holes (its
        // lowest edge comes first in scan order), so holes attach at once.
        var polygons: [Polygon] = []
        var polygonOfGroup = [Int32](repeating: -1, count: runStart.count)
        var ring: [Position] = []
        for j in 0...h {
            for i in 0..<n {
                let below = j > 0 ? cells[(j - 1) * n + i] : 0
                let above = j < h ? cells[j * n + i] : 0
                while true {
                    let m = (above ^ below) & ~visited[j * n + i]
                    if m == 0 { break }
                    let column = i * 64 + m.trailingZeroBitCount
                    // The first edge of a ring in scan order is its lowest, leftmost one: a set
                    // cell above means a shell (traced east), below a hole (traced west).
                    let shell = above >> UInt64(column & 63) & 1 != 0
                    var x = shell ? column : column + 1, y = j, d = shell ? 0 : 2
                    let x0 = x, d0 = d
                    ring.removeAll(keepingCapacity: true)
                    repeat {
                        switch d {
                        case 0: visited[y * n + x >> 6] |= 1 << UInt64(x & 63); x += 1
                        case 1: y += 1
                        case 2: visited[y * n + (x - 1) >> 6] |= 1 << UInt64((x - 1) & 63); x -= 1
                        default: y -= 1
                        }
                        let frontLeft: Bool, frontRight: Bool
                        switch d {
                        case 0: frontLeft = set(x, y); frontRight = set(x, y - 1)
                        case 1: frontLeft = set(x - 1, y); frontRight = set(x, y)
                        case 2: frontLeft = set(x - 1, y - 1); frontRight = set(x - 1, y)
                        default: frontLeft = set(x, y - 1); frontRight = set(x - 1, y - 1)
                        }
                        if frontLeft && !frontRight { continue }          // straight on
                        let gx = Double(x), gy = Double(y)
                        if frontLeft {                                     // inner corner: turn right
                            d = (d + 3) & 3
                            ring.append(Position(x: originX + gx * s, y: originY + gy * s))
                        } else if !frontRight {                            // outer corner: turn left
                            d = (d + 1) & 3
                            ring.append(Position(x: originX + gx * s, y: originY + gy * s))
                        } else {                                           // saddle: keep left cell, cut corner
                            let turned = (d + 1) & 3
                            let (ax, ay) = Self.step(d), (bx, by) = Self.step(turned)
                            ring.append(Position(x: originX + (gx - chamfer * ax) * s, y: originY + (gy - chamfer * ay) * s))
                            ring.append(Position(x: originX + (gx + chamfer * bx) * s, y: originY + (gy + chamfer * by) * s))
                            d = turned
                        }
                    } while !(x == x0 && y == j && d == d0)
                    ring.append(ring[0])
                    // An exact-size copy, so `ring` keeps its (unshared) storage for the next one.
                    let done = [Position](unsafeUninitializedCapacity: ring.count) { out, count in
                        count = out.initialize(from: ring).1
                    }
                    let g = Int(group(column, shell ? j : j - 1, &groups))
                    if shell {
                        polygonOfGroup[g] = Int32(polygons.count)
                        polygons.append(Polygon(exterior: done))
                    } else if polygonOfGroup[g] >= 0 {
                        polygons[Int(polygonOfGroup[g])].interiors.append(done)
                    }
                }
            }
        }
        for e in extra where set(e.column, e.row) {
            let k = polygonOfGroup[Int(group(e.column, e.row, &groups))]
            if k >= 0 { polygons[Int(k)].interiors.append(e.ring) }
        }
        return polygons
    }

    /// Unit step of direction `d` (0 east, 1 north, 2 west, 3 south).
    @inline(__always) static func step(_ d: Int) -> (Double, Double) {
        switch d {
        case 0: (1, 0)
        case 1: (0, 1)
        case 2: (-1, 0)
        default: (0, -1)
        }
    }
}

/// Union-find over row runs: which runs form one 4-connected group of cells.
struct RunGroups {
    var parent: [Int32]

    init(count: Int) { parent = [Int32](0..<Int32(count)) }

    /// The group's representative (the smallest run index), halving paths on the way.
    mutating func find(_ x: Int32) -> Int32 {
        var x = Int(x)
        while Int(parent[x]) != x {
            parent[x] = parent[Int(parent[x])]
            x = Int(parent[x])
        }
        return Int32(x)
    }

    /// Joins the groups of runs `a` and `b`.
    mutating func union(_ a: Int32, _ b: Int32) {
        let x = find(a), y = find(b)
        if x != y { parent[Int(max(x, y))] = min(x, y) }
    }
}
