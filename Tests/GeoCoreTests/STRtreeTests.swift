import Testing
@testable import GeoCore

/// Building footprints' bounding boxes scattered over a 10 km square of Gauss-Krüger metres:
/// mostly small (up to 60 m), some long (roads, up to 1.5 km), a few points (hydrants).
private func footprints(count: Int, seed: UInt64) -> [Envelope] {
    var rng = SplitMix(seed: seed)   // TransformTests' generator
    return (0..<count).map { i in
        let x = 528_000 + rng.next() * 10_000, y = 3_375_000 + rng.next() * 10_000
        let size = i % 10 == 0 ? 1_500.0 : (i % 10 == 1 ? 0 : 60)
        return Envelope(minX: x, minY: y, maxX: x + rng.next() * size, maxY: y + rng.next() * size)
    }
}

/// Planar distance from a point to a box, the exact distance for an envelope payload.
private func distance(_ p: Position, _ e: Envelope) -> Double {
    e.distanceSquared(to: Envelope(minX: p.x, minY: p.y, maxX: p.x, maxY: p.y)).squareRoot()
}

private func hypot(_ a: Position, _ b: Position) -> Double {
    ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
}

/// Brute-force k nearest: sorted by distance, ties in input order.
private func bruteNearest(_ n: Int, k: Int, _ d: (Int) -> Double) -> [(Int, Double)] {
    let measured: [(Int, Double)] = (0..<n).map { ($0, d($0)) }
    let sorted = measured.sorted { (a: (Int, Double), b: (Int, Double)) -> Bool in
        a.1 != b.1 ? a.1 < b.1 : a.0 < b.0
    }
    return Array(sorted.prefix(k))
}

@Suite struct STRtreeTests {
    @Test func emptyTreeFindsNothing() {
        let tree = STRtree<Int>([])
        #expect(tree.isEmpty && tree.count == 0 && tree.bounds == nil)
        #expect(tree.query(Envelope(minX: -1e9, minY: -1e9, maxX: 1e9, maxY: 1e9)).isEmpty)
        #expect(tree.nearest(to: Position(0, 0), k: 3) { _ in 0 }.isEmpty)
    }

    @Test func singleItem() {
        let box = Envelope(minX: 10, minY: 20, maxX: 30, maxY: 40)
        let tree = STRtree([(box, "school")])
        #expect(tree.count == 1 && tree.bounds == box)
        #expect(tree.query(Envelope(minX: 30, minY: 40, maxX: 31, maxY: 41)) == ["school"])   // touching counts
        #expect(tree.query(Envelope(minX: 31, minY: 40, maxX: 32, maxY: 41)).isEmpty)
        let near = tree.nearest(to: Position(33, 44), k: 5) { _ in distance(Position(33, 44), box) }
        #expect(near.map(\.element) == ["school"] && near.map(\.distance) == [5])
        #expect(tree.nearest(to: Position(0, 0), k: 0) { _ in 1 }.isEmpty)
    }

    @Test(arguments: [10, 2, 4, 33])
    func windowQueriesMatchBruteForce(nodeCapacity: Int) {
        let boxes = footprints(count: 10_000, seed: 11)
        let tree = STRtree(boxes.enumerated().map { ($1, $0) }, nodeCapacity: nodeCapacity)
        #expect(tree.count == 10_000)
        #expect(tree.bounds == STRtree<Int>.union(boxes))
        var rng = SplitMix(seed: 12)
        for _ in 0..<200 {
            let x = 527_500 + rng.next() * 11_000, y = 3_374_500 + rng.next() * 11_000, size = rng.next() * 800
            let window = Envelope(minX: x, minY: y, maxX: x + size, maxY: y + size * rng.next())
            let found = tree.query(window)
            let expected = boxes.indices.filter { boxes[$0].intersects(window) }
            #expect(found.count == Set(found).count)
            #expect(Set(found) == Set(expected))
        }
    }

    @Test func nearestMatchesBruteForce() {
        let boxes = footprints(count: 10_000, seed: 21)
        let tree = STRtree(boxes.enumerated().map { ($1, $0) })
        var rng = SplitMix(seed: 22)
        for q in 0..<200 {
            let p = Position(527_000 + rng.next() * 12_000, 3_374_000 + rng.next() * 12_000)
            // Distance to the box itself (ties at 0 for boxes containing p) and to its centre,
            // which is never nearer than the box.
            let bruteBox = bruteNearest(boxes.count, k: 20) { distance(p, boxes[$0]) }
            let bruteCentre = bruteNearest(boxes.count, k: 20) { hypot(p, boxes[$0].center) }
            for k in [1, 5, 20] {
                let toBox = tree.nearest(to: p, k: k) { distance(p, boxes[$0]) }
                #expect(toBox.map(\.distance) == bruteBox.prefix(k).map(\.1), "query \(q), k \(k)")
                #expect(toBox.map(\.element) == bruteBox.prefix(k).map(\.0), "query \(q), k \(k)")
                let toCentre = tree.nearest(to: p, k: k) { hypot(p, boxes[$0].center) }
                #expect(toCentre.map(\.distance) == bruteCentre.prefix(k).map(\.1), "query \(q), k \(k)")
            }
        }
    }

