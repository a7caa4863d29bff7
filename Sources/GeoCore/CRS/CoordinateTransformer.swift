import CPROJ
import Foundation

/// Transforms coordinates from one CRS to another: the one entry point for PROJ transformations,
/// the WGS 84 ≈ CGCS2000 identity and the GCJ-02/BD-09 display offsets.
///
/// Positions are in CityTwin's internal order at both ends (longitude/latitude in degrees,
/// easting/northing in metres), whatever the authority's axis order; apply
/// `CoordinateReferenceSystem.toAuthorityOrder(_:)` at the API edge if a client needs it.
///
/// A transformer is a small value: get it with `shared(from:to:)` and keep it. The PROJ objects
/// behind it live in per-thread caches (one `PJ` per pair and thread, one `PJ_CONTEXT` per
/// thread, both bounded: `PROJContext`), so a transformer can be used from any thread or task and
/// does not build a PROJ transformation per call (only again after its thread dropped it to make
/// room for others). Batches (`transform(_:)` on arrays, `transform(xs:ys:)`) make one
/// PROJ call per 512 positions, in place, with no copy of the data.
///
/// ```swift
/// let toGK = try CoordinateTransformer.shared(from: .cgcs2000, to: .districtMetric)
/// let hankou = try toGK.transform(Position(x: 114.3055, y: 30.5928))  // x = E 529,299.86 m, y = N 3,385,869.45 m
/// ```
public struct CoordinateTransformer: Hashable, Sendable {
    /// The CRS input positions are in.
    public let source: CoordinateReferenceSystem
    /// The CRS output positions are in.
    public let target: CoordinateReferenceSystem
    /// What the transformer does, in order; empty for the identity. Suitable for output metadata
    /// (e.g. to label EPSG:4490 → EPSG:4326 as an identity).
    public let operations: [CoordinateOperation]
    let steps: [TransformStep]

    /// The transformer from `source` to `target`, planned once per process and backed by this
    /// thread's cached PROJ transformation (built now if this thread has none yet, so errors
    /// surface here rather than on the first position).
    /// - Throws: `GeometryError` `.crs` when either CRS is unknown or PROJ cannot relate them.
    public static func shared(from source: CoordinateReferenceSystem, to target: CoordinateReferenceSystem) throws -> CoordinateTransformer {
        let key = PROJPair(source: source, target: target)
        if let cached = PROJCatalog.shared.transformer(key) {
            try cached.prepareThread()
            return cached
        }
        _ = try source.metadata
        _ = try target.metadata
        let (steps, operations) = plan(from: source, to: target)
        let transformer = CoordinateTransformer(source: source, target: target, operations: operations, steps: steps)
        try transformer.prepareThread()
        PROJCatalog.shared.remember(transformer)
        return transformer
    }

    /// Whether positions come out exactly as they go in (same CRS, or frames CityTwin treats
    /// as identical such as EPSG:4490 and EPSG:4326).
    public var isIdentity: Bool { steps.isEmpty }

    /// The transformer from `target` back to `source`, sharing the same PROJ objects.
    public var inverse: CoordinateTransformer {
        CoordinateTransformer(
            source: target, target: source,
            operations: operations.reversed().map { op in
                switch op {
                case .proj(let s, let t): .proj(source: t, target: s)
                case .sameFrame(let s, let t): .sameFrame(source: t, target: s)
                case .chinaDisplayOffset(let c): .chinaDisplayOffset(c.inverse)
                }
            },
            steps: steps.reversed().map(\.inverse))
    }

    private func prepareThread() throws {
        guard steps.contains(where: { if case .proj = $0 { true } else { false } }) else { return }
        let ctx = PROJContext.current
        for case .proj(let id, _) in steps { _ = try ctx.operation(id) }
    }

    /// The error for a position PROJ (or the input) could not handle.
    private func failure(_ x: Double, _ y: Double, index: Int?, reason: String) -> GeometryError {
        GeometryError(.crs, "cannot transform (\(x), \(y)) from \(source) to \(target): \(reason)",
                      position: index.map { "position \($0)" })
    }

    // MARK: - One position

