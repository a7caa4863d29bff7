import Testing
@testable import GeoCore

/// Batches above `CoordinateTransformer.parallelThreshold` are split across cores, each worker
/// with its own thread's PROJ objects: results must equal the one-point path exactly, and an
/// error must name the lowest failing index whichever worker met it.
@Suite struct ParallelTransformTests {
    static let count = CoordinateTransformer.parallelThreshold * 3 + 17

    static func hubeiPoints() -> (xs: [Double], ys: [Double]) {
        var rng = SplitMix(seed: 7)
        var xs = [Double](), ys = [Double]()
        for _ in 0..<count {
            xs.append(108.4 + 7.7 * rng.next())
            ys.append(29.1 + 4.1 * rng.next())
        }
        return (xs, ys)
    }

    @Test func largeBatchEqualsPointByPoint() throws {
        let t = try CoordinateTransformer.shared(from: .cgcs2000, to: CoordinateReferenceSystem(epsg: 4547))
        var (xs, ys) = Self.hubeiPoints()
        let (x0, y0) = (xs, ys)
        try t.transform(xs: &xs, ys: &ys)
        for i in stride(from: 0, to: Self.count, by: 997) {
            let p = try t.transform(Position(x0[i], y0[i]))
            #expect(p.x == xs[i] && p.y == ys[i], "index \(i)")
        }
    }

    @Test func largeBatchFailureNamesTheLowestBadIndex() throws {
        let t = try CoordinateTransformer.shared(from: .cgcs2000, to: CoordinateReferenceSystem(epsg: 4547))
        var (xs, ys) = Self.hubeiPoints()
        let late = Self.count - 5, early = Self.count / 2 + 3
        ys[late] = 95     // beyond the pole: PROJ rejects it
        ys[early] = 91
        #expect {
            try t.transform(xs: &xs, ys: &ys)
        } throws: { error in
            (error as? GeometryError)?.message.contains("\(early)") == true
                || (error as? GeometryError)?.position?.contains("\(early)") == true
        }
    }
}
