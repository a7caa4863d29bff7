import Testing
@testable import GeoCore

// Shared by the GEOS operation suites (operations, linear referencing, prepared, validity).

/// The ring of a square parcel: closed, counter-clockwise, lower-left corner at (`x`, `y`).
func squareParcel(_ x: Double, _ y: Double, size: Double = 10) -> [Position] {
    [.init(x, y), .init(x + size, y), .init(x + size, y + size), .init(x, y + size), .init(x, y)]
}

/// Empty geometries: the first case of every family.
enum Empty {
    static let polygon = Geometry.polygon(Polygon(exterior: []))
    static let lineString = Geometry.lineString([])
    static let point = Geometry.point(Point(nil))
}

/// Expects `body` to throw a `GeometryError` with `code` whose message contains `text`.
func expectOperationError(_ code: GeometryError.Code, containing text: String,
                          sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
    do {
        try body()
        Issue.record("expected a GeometryError containing \"\(text)\"", sourceLocation: sourceLocation)
    } catch let e as GeometryError {
        #expect(e.code == code, "\(e)", sourceLocation: sourceLocation)
        #expect(e.message.contains(text), "\(e)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected a GeometryError, got \(error)", sourceLocation: sourceLocation)
    }
}
