import Testing
@testable import GeoCore

@Suite struct ValidityTests {
    let bowtie = Geometry.polygon([.init(0, 0), .init(10, 10), .init(10, 0), .init(0, 10), .init(0, 0)])

    @Test func emptyGeometryIsValid() throws {
        #expect(try Empty.polygon.isValid)
        #expect(try Empty.polygon.validityReason() == ValidityReport(isValid: true, reason: "Valid Geometry", location: nil))
        #expect(try Empty.polygon.makeValid().isEmpty)
    }

    @Test func parcelWithCourtyardIsValid() throws {
        let parcel = Geometry.polygon(squareParcel(0, 0), holes: [[.init(2, 2), .init(2, 4), .init(4, 4), .init(4, 2), .init(2, 2)]])
        #expect(try parcel.isValid)
        #expect(try parcel.validityReason().isValid)
        #expect(try parcel.makeValid().area == 96)
    }

    @Test func bowTieSelfIntersects() throws {
        #expect(try !bowtie.isValid)
        let report = try bowtie.validityReason()
        #expect(!report.isValid)
        #expect(report.reason == "Self-intersection")
        #expect(report.location == Position(5, 5))
    }

    @Test func holeOutsideShell() throws {
        let parcel = Geometry.polygon(squareParcel(0, 0), holes: [squareParcel(20, 20, size: 2)])
        let report = try parcel.validityReason()
        #expect(report.reason == "Hole lies outside shell")
        #expect(report.location != nil)
    }

    @Test func makeValidSplitsBowTieIntoTwoTriangles() throws {
        for method in [MakeValidMethod.linework, .structure] {
            let repaired = try bowtie.makeValid(method: method)
            #expect(try repaired.isValid)
            guard case .multiPolygon(let m) = repaired else { Issue.record("\(repaired)"); continue }
            #expect(m.polygons.count == 2)
            #expect(try repaired.area == 50)
        }
    }

    @Test func collapsedPolygonIsKeptOrDropped() throws {
        // A "polygon" digitized along one line: zero area.
        let sliver = Geometry.polygon([.init(0, 0), .init(10, 0), .init(5, 0), .init(0, 0)])
        #expect(try !sliver.isValid)
        let kept = try sliver.makeValid(method: .structure, keepCollapsed: true)
        #expect(kept.type == .lineString)
        #expect(try sliver.makeValid(method: .structure, keepCollapsed: false).isEmpty)
        let linework = try sliver.makeValid(method: .linework)
        #expect(try linework.length == 10)
        #expect(try linework.area == 0)
    }
}
