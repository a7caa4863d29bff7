import Foundation
import GeoCore
import ProcessRuntime
import Testing
import TwinStore
@testable import Emergency
@testable import Flood
@testable import Scenarios

/// Issue 14 items 2 and 3 through the processes: points beyond the maximum snap distance are
/// 400s naming the input and the distance, every answer reports its snap distance, and an
/// invalid area is a 400 with GEOS's reason unless the caller asks for the repair.
@Suite("Emergency processes: maximum snap distance and area validity", .temporaryDirectories)
struct EmergencySnapProcessTests {
    typealias Grid = EmergencyProcessTests
    static let beijing: JSONValue = [116.4, 39.9]

    /// A problem's detail, or `nil` (with an issue recorded) when `body` did not fail with one.
    static func detail(_ input: String, sourceLocation: SourceLocation = #_sourceLocation,
                       _ body: () async throws -> Void) async -> String? {
        do {
            try await body()
            Issue.record("expected invalid input '\(input)'", sourceLocation: sourceLocation)
        } catch let e as ProcessInputError {
            #expect(e.input == input, "\(e)", sourceLocation: sourceLocation)
            return "input '\(e.input)': \(e.reason)"
        } catch {
            Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
        }
        return nil
    }

    @Test("an incident in Beijing is a 400 naming the input and its distance to the roads, for every process that snaps")
    func farPoints() async throws {
        let store = try await Grid.makeStore()
        let nearest = await Self.detail("incident") {
            _ = try await NearestResourcesProcess().execute(["incident": Self.beijing, "layer": "shelters"], store: store,
                                                            caller: .anonymous, progress: .ignored)
        }
        #expect(nearest?.contains("m from the nearest road, beyond the maximum snap distance of 500 m") == true, "\(nearest ?? "")")
        let area = await Self.detail("origin") {
            _ = try await ServiceAreaProcess().execute(["origin": Self.beijing], store: store, caller: .anonymous, progress: .ignored)
        }
        #expect(area?.contains("maximum snap distance") == true)
        let box: JSONValue = ["type": "Polygon", "coordinates": [[[114.801, 30.841], [114.802, 30.841], [114.802, 30.842], [114.801, 30.841]]]]
        _ = await Self.detail("origin") {
            _ = try await HazardOverlayProcess().execute(["area": box, "origin": Self.beijing], store: store, caller: .anonymous,
                                                         progress: .ignored)
        }
        _ = await Self.detail("to") {
            _ = try await HazardOverlayProcess().execute(["area": box, "route": ["from": Grid.incident, "to": Self.beijing]],
                                                         store: store, caller: .anonymous, progress: .ignored)
        }
        _ = await Self.detail("maximumSnapMetres") {
            try await NearestResourcesProcess().validate(["incident": Grid.incident, "layer": "shelters", "maximumSnapMetres": -1],
                                                         store: store, caller: .anonymous)
        }
        _ = await Self.detail("maximumSnapMetres") {
            try await ServiceAreaProcess().validate(["origin": Grid.incident, "maximumSnapMetres": "far"], store: store, caller: .anonymous)
        }
    }

    @Test("answers report the snap distance they used; a resource off the network is listed with the reason")
    func snapReported() async throws {
        let store = try await Grid.makeStore()
        // A shelter about 1 km east of the grid's last street.
        try await store.insert(layer: "shelters", features: [
            Feature(id: .string("SH-FAR"), geometry: .point(x: 114.82, y: 30.845),
                    properties: ["name": "远处", "class": "紧急", "capacity": 5000]),
        ], by: .admin, at: nil)
        let result = try await NearestResourcesProcess().execute(["incident": Grid.incident, "layer": "shelters", "count": 50],
                                                                 store: store, caller: .anonymous, progress: .ignored)
        let snap = try #require(result["snap"]?["incident_metres"]?.doubleValue)
        #expect(snap > 50 && snap < 120, "the incident stands about 86 m from the street x = 114.804")
        #expect(result["snap"]?["maximum_metres"]?.doubleValue == 500)
        let features = try #require(result["resources"]?["features"]?.arrayValue)
        #expect(features.count == 5)
        #expect(features.allSatisfy { $0["properties"]?["incident_snap_metres"]?.doubleValue == snap })
        let off = try #require(result["off_road"]?.arrayValue)
        #expect(off.map { $0["id"]?.stringValue } == ["SH-FAR"])
        #expect((off.first?["access_metres"]?.doubleValue ?? 0) > 900)
        #expect(off.first?["reason"]?.stringValue?.contains("beyond the maximum snap distance") == true)
        // A larger limit ranks it.
        let wide = try await NearestResourcesProcess().execute(["incident": Grid.incident, "layer": "shelters", "count": 50,
                                                                "maximumSnapMetres": 5000],
                                                               store: store, caller: .anonymous, progress: .ignored)
        #expect(wide["resources"]?["features"]?.arrayValue?.count == 6)
        let areas = try await ServiceAreaProcess().execute(["origin": [114.803, 30.8425], "breaks": [1]], store: store,
                                                           caller: .anonymous, progress: .ignored)
        let originSnap = try #require(areas["snap"]?["origin_metres"]?.doubleValue)
        #expect(abs(originSnap - 55.6) < 1, "0.0005° of latitude from the street")
        #expect(areas["areas"]?["features"]?.arrayValue?.first?["properties"]?["snap_metres"]?.doubleValue == originSnap)
    }

    /// Two triangles touching at (114.802, 30.842), drawn as one self-crossing ring; the western
    /// one holds SH-1 (114.8001, 30.8401), no other shelter lies in either.
    static let bowTie: JSONValue = ["type": "Polygon", "coordinates": [[[114.799, 30.838], [114.805, 30.846], [114.805, 30.838],
                                                                         [114.799, 30.846], [114.799, 30.838]]]]

    @Test("a self-intersecting area is a 400 with GEOS's reason; with repair: true it is repaired and used")
    func invalidArea() async throws {
        let store = try await Grid.makeStore()
        let hazard = await Self.detail("area") {
            try await HazardOverlayProcess().validate(["area": Self.bowTie], store: store, caller: .anonymous)
        }
        #expect(hazard?.contains("Self-intersection") == true, "\(hazard ?? "")")
        let features = await Self.detail("area") {
            try await FeaturesInArea().validate(["layer": "shelters", "area": Self.bowTie], store: store, caller: .anonymous)
        }
        #expect(features?.contains("Self-intersection") == true, "\(features ?? "")")
        _ = await Self.detail("repair") {
            try await HazardOverlayProcess().validate(["area": Self.bowTie, "repair": "yes"], store: store, caller: .anonymous)
        }
        let repaired = try await HazardOverlayProcess().execute(["area": Self.bowTie, "repair": true], store: store,
                                                                caller: .anonymous, progress: .ignored)
        // The repaired bow-tie (two triangles) holds SH-1; the roads through it close.
        #expect(repaired["inside"]?["shelters"]?["ids"] == ["SH-1"])
        #expect((repaired["closures"]?["pieces"]?.integerValue ?? 0) > 0)
        let counted = try await FeaturesInArea().execute(["layer": "shelters", "area": Self.bowTie, "repair": true], store: store,
                                                         caller: .anonymous, progress: .ignored)
        #expect(counted["ids"] == ["SH-1"])
    }
}
