import Foundation
import Testing
@testable import GeoCore

/// Replays the cases of `Fixtures/reference/geocore_reference.json`, made by shapely 2 and pyproj
/// (`Scripts/reference/make_geocore_fixtures.py`), against GeoCore: predicates must be identical,
/// overlay and buffer areas equal within a tight relative tolerance, transforms within 1 mm,
/// geodesic measures within a millimetre (lengths) and a square metre per km² (areas).
@Suite struct DifferentialTests {
    struct Reference: Decodable {
        struct PredicateCase: Decodable {
            let a, b, relate: String
            let intersects, disjoint, touches, crosses, within, contains, overlaps, covers, covered_by, equals: Bool
        }
        struct OverlayCase: Decodable {
            let a, b: String
            let intersection_area, union_area, difference_area, sym_difference_area, intersection_length: Double
        }
        struct BufferCase: Decodable {
            let geometry: String
            let distance: Double
            let quadrant_segments: Int
            let cap_style, join_style: String
            let mitre_limit: Double
            let single_sided: Bool
            let area: Double
        }
        struct ValidityCase: Decodable {
            let geometry: String
            let valid: Bool
            let reason: String
            let make_valid_area: Double
        }
        struct TransformCase: Decodable {
            let from, to: String
            let points, expected: [[Double]]
        }
        struct GeodesicCase: Decodable {
            let geometry: String
            let length, area: Double
        }
        let shapely, geos, pyproj, proj: String
        let predicates: [PredicateCase]
        let overlay: [OverlayCase]
        let buffer: [BufferCase]
        let validity: [ValidityCase]
        let transforms: [TransformCase]
        let geodesic: [GeodesicCase]
    }

    static let reference: Reference = {
        let url = Bundle.module.url(forResource: "Fixtures/reference/geocore_reference", withExtension: "json")!
        return try! JSONDecoder().decode(Reference.self, from: Data(contentsOf: url))
    }()

    /// Relative difference, with an absolute floor for values near zero (areas in m²).
    func expectClose(_ actual: Double, _ expected: Double, relative: Double, absolute: Double,
                     _ what: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation) {
        let tolerance = max(absolute, abs(expected) * relative)
        #expect(abs(actual - expected) <= tolerance, "\(what()): \(actual) vs reference \(expected)",
                sourceLocation: sourceLocation)
    }

    @Test func predicatesAreIdenticalToShapely() throws {
        let cases = Self.reference.predicates
        #expect(cases.count >= 300)
        for (i, c) in cases.enumerated() {
            let a = try Geometry(wkt: c.a), b = try Geometry(wkt: c.b)
            let got: [(String, Bool, Bool)] = [
                ("intersects", try a.intersects(b), c.intersects), ("disjoint", try a.disjoint(b), c.disjoint),
                ("touches", try a.touches(b), c.touches), ("crosses", try a.crosses(b), c.crosses),
                ("within", try a.within(b), c.within), ("contains", try a.contains(b), c.contains),
                ("overlaps", try a.overlaps(b), c.overlaps), ("covers", try a.covers(b), c.covers),
                ("coveredBy", try a.coveredBy(b), c.covered_by), ("equals", try a.equals(b), c.equals),
            ]
            for (name, ours, theirs) in got {
                #expect(ours == theirs, "case \(i) \(name): GeoCore \(ours), shapely \(theirs)")
            }
            #expect(try a.relate(b) == c.relate, "case \(i) relate")
            // The prepared path must agree with the plain one.
            let prepared = try PreparedGeometry(a)
            #expect(try prepared.intersects(b) == c.intersects, "case \(i) prepared intersects")
            #expect(try prepared.contains(b) == c.contains, "case \(i) prepared contains")
        }
    }

    @Test func overlayAreasMatchShapely() throws {
        for (i, c) in Self.reference.overlay.enumerated() {
            let a = try Geometry(wkt: c.a), b = try Geometry(wkt: c.b)
            expectClose(try a.intersection(b).area, c.intersection_area, relative: 1e-9, absolute: 1e-6, "case \(i) ∩")
            expectClose(try a.union(b).area, c.union_area, relative: 1e-9, absolute: 1e-6, "case \(i) ∪")
            expectClose(try a.difference(b).area, c.difference_area, relative: 1e-9, absolute: 1e-6, "case \(i) −")
            expectClose(try a.symmetricDifference(b).area, c.sym_difference_area, relative: 1e-9, absolute: 1e-6,
                        "case \(i) △")
            expectClose(try a.boundary().intersection(b).length, c.intersection_length, relative: 1e-9,
                        absolute: 1e-6, "case \(i) boundary ∩ length")
        }
    }

    @Test func bufferAreasMatchShapely() throws {
        for (i, c) in Self.reference.buffer.enumerated() {
            let g = try Geometry(wkt: c.geometry)
            let caps: [String: BufferParameters.CapStyle] = ["round": .round, "flat": .flat, "square": .square]
            let joins: [String: BufferParameters.JoinStyle] = ["round": .round, "mitre": .mitre, "bevel": .bevel]
            var p = BufferParameters()
            p.quadrantSegments = c.quadrant_segments
            p.capStyle = try #require(caps[c.cap_style])
            p.joinStyle = try #require(joins[c.join_style])
            p.mitreLimit = c.mitre_limit
            p.singleSided = c.single_sided
            let area = try g.buffer(distance: c.distance, parameters: p).area
            expectClose(area, c.area, relative: 1e-9, absolute: 1e-6, "case \(i) buffer \(c.cap_style)/\(c.join_style)")
        }
    }

    @Test func validityAndRepairMatchShapely() throws {
        for (i, c) in Self.reference.validity.enumerated() {
            let g = try Geometry(wkt: c.geometry)
            let report = try g.validityReason()
            #expect(report.isValid == c.valid, "case \(i) validity")
            if !c.valid {
                #expect(report.reason == c.reason, "case \(i) reason: \(report.reason) vs \(c.reason)")
            }
            expectClose(try g.makeValid().area, c.make_valid_area, relative: 1e-9, absolute: 1e-6, "case \(i) make-valid")
        }
    }

    @Test func transformsAgreeWithPyprojWithinOneMillimetre() throws {
        for c in Self.reference.transforms {
            let t = try CoordinateTransformer.shared(from: CoordinateReferenceSystem(parsing: c.from),
                                                     to: CoordinateReferenceSystem(parsing: c.to))
            // Batch path (proj_trans_generic) and the single-point path must both agree.
            var batch = c.points.map { Position($0[0], $0[1]) }
            try t.transform(&batch)
            for (i, (p, e)) in zip(c.points, c.expected).enumerated() {
                let single = try t.transform(Position(p[0], p[1]))
                for q in [single, batch[i]] {
                    #expect(abs(q.x - e[0]) < 1e-3 && abs(q.y - e[1]) < 1e-3,
                            "\(c.to) point \(i): (\(q.x), \(q.y)) vs pyproj (\(e[0]), \(e[1]))")
                }
            }
        }
    }

    @Test func geodesicMeasuresOnCGCS2000AgreeWithPyprojGeod() throws {
        for (i, c) in Self.reference.geodesic.enumerated() {
            let g = try Geometry(wkt: c.geometry)
            expectClose(try g.geodesicLength(ellipsoid: .cgcs2000), c.length, relative: 1e-9, absolute: 1e-3,
                        "case \(i) length")
            expectClose(try g.geodesicArea(ellipsoid: .cgcs2000), c.area, relative: 1e-9, absolute: 1e-2,
                        "case \(i) area")
        }
    }
}
