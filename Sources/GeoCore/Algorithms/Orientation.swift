/// The side of the directed line a→b on which c lies: `.left` (counter-clockwise turn),
/// `.right` (clockwise) or `.collinear`. Exact for all finite double inputs: a fast
/// floating-point filter decides almost every case, and the rare near-collinear ones are
/// settled with exact expansion arithmetic (Shewchuk's TwoProduct/TwoSum), so predicates
/// built on it never disagree with themselves the way a naive cross product can.
public enum Orientation: Int8, Sendable {
    case right = -1
    case collinear = 0
    case left = 1

    @inlinable
    public static func of(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double,
                          _ cx: Double, _ cy: Double) -> Orientation {
        let detLeft = (ax - cx) * (by - cy)
        let detRight = (ay - cy) * (bx - cx)
        let det = detLeft - detRight
        // Shewchuk's ccwerrboundA = (3 + 16ε)ε with ε = 2⁻⁵³.
        let bound = 3.3306690738754716e-16 * (abs(detLeft) + abs(detRight))
        if det > bound { return .left }
        if -det > bound { return .right }
        return exact(ax, ay, bx, by, cx, cy)
    }

    /// The exact sign of ax·by − ax·cy − cx·by − ay·bx + ay·cx + cy·bx: six products, each split
    /// exactly into two doubles with a fused multiply-add, summed as a non-overlapping expansion
    /// whose largest non-zero component carries the sign.
    @usableFromInline
    static func exact(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double,
                      _ cx: Double, _ cy: Double) -> Orientation {
        var terms = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        return withUnsafeMutableBytes(of: &terms) { raw -> Orientation in
            let e = raw.bindMemory(to: Double.self)
            var n = 0
            func grow(_ b: Double) {
                var q = b
                for i in 0..<n {
                    let s = q + e[i]
                    let bv = s - q
                    let err = (q - (s - bv)) + (e[i] - bv)
                    e[i] = err
                    q = s
                }
                e[n] = q
                n += 1
            }
            func product(_ x: Double, _ y: Double, _ sign: Double) {
                let hi = x * y
                let lo = (-hi).addingProduct(x, y)   // TwoProduct: the exact rounding error of x·y (one FMA)
                grow(sign * hi)
                grow(sign * lo)
            }
            product(ax, by, 1)
            product(ax, cy, -1)
            product(cx, by, -1)
            product(ay, bx, -1)
            product(ay, cx, 1)
            product(cy, bx, 1)
            var i = n - 1
            while i >= 0 {
                if e[i] > 0 { return .left }
                if e[i] < 0 { return .right }
                i -= 1
            }
            return .collinear
        }
    }
}
