/// The structural rules every geometry reader (WKT, WKB, GeoJSON) applies, so that the three
/// reject the same inputs with the same words: a line string has 0 or at least 2 positions, a
/// ring is closed and has at least 4 positions, and every coordinate is a finite number.
enum ShapeRule {
    /// Why a line string with `count` positions is invalid, or `nil` when it is fine.
    @inline(__always)
    static func lineStringProblem(count: Int) -> String? {
        count == 1 ? "line string has 1 position; it needs 0 or at least 2" : nil
    }

    /// Why `ring` is not a valid ring, or `nil` when it is fine. `name` says which ring
    /// ("exterior ring", "interior ring 2") so the message can point at it.
    @inline(__always)
    static func ringProblem(_ ring: [Position], name: @autoclosure () -> String) -> String? {
        if ring.count < 4 {
            return "\(name()) has \(ring.count) position\(ring.count == 1 ? "" : "s"); a ring needs at least 4"
        }
        let first = ring[0], last = ring[ring.count - 1]
        if first.x != last.x || first.y != last.y || (first.z ?? 0) != (last.z ?? 0) {
            return "\(name()) is not closed: first position (\(NumberText.text(first.x)) \(NumberText.text(first.y))) "
                + "differs from last (\(NumberText.text(last.x)) \(NumberText.text(last.y)))"
        }
        return nil
    }

    /// The name of ring `index` of a polygon (0 is the exterior).
    static func ringName(_ index: Int) -> String {
        index == 0 ? "exterior ring" : "interior ring \(index)"
    }

    /// Deepest nesting of geometry collections any reader accepts; deeper input is an error,
    /// not a stack overflow.
    static let maximumCollectionDepth = 64

    static func tooDeepMessage() -> String {
        "geometry collections nested deeper than \(maximumCollectionDepth) levels"
    }
}
