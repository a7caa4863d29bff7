import GeoCore
import Testing
@testable import FloodSim

/// Bad surface inputs are refused with an error naming the field, never a crash.
@Suite("Surface flow: input checks")
struct SurfaceInputTests {
    @Test("an empty elevation grid is refused")
    func emptyGrid() throws {
        let empty = try flatGrid(width: 0, height: 0, cellSize: 1, elevation: 0)
        #expect(throws: FloodInputError.self) { try SurfaceDomain(elevation: empty) }
    }

    @Test("non-square cells, mismatched grids, negative n and outside cells are refused")
    func badInputs() throws {
        let ground = try flatGrid(width: 4, height: 3, cellSize: 2, elevation: 0)
        let oblong = try Grid(width: 4, height: 3, geoTransform: .northUp(west: 0, north: 3, cellWidth: 2, cellHeight: 1), repeating: 0)
        #expect(throws: FloodInputError.self) { try SurfaceDomain(elevation: oblong) }
        let small = try flatGrid(width: 3, height: 3, cellSize: 2, elevation: 0)
        #expect(throws: FloodInputError.self) { try SurfaceDomain(elevation: ground, buildings: small) }
        #expect(throws: FloodInputError.self) { try SurfaceDomain(elevation: ground, roughness: .uniform(-0.01)) }
        let outside = SurfaceBoundary(fixedLevels: [.init(cells: [SurfaceCell(column: 4, row: 0)], stage: .init(constant: 1))])
        #expect(throws: FloodInputError.self) { try SurfaceDomain(elevation: ground, boundary: outside) }
        #expect(throws: FloodInputError.self) { try SurfaceRainfall(startTimes: [0, 0], intensities: [1, 2]) }
        #expect(throws: FloodInputError.self) { try SurfaceTimeSeries(times: [], values: []) }
        let domain = try SurfaceDomain(elevation: ground)
        #expect(throws: FloodInputError.self) { try SurfaceFlow(domain: domain, settings: SurfaceFlowSettings(theta: 2)) }
        let flow = try SurfaceFlow(domain: domain)
        #expect(throws: FloodInputError.self) { try flow.setSource(1, at: SurfaceCell(column: -1, row: 0)) }
        #expect(throws: FloodInputError.self) { try flow.setSource(.nan, at: SurfaceCell(column: 0, row: 0)) }
    }

    @Test("a hyetograph's depth is its exact integral across interval changes")
    func hyetographDepth() throws {
        let rain = try SurfaceRainfall(startTimes: [0, 60, 120], intensities: [36, 72, 0])
        #expect(abs(rain.depth(from: 30, to: 90) - (36 * 30 + 72 * 30) / 3_600_000) < 1e-15)
        #expect(rain.depth(from: 120, to: 600) == 0)
    }
}
