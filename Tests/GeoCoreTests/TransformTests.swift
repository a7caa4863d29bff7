import Testing
import Foundation
@testable import GeoCore

/// Reference numbers: the worked example of docs tiles-and-crs.md §4 and, to the millimetre,
/// /tmp/probevenv/bin/python -c 'from pyproj import Transformer;
///   print(Transformer.from_crs("EPSG:4490", DST, always_xy=True).transform(114.3055, 30.5928))'
/// (pyproj 3.7.2, PROJ 9.5.1) for DST in EPSG:4547, 4526, 3857, 32650.
@Suite struct TransformTests {
    typealias CRS = CoordinateReferenceSystem
    static let hankou = Position(x: 114.3055, y: 30.5928)
    static let gk114 = CRS(epsg: 4547)

    /// Points spread over Wuhan, Ezhou and Huangshi (inside the 112.5..115.5°E zone), some with heights.
    static let hubei: [Position] = {
        var rng = SplitMix(seed: 4547)
        return (0..<1500).map { i in
            Position(x: 113.7 + 1.6 * rng.next(), y: 29.9 + 1.0 * rng.next(), z: i % 3 == 0 ? 20 + rng.next() * 50 : nil)
        }
    }()

    @Test func emptyBatchesAndGeometriesPassThrough() throws {
        let t = try CoordinateTransformer.shared(from: .cgcs2000, to: Self.gk114)
        var none: [Position] = []
        try t.transform(&none)
        #expect(none.isEmpty)
        var xs: [Double] = [], ys: [Double] = []
        try t.transform(xs: &xs, ys: &ys)
        #expect(try t.transform(Geometry.point(Point(nil))) == .point(Point(nil)))
        #expect(try t.transform(Geometry.polygon(Polygon(exterior: []))) == .polygon(Polygon(exterior: [])))
    }

    @Test func hankouInGaussKrugerCM114MatchesTheWorkedExample() throws {
        let t = try CoordinateTransformer.shared(from: .cgcs2000, to: try .cgcs2000GK3(centralMeridian: 114))
        let p = try t.transform(Self.hankou)
        // Internal order: x = easting, y = northing (EPSG:4547's own order is N, E).
        #expect(abs(p.x - 529_299.86) < 0.005)
        #expect(abs(p.y - 3_385_869.45) < 0.005)
        #expect(abs(p.x - 529_299.8603174951) < 0.001 && abs(p.y - 3_385_869.453411797) < 0.001)
        #expect(p.z == nil)

        let zoned = try CoordinateTransformer.shared(from: .cgcs2000, to: try .cgcs2000GK3Zone(38)).transform(Self.hankou)
        #expect(abs(zoned.x - 38_529_299.86) < 0.005)
        #expect(abs(zoned.y - p.y) < 1e-6)
    }

    @Test func otherProjectionsAgreeWithPyproj() throws {
        let cases: [(CRS, Double, Double)] = [
            (.webMercator, 12_724_430.054870531, 3_579_978.6213638918),
            (try CRS(parsing: "EPSG:32650"), 241_633.91725158299, 3_387_568.6716182),
        ]
        for (crs, e, n) in cases {
            let p = try CoordinateTransformer.shared(from: .cgcs2000, to: crs).transform(Self.hankou)
            #expect(abs(p.x - e) < 0.001 && abs(p.y - n) < 0.001, "\(crs)")
        }
    }

    @Test func sameCRSIsIdentityWithoutPROJ() throws {
        let t = try CoordinateTransformer.shared(from: Self.gk114, to: Self.gk114)
        #expect(t.isIdentity && t.operations.isEmpty)
        let weird = Position(x: 1e300, y: -7, z: 3)
        #expect(try t.transform(weird) == weird)
    }