    /// The position in `target` (internal axis order at both ends). A height is passed through
    /// PROJ when present (so 3D transformations such as EPSG:4979 → EPSG:4978 use it); a position
    /// without `z` is transformed as 2D and comes out without `z`, so give positions a height
    /// when the target is 3D (geocentric).
    /// - Throws: `GeometryError` `.crs` naming the input when PROJ returns a non-finite result
    ///   (outside the projection's domain, non-finite input).
    public func transform(_ p: Position) throws -> Position {
        if steps.isEmpty { return p }
        guard p.x.isFinite && p.y.isFinite else { throw failure(p.x, p.y, index: nil, reason: "non-finite coordinate") }
        var q = p
        for step in steps {
            switch step {
            case .offset(let c):
                q = c.apply(q)
            case .proj(let id, let inverse):
                let ctx = PROJContext.current
                let pj = try ctx.operation(id)
                var x = q.x, y = q.y, z = q.z ?? 0
                let stride = MemoryLayout<Double>.stride
                if q.z != nil {
                    proj_trans_generic(pj, inverse ? PJ_INV : PJ_FWD, &x, stride, 1, &y, stride, 1, &z, stride, 1, nil, 0, 0)
                } else {
                    proj_trans_generic(pj, inverse ? PJ_INV : PJ_FWD, &x, stride, 1, &y, stride, 1, nil, 0, 0, nil, 0, 0)
                }
                guard x.isFinite && y.isFinite else { throw failure(p.x, p.y, index: nil, reason: ctx.failureReason(pj)) }
                q = Position(x: x, y: y, z: q.z == nil ? nil : z)
            }
        }
        return q
    }

    // MARK: - Batches, in place

    /// Positions per PROJ call: large enough to amortise the call, small enough that the
    /// saved inputs (for error messages) stay in L1 and on the stack.
    static let chunk = 512

    /// Transforms every position in place: one `proj_trans_generic` call per 512 positions,
    /// reading and writing x and y directly in the array's storage (no copy). Heights are
    /// passed through PROJ only when present.
    /// - Throws: `GeometryError` `.crs` naming the first failing index (`position`) and its
    ///   input; the array is then partly transformed and should be discarded.
    public func transform(_ positions: inout [Position]) throws {
        if steps.isEmpty || positions.isEmpty { return }
        for step in steps {
            switch step {
            case .offset(let c):
                for i in positions.indices {
                    let p = positions[i]
                    guard p.x.isFinite && p.y.isFinite else { throw failure(p.x, p.y, index: i, reason: "non-finite coordinate") }
                    positions[i] = c.apply(p)
                }
            case .proj(let id, let inverse):
                let ctx = PROJContext.current
                let pj = try ctx.operation(id)
                let stride = MemoryLayout<Position>.stride
                let xOffset = MemoryLayout<Position>.offset(of: \Position.x)!
                let yOffset = MemoryLayout<Position>.offset(of: \Position.y)!
                try positions.withUnsafeMutableBufferPointer { buffer in
                    let base = UnsafeMutableRawPointer(buffer.baseAddress!)
                    try withUnsafeTemporaryAllocation(of: Double.self, capacity: 3 * Self.chunk) { scratch in
                        let heights = scratch.baseAddress! + 2 * Self.chunk
                        var start = 0
                        while start < buffer.count {
                            let n = Swift.min(Self.chunk, buffer.count - start)
                            let chunkBase = base + start * stride
                            var hasZ = false
                            for i in 0..<n {
                                if let z = buffer[start + i].z { heights[i] = z; hasZ = true } else { heights[i] = 0 }
                            }
                            try runPROJ(pj, ctx, inverse: inverse,
                                        x: chunkBase + xOffset, y: chunkBase + yOffset, stride: stride,
                                        z: hasZ ? heights : nil, count: n, firstIndex: start, saved: scratch.baseAddress!)
                            if hasZ {
                                for i in 0..<n where buffer[start + i].z != nil { buffer[start + i].z = heights[i] }
                            }
                            start += n
                        }
                    }
                }
            }
        }
    }

