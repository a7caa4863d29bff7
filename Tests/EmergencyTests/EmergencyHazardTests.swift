import CityModel
import Foundation
import GeoCore
import NetworkAnalysis
import ProcessRuntime
import TestSupport
import Testing
import TwinStore
@testable import Emergency
@testable import Scenarios

@Suite("Hazard overlay: what a flooded area holds and cuts off")
struct EmergencyHazardTests {
    /// A polygon over the south-west quarter of the district (lon/lat, EPSG:4490).
    static func floodArea(_ district: SampleDistrict) throws -> Geometry {
        let roads = district[layer: "roads"]
        var e: Envelope?
        for r in roads { if let g = r.geometry?.envelope { if e == nil { e = g } else { e?.expand(toInclude: g) } } }
        let b = try #require(e)
        let x0 = b.minX + 0.30 * (b.maxX - b.minX), x1 = b.minX + 0.55 * (b.maxX - b.minX)
        let y0 = b.minY + 0.30 * (b.maxY - b.minY), y1 = b.minY + 0.55 * (b.maxY - b.minY)
        return .polygon(Polygon(exterior: [Position(x: x0, y: y0), Position(x: x1, y: y0), Position(x: x1, y: y1),
                                           Position(x: x0, y: y1), Position(x: x0, y: y0)]))
    }

    static func expectedIDs(_ features: [Feature], in area: Geometry) throws -> Set<String> {
        Set(try features.filter { f in try f.geometry.map { try area.intersects($0) } ?? false }.compactMap { $0.id?.description })
    }