    @Test func cgcs2000WGS84AndCRS84AreTakenAsTheSameFrame() throws {
        let frames: [CRS] = [.cgcs2000, .wgs84, .crs84]
        for a in frames {
            for b in frames where a != b {
                let t = try CoordinateTransformer.shared(from: a, to: b)
                #expect(t.isIdentity)
                #expect(t.operations == [.sameFrame(source: a, target: b)])
                var batch = Self.hubei
                try t.transform(&batch)
                #expect(batch == Self.hubei)
            }
        }
        // PROJ's own paths agree: 4490 -> 4547 and 4326 -> 4547 give the same result
        // (PROJ 9.1 only has a ballpark no-op between CGCS2000 and WGS 84).
        let viaCGCS = try CoordinateTransformer.shared(from: .cgcs2000, to: Self.gk114).transform(Self.hankou)
        let viaWGS = try CoordinateTransformer.shared(from: .wgs84, to: Self.gk114).transform(Self.hankou)
        let viaCRS84 = try CoordinateTransformer.shared(from: .crs84, to: Self.gk114).transform(Self.hankou)
        #expect(abs(viaCGCS.x - viaWGS.x) < 1e-6 && abs(viaCGCS.y - viaWGS.y) < 1e-6)
        #expect(abs(viaCGCS.x - viaCRS84.x) < 1e-6 && abs(viaCGCS.y - viaCRS84.y) < 1e-6)
    }

    @Test func inverseRoundTripsToMicrodegrees() throws {
        let forward = try CoordinateTransformer.shared(from: .cgcs2000, to: Self.gk114)
        let inverse = forward.inverse
        #expect(inverse.source == Self.gk114 && inverse.target == .cgcs2000)
        #expect(inverse.operations == [.proj(source: Self.gk114, target: .cgcs2000)])
        // The inverse and the transformer asked for directly are the same plan (one PJ per pair).
        #expect(inverse == (try CoordinateTransformer.shared(from: Self.gk114, to: .cgcs2000)))
        for p in Self.hubei.prefix(200) {
            let back = try inverse.transform(forward.transform(p))
            #expect(abs(back.x - p.x) < 1e-9 && abs(back.y - p.y) < 1e-9)
            #expect(back.z == p.z)
        }
    }

    @Test func batchesEqualOnePositionAtATime() throws {
        let t = try CoordinateTransformer.shared(from: .cgcs2000, to: Self.gk114)
        let single = try Self.hubei.map { try t.transform($0) }

        var batch = Self.hubei  // 1500 positions: three PROJ calls of up to 512
        try t.transform(&batch)
        #expect(batch == single)
        #expect(batch.map(\.z) == Self.hubei.map(\.z))

        var xs = Self.hubei.map(\.x), ys = Self.hubei.map(\.y)
        try t.transform(xs: &xs, ys: &ys)
        #expect(xs == single.map(\.x))
        #expect(ys == single.map(\.y))
    }

    @Test func geometriesKeepTheirStructure() throws {
        let t = try CoordinateTransformer.shared(from: .cgcs2000, to: Self.gk114)
        let ring = [Position(114.2, 30.5), Position(114.4, 30.5), Position(114.4, 30.7), Position(114.2, 30.7), Position(114.2, 30.5)]
        let hole = [Position(114.25, 30.55), Position(114.25, 30.6), Position(114.3, 30.6), Position(114.3, 30.55), Position(114.25, 30.55)]
        let g = Geometry.geometryCollection(GeometryCollection([
            .point(x: 114.3055, y: 30.5928, z: 21),
            .polygon(ring, holes: [hole]),
            .multiLineString(MultiLineString([LineString(Array(ring.prefix(3))), LineString([])])),
            .point(Point(nil)),
        ]))
        let out = try t.transform(g)
        #expect(out == (try g.mapPositions { try t.transform($0) }))
        #expect(out.positionCount == g.positionCount)
        // The transformed hole is still a closed ring.
        guard case .geometryCollection(let c) = out, case .polygon(let poly) = c.geometries[1] else {
            Issue.record("structure changed"); return
        }
        #expect(poly.interiors.count == 1 && poly.interiors[0].first == poly.interiors[0].last)
    }

    @Test func envelopeBoundsMatchPyproj() throws {
        // Transformer.from_crs("EPSG:4490","EPSG:4547",always_xy=True).transform_bounds(114,30,115,31,densify_pts=21)
        // -> (500000.0, 3320113.3978450196, 596488.7480666108, 3431403.6100768936)
        let t = try CoordinateTransformer.shared(from: .cgcs2000, to: Self.gk114)
        let e = try t.transform(Envelope(minX: 114, minY: 30, maxX: 115, maxY: 31))
        #expect(abs(e.minX - 500_000.0) < 0.01 && abs(e.minY - 3_320_113.3978450196) < 0.01)
        #expect(abs(e.maxX - 596_488.7480666108) < 0.01 && abs(e.maxY - 3_431_403.6100768936) < 0.01)
        // And back: the geographic box of that metric box contains the original.
        let back = try t.inverse.transform(e)
        #expect(back.contains(Envelope(minX: 114, minY: 30, maxX: 115, maxY: 31).expanded(by: -1e-9)))

        #expect(throws: GeometryError.self) { try t.transform(Envelope(minX: 115, minY: 30, maxX: 114, maxY: 31)) }
        #expect(throws: GeometryError.self) { try t.transform(Envelope(minX: 114, minY: 30, maxX: 115, maxY: 31), densify: -1) }
    }