    @Test func nearestToAnEnvelope() {
        let boxes = footprints(count: 2_000, seed: 31)
        let tree = STRtree(boxes.indices.map { (boxes[$0], $0) })
        var rng = SplitMix(seed: 32)
        for _ in 0..<50 {
            let x = 528_000 + rng.next() * 10_000, y = 3_375_000 + rng.next() * 10_000
            let site = Envelope(minX: x, minY: y, maxX: x + 120, maxY: y + 80)
            let d = { (i: Int) in boxes[i].distanceSquared(to: site).squareRoot() }
            let found = tree.nearest(to: site, k: 7, distance: d)
            let brute = bruteNearest(boxes.count, k: 7, d)
            #expect(found.map(\.distance) == brute.map(\.1))
            #expect(found.map(\.element) == brute.map(\.0))
        }
    }

    @Test func duplicatesAreAllFoundAndTiesKeepInputOrder() {
        let box = Envelope(minX: 5, minY: 5, maxX: 6, maxY: 6)
        let tree = STRtree((0..<100).map { (box, $0) }, nodeCapacity: 4)
        #expect(tree.query(box).sorted() == Array(0..<100))
        let near = tree.nearest(to: Position(0, 0), k: 5) { _ in 7 }
        #expect(near.map(\.element) == [0, 1, 2, 3, 4])
        #expect(near.allSatisfy { $0.distance == 7 })
        #expect(tree.nearest(to: Position(0, 0), k: 500) { _ in 7 }.map(\.element) == Array(0..<100))
    }

    @Test func pointEnvelopesAreFoundByPointAndWindowQueries() {
        let hydrants = (0..<500).map { i in Position(Double(i % 25) * 10, Double(i / 25) * 10) }
        let tree = STRtree(hydrants.indices.map { (Envelope(of: [hydrants[$0]])!, $0) })
        #expect(tree.query(Envelope(minX: 30, minY: 40, maxX: 30, maxY: 40)) == [4 * 25 + 3])
        #expect(Set(tree.query(Envelope(minX: 9, minY: 9, maxX: 21, maxY: 11))) == [26, 27])
        #expect(tree.query(Envelope(minX: 31, minY: 41, maxX: 39, maxY: 49)).isEmpty)
        let p = Position(42, 57)
        let near = tree.nearest(to: p, k: 3) { hypot(p, hydrants[$0]) }
        #expect(near.map(\.element) == bruteNearest(500, k: 3) { hypot(p, hydrants[$0]) }.map(\.0))
        #expect(near.first?.element == 6 * 25 + 4)
    }

    @Test func visitorStopsEarly() {
        let boxes = footprints(count: 1_000, seed: 41)
        let tree = STRtree(boxes.indices.map { (boxes[$0], $0) })
        let everything = Envelope(minX: 0, minY: 0, maxX: 1e7, maxY: 1e7)
        var visited: [Int] = []
        tree.query(everything) { element in
            visited.append(element)
            return visited.count < 3
        }
        #expect(visited.count == 3)
        #expect(visited == Array(tree.query(everything).prefix(3)))
    }

    @Test func nanEnvelopesAndNaNDistancesAreLeftOut() {
        let items = [(Envelope(minX: .nan, minY: 0, maxX: 1, maxY: 1), "broken"),
                     (Envelope(minX: 0, minY: 0, maxX: 1, maxY: 1), "park"),
                     (Envelope(minX: 2, minY: 0, maxX: 3, maxY: 1), "lake")]
        let tree = STRtree(items)
        #expect(tree.count == 2)
        #expect(tree.query(Envelope(minX: -1, minY: -1, maxX: 5, maxY: 5)).sorted() == ["lake", "park"])
        let near = tree.nearest(to: Position(0, 0), k: 2) { $0 == "park" ? .nan : 2 }
        #expect(near.map(\.element) == ["lake"])
    }

    @Test func elementsWithEnvelopeFunction() {
        let parcels: [Geometry] = [.point(x: 1, y: 1), .lineString([Position(5, 5), Position(8, 9)])]
        let tree = STRtree(parcels) { $0.envelope ?? Envelope(minX: .nan, minY: .nan, maxX: .nan, maxY: .nan) }
        #expect(tree.query(Envelope(minX: 6, minY: 6, maxX: 7, maxY: 7)) == [parcels[1]])
    }
}
