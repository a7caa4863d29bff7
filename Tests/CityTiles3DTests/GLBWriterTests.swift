@testable import CityTiles3D
import Foundation
import GeoCore
import Testing

/// The kernel on plain values: a courtyard block (a square footprint with a square hole)
/// extruded, written as binary glTF and read back by the container's own rules (glTF 2.0 §4.4).
@Suite("3D Tiles kernel: extrusion, glTF and the tileset")
struct GLBWriterTests {
    /// A 20 m square block with a 10 m courtyard, near the sample district (degrees).
    static let courtyard: Polygon = {
        let d = 20.0 / 111_000, h = 10.0 / 111_000, x = 114.5, y = 30.6
        return Polygon(exterior: [Position(x: x, y: y), Position(x: x + d, y: y), Position(x: x + d, y: y + d), Position(x: x, y: y + d), Position(x: x, y: y)],
                       interiors: [[Position(x: x + h / 2, y: y + h / 2), Position(x: x + h / 2, y: y + 3 * h / 2),
                                    Position(x: x + 3 * h / 2, y: y + 3 * h / 2), Position(x: x + 3 * h / 2, y: y + h / 2), Position(x: x + h / 2, y: y + h / 2)]])
    }()

    @Test("the constrained Delaunay triangulation covers the footprint and leaves the courtyard open")
    func triangulation() throws {
        let triangles = try Geometry.polygon(Self.courtyard).constrainedDelaunayTriangles()
        // A polygon of n vertices and h holes has n + 2h − 2 triangles.
        #expect(triangles.count == 8 + 2 - 2)
        let area = triangles.reduce(0.0) { sum, t in
            sum + abs((t[1].x - t[0].x) * (t[2].y - t[0].y) - (t[2].x - t[0].x) * (t[1].y - t[0].y)) / 2
        }
        let d = 20.0 / 111_000, h = 10.0 / 111_000
        #expect(abs(area - (d * d - h * h)) < 1e-15)
        #expect(throws: GeometryError.self) { try Geometry.point(Point(x: 1, y: 2)).constrainedDelaunayTriangles() }
    }

    @Test("the frame puts its origin at zero and up along z")
    func frame() throws {
        let frame = try LocalFrame(origin: Position(x: 114.5, y: 30.6, z: 20))
        let local = try frame.local([Position(x: 114.5, y: 30.6, z: 20), Position(x: 114.5, y: 30.6, z: 21)])
        #expect((local[0] * local[0]).sum().squareRoot() < 1e-6)
        #expect(abs(local[1].z - 1) < 1e-6 && abs(local[1].x) < 1e-6 && abs(local[1].y) < 1e-6)
        // 1 km east along the parallel: x ≈ 1000 m, the earth's curvature drops it ≈ 0.08 m.
        let east = try frame.local([Position(x: 114.5 + 1000 / (111_320 * cos(30.6 * .pi / 180)), y: 30.6, z: 20)])[0]
        #expect(abs(east.x - 1000) < 5 && east.z < -0.05 && east.z > -0.12)
    }

    @Test("an extruded courtyard block is a valid GLB with its feature ids and property table")
    func glb() throws {
        let frame = try LocalFrame(origin: Position(x: 114.5, y: 30.6))
        var mesh = TileMesh()
        try mesh.addExtrusion(Self.courtyard, base: 20, top: 38, frame: frame, feature: 0)
        // Roof: 8 triangles; walls: 8 quads of 2 triangles.
        #expect(mesh.indices.count == (8 + 16) * 3)
        let table = PropertyTable(className: "buildings", count: 1,
                                  columns: [("id", .strings(["b1"])), ("name", .strings(["一号楼"])), ("height_m", .numbers([18]))])
        let bytes = try GLBWriter.encode(mesh, table: table, color: [1, 1, 1, 1])
        func word(_ at: Int) -> UInt32 { bytes[at..<at + 4].enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * $1.offset) } }
        #expect(word(0) == 0x4654_6C67 && word(4) == 2 && Int(word(8)) == bytes.count)
        let jsonLength = Int(word(12))
        #expect(word(16) == 0x4E4F_534A && jsonLength % 4 == 0)
        let binAt = 20 + jsonLength
        #expect(word(binAt + 4) == 0x004E_4942 && binAt + 8 + Int(word(binAt)) == bytes.count)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(bytes[20..<binAt])) as? [String: Any])
        #expect((document["extensionsUsed"] as? [String]) == ["EXT_mesh_features", "EXT_structural_metadata"])
        let accessors = try #require(document["accessors"] as? [[String: Any]])
        let position = accessors[0]
        #expect(position["count"] as? Int == mesh.positions.count)
        let bounds = try #require(mesh.bounds)
        // y-up: the maximum glTF y is the roof's local z, whose heights are all above the walls' feet.
        #expect((position["max"] as? [Double])?[1] == Double(bounds.max.z))
        #expect(bounds.max.z - bounds.min.z > 17.9 && bounds.max.z - bounds.min.z < 18.1)
        let views = try #require(document["bufferViews"] as? [[String: Any]])
        let bufferLength = try #require((document["buffers"] as? [[String: Any]])?.first?["byteLength"] as? Int)
        for view in views {
            let offset = try #require(view["byteOffset"] as? Int), length = try #require(view["byteLength"] as? Int)
            #expect(offset % 8 == 0 && length > 0 && offset + length <= bufferLength)
        }
    }

    @Test("the quadtree bounds its leaves and its errors shrink to 0 at the leaves")
    func quadtree() throws {
        let box = { (x: Double) in (min: SIMD3<Double>(x, 0, 0), max: SIMD3<Double>(x + 10, 10, 30)) }
        let leaves: [LeafGrid.Key: (content: String, box: (min: SIMD3<Double>, max: SIMD3<Double>))] = [
            LeafGrid.Key(column: 0, row: 0): ("a.glb", box(0)), LeafGrid.Key(column: 5, row: 0): ("b.glb", box(1300)),
            LeafGrid.Key(column: -1, row: 2): ("c.glb", box(-250)),
        ]
        let root = try #require(Quadtree.build(leaves: leaves, leafSize: 250))
        #expect(root.box.min.x == -250 && root.box.max.x == 1310)
        func walk(_ node: TileNode, _ parentError: Double) -> [String] {
            #expect(node.geometricError < parentError)
            #expect((node.content == nil) == !node.children.isEmpty)
            return [node.content].compactMap { $0 } + node.children.flatMap { walk($0, node.geometricError) }
        }
        #expect(walk(root, .infinity).sorted() == ["a.glb", "b.glb", "c.glb"])
    }
}