    @Test func positionsOutsideTheDomainAreNamedInTheError() throws {
        let t = try CoordinateTransformer.shared(from: .cgcs2000, to: Self.gk114)
        #expect {
            _ = try t.transform(Position(x: 114, y: 95))
        } throws: { error in
            guard let e = error as? GeometryError else { return false }
            return e.code == .crs && e.message.hasPrefix("cannot transform (114.0, 95.0) from EPSG:4490 to EPSG:4547: ")
        }
        var batch = Self.hubei
        batch[700] = Position(x: 114, y: 95)
        #expect {
            try t.transform(&batch)
        } throws: { error in
            guard let e = error as? GeometryError else { return false }
            return e.code == .crs && e.position == "position 700" && e.message.contains("(114.0, 95.0)")
        }
        var xs = [114.3, .nan], ys = [30.5, 30.5]
        #expect {
            try t.transform(xs: &xs, ys: &ys)
        } throws: { error in
            (error as? GeometryError)?.position == "position 1"
        }
        var short = [114.3]
        #expect(throws: GeometryError.self) { try t.transform(xs: &short, ys: &ys) }
        #expect(throws: GeometryError.self) { try CoordinateTransformer.shared(from: .cgcs2000, to: CRS(epsg: 999_999)) }
    }

    @Test func displayFramesAreReachedThroughWGS84() throws {
        let toGCJ = try CoordinateTransformer.shared(from: .cgcs2000, to: .gcj02)
        #expect(toGCJ.operations == [.sameFrame(source: .cgcs2000, target: .wgs84), .chinaDisplayOffset(.wgs84ToGCJ02)])
        #expect(try toGCJ.transform(Self.hankou) == ChinaDisplayOffset.gcj02(fromWGS84: Self.hankou))

        let gkToBD = try CoordinateTransformer.shared(from: Self.gk114, to: .bd09)
        #expect(gkToBD.operations == [.proj(source: Self.gk114, target: .wgs84),
                                      .chinaDisplayOffset(.wgs84ToGCJ02), .chinaDisplayOffset(.gcj02ToBD09)])
        let metric = try CoordinateTransformer.shared(from: .wgs84, to: Self.gk114).transform(Self.hankou)
        let bd = try gkToBD.transform(metric)
        let expected = ChinaDisplayOffset.bd09(fromWGS84: Self.hankou)
        #expect(abs(bd.x - expected.x) < 1e-9 && abs(bd.y - expected.y) < 1e-9)

        let gcjToBD = try CoordinateTransformer.shared(from: .gcj02, to: .bd09)
        #expect(gcjToBD.operations == [.chinaDisplayOffset(.gcj02ToBD09)])

        // Batches follow the same plan, and the inverse goes back to the metres.
        var batch = [metric, metric]
        try gkToBD.transform(&batch)
        #expect(batch == [bd, bd])
        try gkToBD.inverse.transform(&batch)
        #expect(abs(batch[0].x - metric.x) < 0.01 && abs(batch[0].y - metric.y) < 0.01)

        // Envelopes through an offset use the densified boundary.
        let box = try toGCJ.transform(Envelope(minX: 114, minY: 30, maxX: 115, maxY: 31))
        #expect(box.contains(ChinaDisplayOffset.gcj02(fromWGS84: Position(114.5, 30.5))))
        #expect(box.minX > 114 && box.minX < 114.01)
    }

    @Test func concurrentThreadsGetTheSameResultsAsOne() throws {
        let pairs: [(CRS, CRS)] = [(.cgcs2000, Self.gk114), (.cgcs2000, .webMercator), (Self.gk114, .gcj02),
                                   (.cgcs2000, CRS(epsg: 32650))]
        let expected = try pairs.map { pair in
            let t = try CoordinateTransformer.shared(from: pair.0, to: pair.1)
            return try Self.hubei.map { try t.transform($0) }
        }
        let threads = 4
        let results = UnsafeMutableBufferPointer<[[Position]]>.allocate(capacity: threads)
        results.initialize(repeating: [])
        defer { results.deinitialize(); results.deallocate() }
        let done = DispatchGroup()
        for k in 0..<threads {
            done.enter()
            nonisolated(unsafe) let slot = results.baseAddress! + k
            let thread = Thread {
                var mine: [[Position]] = []
                for round in 0..<5 {
                    for (i, pair) in pairs.enumerated() {
                        guard let t = try? CoordinateTransformer.shared(from: pair.0, to: pair.1) else { continue }
                        var batch = Self.hubei
                        if (round + i + k) % 2 == 0 {
                            try? t.transform(&batch)
                        } else {
                            batch = Self.hubei.map { (try? t.transform($0)) ?? Position(x: .nan, y: .nan) }
                        }
                        if round == 4 { mine.append(batch) }
                    }
                }
                slot.pointee = mine
                done.leave()
            }
            thread.start()
        }
        done.wait()
        for k in 0..<threads {
            #expect(results[k] == expected, "thread \(k)")
        }
    }
}