    /// Transforms parallel coordinate arrays in place (x = longitude/easting, y =
    /// latitude/northing): the fast path, one `proj_trans_generic` call per 512 points.
    /// - Throws: `GeometryError` `.invalidArgument` when the arrays differ in length;
    ///   `.crs` naming the first failing index, after which the arrays are partly transformed.
    public func transform(xs: inout [Double], ys: inout [Double]) throws {
        guard xs.count == ys.count else {
            throw GeometryError(.invalidArgument, "xs has \(xs.count) values but ys has \(ys.count)")
        }
        if steps.isEmpty || xs.isEmpty { return }
        for step in steps {
            switch step {
            case .offset(let c):
                for i in xs.indices {
                    guard xs[i].isFinite && ys[i].isFinite else { throw failure(xs[i], ys[i], index: i, reason: "non-finite coordinate") }
                    let q = c.apply(Position(x: xs[i], y: ys[i]))
                    xs[i] = q.x
                    ys[i] = q.y
                }
            case .proj(let id, let inverse):
                try xs.withUnsafeMutableBufferPointer { xb in
                    try ys.withUnsafeMutableBufferPointer { yb in
                        try runPROJInParallel(id: id, inverse: inverse, xs: xb, ys: yb)
                    }
                }
            }
        }
    }

    /// Batches at least this long are split across the machine's cores.
    static let parallelThreshold = 65_536

    /// Runs one PROJ step over parallel arrays. Large batches are split into one contiguous
    /// slice per core; each worker uses its own thread's PROJ context and cached operation (the
    /// per-thread cache is what makes this safe), so no PROJ object is shared between threads.
    /// On failure the lowest failing index is reported, as in the serial path.
    private func runPROJInParallel(id: PROJPair, inverse: Bool,
                                   xs: UnsafeMutableBufferPointer<Double>, ys: UnsafeMutableBufferPointer<Double>) throws {
        let count = xs.count
        let workers = count >= Self.parallelThreshold ? max(1, ProcessInfo.processInfo.activeProcessorCount) : 1
        if workers == 1 {
            do {
                try runPROJSerial(id: id, inverse: inverse, xs: xs, ys: ys, firstIndex: 0)
            } catch let failure as IndexedFailure {
                throw failure.error
            }
            return
        }
        let sliceLength = (count + workers - 1) / workers
        let failures = LowestIndexError()
        nonisolated(unsafe) let xBase = xs, yBase = ys
        DispatchQueue.concurrentPerform(iterations: workers) { w in
            let start = w * sliceLength
            let end = Swift.min(count, start + sliceLength)
            guard start < end else { return }
            do {
                try runPROJSerial(id: id, inverse: inverse,
                                  xs: UnsafeMutableBufferPointer(rebasing: xBase[start..<end]),
                                  ys: UnsafeMutableBufferPointer(rebasing: yBase[start..<end]), firstIndex: start)
            } catch let failure as IndexedFailure {
                failures.record(index: failure.index, failure.error)
            } catch {
                failures.record(index: start, error)
            }
        }
        if let (_, error) = failures.first { throw error }
    }

    /// A failure tagged with the batch index it happened at.
    private struct IndexedFailure: Error {
        var index: Int
        var error: any Error
    }

