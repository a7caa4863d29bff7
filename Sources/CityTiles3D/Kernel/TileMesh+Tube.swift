import Foundation
import GeoCore

extension TileMesh {
    /// Sides of a tube's or a cylinder's cross-section: octagons (a 600 mm pipe's facets are
    /// 23 mm short of the circle at their middles, finer than a survey's depth).
    static let sides = 8

    /// A pipe as a tube of `radius` metres around `axis` (longitude, latitude and the axis
    /// elevation in metres at each vertex), open at its ends; each segment its own straight tube.
    /// - Throws: `GeometryError` when PROJ cannot place a vertex.
    mutating func addTube(axis: [Position], radius: Double, frame: LocalFrame, feature: UInt32) throws {
        let points = try frame.local(axis)
        for i in points.indices.dropLast() {
            let a = points[i], b = points[i + 1]
            let along = b - a
            let length = (along * along).sum().squareRoot()
            guard length > 1e-6 else { continue }
            let d = along / length
            // A direction across the segment: horizontal unless the segment is vertical.
            var across = SIMD3<Double>(-d.y, d.x, 0)
            if (across * across).sum() < 1e-12 { across = SIMD3(1, 0, 0) }
            across /= (across * across).sum().squareRoot()
            let other = SIMD3(d.y * across.z - d.z * across.y, d.z * across.x - d.x * across.z, d.x * across.y - d.y * across.x)
            addRing(from: a, to: b, u: across, v: other, radius: radius, feature: feature)
        }
    }

    /// A manhole as a closed-top cylinder of `radius` metres standing at `centre` (longitude,
    /// latitude) from `bottom` to `top` metres, its axis along the frame's up there.
    mutating func addCylinder(centre: Position, bottom: Double, top: Double, radius: Double, frame: LocalFrame, feature: UInt32) throws {
        let ends = try frame.local([Position(x: centre.x, y: centre.y, z: bottom), Position(x: centre.x, y: centre.y, z: top)])
        let up = ends[1] - ends[0]
        let length = (up * up).sum().squareRoot()
        guard length > 1e-6 else { return }
        let d = up / length
        var u = SIMD3<Double>(-d.y, d.x, 0)
        if (u * u).sum() < 1e-12 { u = SIMD3(1, 0, 0) }
        u /= (u * u).sum().squareRoot()
        let v = SIMD3(d.y * u.z - d.z * u.y, d.z * u.x - d.x * u.z, d.x * u.y - d.y * u.x)
        addRing(from: ends[0], to: ends[1], u: u, v: v, radius: radius, feature: feature)
        // The lid: a fan around the top's centre.
        let rim = (0..<Self.sides).map { k in ends[1] + circle(k, u, v) * radius }
        let fan = (1..<(Self.sides - 1)).flatMap { [0, $0, $0 + 1] }
        let n = faceNormal(rim[0], rim[1], rim[2])
        addFace(rim, normal: n, triangles: (n * d).sum() >= 0 ? fan : fan.reversed(), feature: feature)
    }

    /// The side of a cylinder from `a` to `b`: one quad per side, each with its own outward normal.
    private mutating func addRing(from a: SIMD3<Double>, to b: SIMD3<Double>, u: SIMD3<Double>, v: SIMD3<Double>,
                                  radius: Double, feature: UInt32) {
        for k in 0..<Self.sides {
            let p = circle(k, u, v), q = circle(k + 1, u, v)
            let quad = [a + p * radius, a + q * radius, b + q * radius, b + p * radius]
            let outward = (p + q) / 2
            let n = faceNormal(quad[0], quad[1], quad[2])
            let triangles = (n * outward).sum() >= 0 ? [0, 1, 2, 0, 2, 3] : [0, 2, 1, 0, 3, 2]
            let len = (outward * outward).sum().squareRoot()
            addFace(quad, normal: outward / len, triangles: triangles, feature: feature)
        }
    }

    /// The unit vector at step `k` of the cross-section.
    private func circle(_ k: Int, _ u: SIMD3<Double>, _ v: SIMD3<Double>) -> SIMD3<Double> {
        let t = Double(k % Self.sides) / Double(Self.sides) * 2 * .pi
        return u * cos(t) + v * sin(t)
    }
}