    /// Address codes of the buildings intersecting `area`.
    static func affected(_ district: SampleDistrict, in area: Geometry) throws -> Set<String> {
        Set(try district[layer: "buildings"].filter { try area.intersects(try #require($0.geometry)) }
            .compactMap { $0.properties["address_code"]?.stringValue })
    }

    /// Ids of the in-use 门牌 whose code a building code extends.
    static func doors(of buildings: Set<String>, _ district: SampleDistrict) -> Set<String> {
        Set(district[layer: "addresses"].filter { f in
            guard f.properties["level"] == "门牌", f.properties["status"] == "在用", let code = f.properties["address_code"]?.stringValue else { return false }
            return buildings.contains { $0.hasPrefix(code) }
        }.compactMap { $0.id?.description })
    }

    /// Residents of the households under the building codes, or whose point is in `area`.
    static func residents(of buildings: Set<String>, _ district: SampleDistrict, in area: Geometry) throws -> Double {
        try district[layer: "population_by_address"].filter { f in
            let code = f.properties["address_code"]?.stringValue ?? ""
            return try buildings.contains { code.hasPrefix($0) } || area.intersects(try #require(f.geometry))
        }.reduce(0.0) { $0 + ($1.properties["residents"]?.doubleValue ?? 0) }
    }

    /// Issue 14 §6: a flood depth layer has holes where buildings stand (their cells take no
    /// surface water) and address points sit at the buildings. Buildings, addresses and people
    /// answer one question ("who lives in the flooded blocks"), so they must agree.
    @Test("an area with holes at the buildings counts the addresses and people of the buildings it touches")
    func holesAtBuildings() async throws {
        let (store, district) = try await EmergencyDistrict.store()
        let block = try Self.floodArea(district)
        let footprints = try district[layer: "buildings"].compactMap(\.geometry).filter { try block.intersects($0) }
        #expect(footprints.count > 5)
        // The block minus every footprint shrunk by about 1 m (0.00001°): what a depth polygon looks
        // like, its cells overlapping the footprints' edges, the address points in the holes.
        let holes = try Geometry.geometryCollection(GeometryCollection(footprints)).unaryUnion().buffer(distance: -0.00001)
        let area = try block.difference(holes)
        let overlay = try await HazardOverlay.assess(HazardArea(geometry: area), store: store, by: .admin)
        let affected = try Self.affected(district, in: area)
        #expect(affected.count > 5)
        // The old count by position: the address points of buildings fell through the holes. (Street-front
        // plates along the 南北 roads have no building: they lie outside every footprint and count either way.)
        let buildingDoors = Set(district[layer: "buildings"].compactMap { $0.properties["address_code"]?.stringValue?.dropLast(3) }.map(String.init))
        let doors = district[layer: "addresses"].filter { $0.properties["level"] == "门牌" && $0.properties["status"] == "在用"
                                                          && buildingDoors.contains($0.properties["address_code"]?.stringValue ?? "") }
        #expect(try Self.expectedIDs(doors, in: area).count < Self.doors(of: affected, district).count)
        #expect(Set(overlay.buildings).count == overlay.buildings.count)
        let expectedDoors = Self.doors(of: affected, district)
        #expect(!expectedDoors.isEmpty)
        #expect(Set(overlay.addresses).isSuperset(of: expectedDoors))
        // Every building with a 门牌 above it brings that 门牌: no building without its address.
        let doorCodes = Set(district[layer: "addresses"].filter { overlay.addresses.contains($0.id?.description ?? "") }
            .compactMap { $0.properties["address_code"]?.stringValue })
        for code in affected where district[layer: "addresses"].contains(where: { $0.properties["level"] == "门牌" && $0.properties["status"] == "在用"
                                                                             && code.hasPrefix($0.properties["address_code"]?.stringValue ?? "-") }) {
            #expect(doorCodes.contains { code.hasPrefix($0) }, "building \(code) has no address in the answer")
        }
        let people = try Self.residents(of: affected, district, in: area)
        #expect(people > 0)
        #expect(overlay.population == people)
    }

    @Test("counts inside a polygon equal GEOS intersects on the generated features; closures never shorten a trip")
    func polygonOverlay() async throws {
        let (store, district) = try await EmergencyDistrict.store()
        let area = try Self.floodArea(district)
        let e = try #require(area.envelope)
        let origin = Position(x: e.minX - 0.004, y: e.minY - 0.004)
        let west = Position(x: e.minX - 0.003, y: (e.minY + e.maxY) / 2), east = Position(x: e.maxX + 0.003, y: (e.minY + e.maxY) / 2)
        let overlay = try await HazardOverlay.assess(HazardArea(geometry: area), store: store, by: .admin, origin: origin,
                                                     route: (from: west, to: east))
        #expect(Set(overlay.roads) == (try Self.expectedIDs(district[layer: "roads"], in: area)))
        #expect(Set(overlay.buildings) == (try Self.expectedIDs(district[layer: "buildings"], in: area)))
        #expect(!overlay.buildings.isEmpty)
        for layer in EmergencyResource.layers {
            #expect(Set(overlay.resources[layer] ?? []) == (try Self.expectedIDs(district[layer: layer], in: area)), "\(layer)")
        }
        let doors = district[layer: "addresses"].filter { $0.properties["level"] == "门牌" && $0.properties["status"] == "在用" }
        let affected = try Self.affected(district, in: area)
        #expect(Set(overlay.addresses) == (try Self.expectedIDs(doors, in: area)).union(Self.doors(of: affected, district)))
        let people = try Self.residents(of: affected, district, in: area)
        #expect(overlay.population == people && people > 0)
        #expect(!overlay.closures.isEmpty && overlay.closedMetres > 0)

        #expect(overlay.reach.count == EmergencyResource.layers.reduce(0) { $0 + district[layer: $1].count })
        for r in overlay.reach {
            if let b = r.before, let a = r.after { #expect(a >= b - 1e-9, "\(r.resource.id)") }
            if r.before == nil { #expect(r.after == nil) }
        }
        // Resources inside the flood sit on closed roads or are cut off; at least one is.
        #expect(!overlay.cutOff.isEmpty)
        let before = try #require(overlay.routeBefore), after = try #require(overlay.routeAfter)
        #expect(after.seconds >= before.seconds - 1e-9)
        #expect(after.pieces.allSatisfy { !overlay.closures.contains($0) })
        if before.pieces.contains(where: { overlay.closures.contains($0) }) {
            #expect(after.seconds > before.seconds, "a route through the flood must detour")
        } else {
            #expect(abs(after.seconds - before.seconds) < 1e-9, "a route clear of the flood keeps its time")
        }
        #expect(overlay.routeUnavailable == nil)
        // A route that starts inside the flood has no detour, and says why (issue 14 §6).
        let centre = Position(x: (e.minX + e.maxX) / 2, y: (e.minY + e.maxY) / 2)
        let trapped = try await HazardOverlay.assess(HazardArea(geometry: area), store: store, by: .admin, route: (from: centre, to: east))
        #expect(trapped.routeBefore != nil)
        #expect(trapped.routeAfter == nil)
        #expect(trapped.routeUnavailable?.contains("'from'") == true, "\(trapped.routeUnavailable ?? "no reason")")
    }

    @Test("a flood result layer filtered by depth gives the union of its deep polygons")
    func floodLayer() async throws {
        let (store, district) = try await EmergencyDistrict.store()
        let area = try Self.floodArea(district)
        let json = """
            {"id": "flood_test_depth", "title": {"zh": "淹没水深", "en": "Flood depth"}, "category": "公共专题",
             "owner": "水务和湖泊局", "format": "vector", "updateFrequency": "realtime",
             "sharing": {"type": "open", "method": "api", "requirements": "模拟结果"},
             "geometryType": "Polygon", "storageCRS": "EPSG:4490",
             "schema": {"type": "object", "properties": {"depth_min_m": {"type": "number"}}}}
            """
        let definition = try JSONDecoder().decode(LayerDefinition.self, from: Data(json.utf8))
        // A second store would need every layer again: add the hazard layer to the shared store under a unique id.
        var unique = definition
        unique.id = "flood_test_\(UInt32.random(in: 0...UInt32.max))_depth"
        try await store.createLayer(unique)
        let e = try #require(area.envelope)
        let midX = (e.minX + e.maxX) / 2
        func box(_ x0: Double, _ x1: Double) -> Geometry {
            .polygon(Polygon(exterior: [Position(x: x0, y: e.minY), Position(x: x1, y: e.minY), Position(x: x1, y: e.maxY),
                                        Position(x: x0, y: e.maxY), Position(x: x0, y: e.minY)]))
        }
        try await store.insert(layer: unique.id, features: [
            Feature(id: .string("shallow"), geometry: box(e.minX, midX), properties: ["depth_min_m": 0.05]),
            Feature(id: .string("deep"), geometry: box(midX, e.maxX), properties: ["depth_min_m": 0.5]),
        ], by: .admin, at: nil)
        let deep = try await HazardArea.union(of: unique.id, filter: .init(property: "depth_min_m", minimum: 0.15), from: store, by: .admin)
        #expect(try deep.geometry.equals(box(midX, e.maxX)))
        let overlay = try await HazardOverlay.assess(deep, store: store, by: .admin)
        #expect(Set(overlay.buildings) == (try Self.expectedIDs(district[layer: "buildings"], in: box(midX, e.maxX))))
        #expect(overlay.reach.isEmpty && overlay.routeBefore == nil)

        do {
            _ = try await HazardArea.union(of: unique.id, filter: .init(property: "depth", minimum: 0.15), from: store, by: .admin)
            Issue.record("an unknown property must fail")
        } catch let e as ScenarioError { #expect(e.field == "property") }
        do {
            _ = try await HazardArea.union(of: unique.id, filter: .init(property: "depth_min_m", minimum: 5), from: store, by: .admin)
            Issue.record("a filter nothing passes must fail")
        } catch let e as ScenarioError { #expect(e.field == "property") }
    }
}