    /// One thread's share: `proj_trans_generic` per 512 points with this thread's PROJ objects.
    private func runPROJSerial(id: PROJPair, inverse: Bool, xs xb: UnsafeMutableBufferPointer<Double>,
                               ys yb: UnsafeMutableBufferPointer<Double>, firstIndex: Int) throws {
        let ctx = PROJContext.current
        let pj = try ctx.operation(id)
        let stride = MemoryLayout<Double>.stride
        try withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * Self.chunk) { scratch in
            var start = 0
            while start < xb.count {
                let n = Swift.min(Self.chunk, xb.count - start)
                do {
                    try runPROJ(pj, ctx, inverse: inverse,
                                x: UnsafeMutableRawPointer(xb.baseAddress! + start),
                                y: UnsafeMutableRawPointer(yb.baseAddress! + start), stride: stride,
                                z: nil, count: n, firstIndex: firstIndex + start, saved: scratch.baseAddress!)
                } catch {
                    throw IndexedFailure(index: firstIndex + start, error: error)
                }
                start += n
            }
        }
    }

    /// One PROJ call on `count` strided points. Inputs are saved first so a failure can name
    /// the position PROJ rejected, whose coordinates PROJ overwrites with HUGE_VAL.
    @inline(__always)
    private func runPROJ(_ pj: OpaquePointer, _ ctx: PROJContext, inverse: Bool,
                         x: UnsafeMutableRawPointer, y: UnsafeMutableRawPointer, stride: Int,
                         z: UnsafeMutablePointer<Double>?, count: Int, firstIndex: Int,
                         saved: UnsafeMutablePointer<Double>) throws {
        for i in 0..<count {
            saved[2 * i] = x.load(fromByteOffset: i * stride, as: Double.self)
            saved[2 * i + 1] = y.load(fromByteOffset: i * stride, as: Double.self)
        }
        let dz = MemoryLayout<Double>.stride
        proj_trans_generic(pj, inverse ? PJ_INV : PJ_FWD,
                           x.assumingMemoryBound(to: Double.self), stride, count,
                           y.assumingMemoryBound(to: Double.self), stride, count,
                           z, z == nil ? 0 : dz, z == nil ? 0 : count,
                           nil, 0, 0)
        for i in 0..<count {
            let ox = x.load(fromByteOffset: i * stride, as: Double.self)
            let oy = y.load(fromByteOffset: i * stride, as: Double.self)
            if !(ox.isFinite && oy.isFinite) {
                throw failure(saved[2 * i], saved[2 * i + 1], index: firstIndex + i, reason: ctx.failureReason(pj))
            }
        }
    }

    // MARK: - Geometries and envelopes

    /// The geometry with every position transformed (structure kept), in one batch.
    /// - Throws: `GeometryError` `.crs` naming the failing position's index in storage order.
    public func transform(_ g: Geometry) throws -> Geometry {
        if steps.isEmpty { return g }
        var flat: [Position] = []
        flat.reserveCapacity(g.positionCount)
        g.forEachPosition { flat.append($0) }
        try transform(&flat)
        var next = 0
        return g.mapPositions { _ in
            defer { next += 1 }
            return flat[next]
        }
    }

    /// The bounding box, in `target`, of the envelope's region: PROJ's `proj_trans_bounds`
    /// with `densify` extra points per edge (so curved edges are covered). When the target is
    /// geographic and the region crosses the antimeridian, `minX` may exceed `maxX`.
    /// Plans with display offsets transform the densified boundary instead.
    /// - Throws: `GeometryError` `.invalidArgument` for a negative `densify` or an inverted or
    ///   non-finite envelope; `.crs` when PROJ cannot transform it.
    public func transform(_ e: Envelope, densify: Int = 21) throws -> Envelope {
        guard densify >= 0 else { throw GeometryError(.invalidArgument, "densify must be >= 0, got \(densify)") }
        guard e.minX.isFinite, e.minY.isFinite, e.maxX.isFinite, e.maxY.isFinite, e.minX <= e.maxX, e.minY <= e.maxY else {
            throw GeometryError(.invalidArgument, "envelope (\(e.minX), \(e.minY), \(e.maxX), \(e.maxY)) is not a finite box with min <= max")
        }
        if steps.isEmpty { return e }
        if steps.count == 1, case .proj(let id, let inverse) = steps[0] {
            let ctx = PROJContext.current
            let pj = try ctx.operation(id)
            var out = Envelope(minX: 0, minY: 0, maxX: 0, maxY: 0)
            let ok = proj_trans_bounds(ctx.handle, pj, inverse ? PJ_INV : PJ_FWD, e.minX, e.minY, e.maxX, e.maxY,
                                       &out.minX, &out.minY, &out.maxX, &out.maxY, Int32(clamping: densify))
            guard ok != 0, out.minX.isFinite, out.minY.isFinite, out.maxX.isFinite, out.maxY.isFinite else {
                throw GeometryError(.crs, "cannot transform envelope (\(e.minX), \(e.minY), \(e.maxX), \(e.maxY)) from \(source) to \(target): \(ctx.failureReason(pj))")
            }
            return out
        }
        var boundary: [Position] = []
        let perEdge = densify + 1
        boundary.reserveCapacity(4 * perEdge)
        for k in 0..<perEdge {
            let t = Double(k) / Double(perEdge)
            boundary.append(Position(x: e.minX + t * e.width, y: e.minY))
            boundary.append(Position(x: e.maxX, y: e.minY + t * e.height))
            boundary.append(Position(x: e.maxX - t * e.width, y: e.maxY))
            boundary.append(Position(x: e.minX, y: e.maxY - t * e.height))
        }
        try transform(&boundary)
        return Envelope(of: boundary)!
    }
}
