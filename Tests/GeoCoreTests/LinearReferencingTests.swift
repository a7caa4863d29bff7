import Testing
@testable import GeoCore

/// Chainage along a road that runs 10 m east, then 10 m north (EPSG:4547-style metres).
@Suite struct LinearReferencingTests {
    let road = Geometry.lineString([.init(0, 0), .init(10, 0), .init(10, 10)])

    @Test func emptyLineHasNoChainage() {
        let empty = Geometry.lineString([])
        expectOperationError(.invalidArgument, containing: "empty") { _ = try empty.interpolate(distance: 1) }
        expectOperationError(.invalidArgument, containing: "empty") { _ = try empty.project(Position(1, 1)) }
        expectOperationError(.invalidArgument, containing: "at least two positions") { _ = try empty.substring(from: 0, to: 1) }
    }

    @Test func interpolateByDistanceAndFraction() throws {
        #expect(try road.interpolate(distance: 0) == Position(0, 0))
        #expect(try road.interpolate(distance: 15) == Position(10, 5))
        #expect(try road.interpolate(distance: -5) == Position(10, 5))     // back from the end
        #expect(try road.interpolate(distance: 25) == Position(10, 10))    // clamped
        #expect(try road.interpolate(fraction: 0.25) == Position(5, 0))
        #expect(try road.interpolate(fraction: 1) == Position(10, 10))
        let sloped = Geometry.lineString([.init(0, 0, 20), .init(10, 0, 30)])
        #expect(try sloped.interpolate(distance: 2.5) == Position(2.5, 0, 22.5))
    }

    @Test func projectGivesChainage() throws {
        #expect(try road.project(Position(4, 3)) == 4)
        #expect(try road.project(Position(12, 7)) == 17)
        #expect(try road.project(normalized: Position(12, 7)) == 0.85)
        #expect(try road.project(Position(-3, -3)) == 0)
        let interpolated = try road.interpolate(distance: 13.25)
        #expect(try road.project(interpolated) == 13.25)
    }

    @Test func onlyLinesHaveChainage() {
        let parcel = Geometry.polygon(squareParcel(0, 0))
        expectOperationError(.geos, containing: "lineal") { _ = try parcel.project(Position(1, 1)) }
        expectOperationError(.geos, containing: "lineal") { _ = try parcel.interpolate(distance: 1) }
        expectOperationError(.invalidArgument, containing: "LineString") { _ = try parcel.substring(from: 0, to: 1) }
        expectOperationError(.invalidArgument, containing: "at least two positions") {
            _ = try Geometry.lineString([.init(1, 1)]).substring(from: 0, to: 1)
        }
        expectOperationError(.invalidArgument, containing: "from") { _ = try road.substring(from: .nan, to: 1) }
    }

    @Test func substringWithinOneSegment() throws {
        #expect(try road.substring(from: 2, to: 8) == .lineString([.init(2, 0), .init(8, 0)]))
    }

    @Test func substringAcrossAVertex() throws {
        #expect(try road.substring(from: 5, to: 15) == .lineString([.init(5, 0), .init(10, 0), .init(10, 5)]))
    }

    @Test func substringStartingOrEndingAtAVertexDoesNotRepeatIt() throws {
        #expect(try road.substring(from: 10, to: 15) == .lineString([.init(10, 0), .init(10, 5)]))
        #expect(try road.substring(from: 5, to: 10) == .lineString([.init(5, 0), .init(10, 0)]))
        #expect(try road.substring(from: 0, to: 20) == road)
    }

    @Test func reversedRangeRunsBackwards() throws {
        #expect(try road.substring(from: 15, to: 5) == .lineString([.init(10, 5), .init(10, 0), .init(5, 0)]))
    }

    @Test func outOfRangeDistancesAreClamped() throws {
        #expect(try road.substring(from: -100, to: 100) == road)
        #expect(try road.substring(from: 18, to: 50) == .lineString([.init(10, 8), .init(10, 10)]))
        #expect(try road.substring(from: 30, to: 40) == .point(x: 10, y: 10))
    }

    @Test func negativeDistancesCountFromTheEnd() throws {
        #expect(try road.substring(from: -5, to: -1) == .lineString([.init(10, 5), .init(10, 9)]))
        #expect(try road.substring(from: 5, to: -5) == .lineString([.init(5, 0), .init(10, 0), .init(10, 5)]))
    }

    @Test func collapsedRangeIsAPoint() throws {
        #expect(try road.substring(from: 3, to: 3) == .point(x: 3, y: 0))
        #expect(try road.substring(from: 15, to: -5) == .point(x: 10, y: 5))
    }

    @Test func heightsAreInterpolated() throws {
        let pipe = Geometry.lineString([.init(0, 0, 0), .init(10, 0, 10), .init(10, 10, 30)])
        #expect(try pipe.substring(from: 5, to: 15)
                == .lineString([.init(5, 0, 5), .init(10, 0, 10), .init(10, 5, 20)]))
    }

    @Test func agreesWithGEOSInterpolate() throws {
        let street = Geometry.lineString([.init(0, 0), .init(3, 4), .init(3, 9), .init(-2, 21), .init(7, 21)])
        let total = try street.length
        for (from, to) in [(0.5, 7.25), (4.0, 30.0), (12.0, 5.0), (0.0, total)] {
            guard case .lineString(let part) = try street.substring(from: from, to: to) else {
                Issue.record("not a line"); continue
            }
            let first = try street.interpolate(distance: from), last = try street.interpolate(distance: to)
            #expect(abs(part.positions[0].x - first.x) < 1e-12 && abs(part.positions[0].y - first.y) < 1e-12)
            let end = part.positions[part.positions.count - 1]
            #expect(abs(end.x - last.x) < 1e-12 && abs(end.y - last.y) < 1e-12)
            #expect(abs(try Geometry.lineString(part).length - abs(to - from)) < 1e-9)
        }
    }
}