/// The tests' source of uniform doubles in [0, 1): GeoCore's `SplitMix64`, so fixtures do not
/// depend on the platform RNG.
struct SplitMix {
    private var generator: SplitMix64
    init(seed: UInt64) { generator = SplitMix64(seed: seed) }
    mutating func next() -> Double { generator.unit() }
}

/// The PROJ caches keyed by what requests name (issue 78 §10): each new CRS built a transformation
/// on each thread that used it, kept for ever (about 75 KiB each: 3,000 EPSG codes in `crs=` took
/// 200 MiB). A thread keeps at most `PROJContext.maximumOperations`, the least recently used
/// destroyed; the process-wide catalogues at most `PROJCatalog.capacity` values each.
@Suite("PROJ caches bounded")
struct PROJCacheBoundTests {
    /// EPSG:4491…4554 (CGCS2000 Gauss-Krüger zones) and WGS 84 / UTM north 32601…32660: 124 projected CRSs.
    static let codes = Array(4491...4554) + Array(32601...32660)

    @Test("a thread holds at most maximumOperations transformations however many CRSs it meets, and one dropped is rebuilt when used again, giving the same positions")
    func perThreadCacheBounded() throws {
        let hankou = Position(x: 114.3055, y: 30.5928)
        let first = try CoordinateTransformer.shared(from: .cgcs2000, to: CoordinateReferenceSystem(epsg: Self.codes[0])).transform(hankou)
        for code in Self.codes {
            _ = try CoordinateTransformer.shared(from: .cgcs2000, to: CoordinateReferenceSystem(epsg: code)).transform(hankou)
            #expect(PROJContext.current.cachedOperations <= PROJContext.maximumOperations)
        }
        // The first was dropped long ago: used again, it is built again and answers the same.
        let again = try CoordinateTransformer.shared(from: .cgcs2000, to: CoordinateReferenceSystem(epsg: Self.codes[0])).transform(hankou)
        #expect(again == first)
        #expect(PROJCatalog.shared.counts.metadata <= PROJCatalog.capacity && PROJCatalog.shared.counts.transformers <= PROJCatalog.capacity)
    }

    @Test("a thread's context is replaced after recycleAfter transformations built, and transformations keep answering across the change")
    func contextRecycled() throws {
        let hankou = Position(x: 114.3055, y: 30.5928)
        let expected = try CoordinateTransformer.shared(from: .cgcs2000, to: .districtMetric).transform(hankou)
        // More builds than recycleAfter on one thread (each code twice over, evicted in between).
        for round in 0..<3 {
            for code in Self.codes {
                _ = try CoordinateTransformer.shared(from: .cgcs2000, to: CoordinateReferenceSystem(epsg: code)).transform(hankou)
            }
            let metric = try CoordinateTransformer.shared(from: .cgcs2000, to: .districtMetric)
            #expect(try metric.transform(hankou) == expected, "round \(round)")
            #expect(try metric.transform(Envelope(minX: 114.30, minY: 30.59, maxX: 114.31, maxY: 30.60)).minX.isFinite)
        }
        #expect(PROJContext.current.cachedOperations <= PROJContext.maximumOperations)
    }
}
