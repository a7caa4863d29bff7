import Foundation
import GeoCore
import HummingbirdTesting
import Server
import Testing
import TwinStore

/// Issue 58 §5: a SensorThings Location at latitude 114.8 was stored (lat, lon sent in GeoJSON's lon, lat order).
@Suite("SensorThings positions within CRS84")
struct SensorThingsRangeTests {
    @Test("a Location or FeatureOfInterest with a latitude outside [-90, 90] is a 400 naming the member, the range and the swapped axes; nothing is written")
    func latitudeOutOfRange() async throws {
        try await SensorThingsAPI.run { api in
            let (thing, _) = try await api.postGauge()
            let swapped = try await api.send(.post, "/sta/v1.1/Things(\(thing))/Locations", token: api.token(), body: """
                {"name": "邾城新站", "description": "axes swapped", "encodingType": "application/geo+json",
                 "location": {"type": "Point", "coordinates": [30.8502, 114.8101]}}
                """)
            try expectProblem(swapped, status: 400, type: "invalid-body", naming: "location")
            let detail = try swapped.json["detail"]?.stringValue ?? ""
            #expect(detail.contains("latitude 114.8101") && detail.contains("[-90, 90]") && detail.contains("swapped axes")
                    && detail.contains("[114.8101, 30.8502]"), "\(detail)")
            let foi = try await api.send(.post, "/sta/v1.1/FeaturesOfInterest", token: api.token(), body: """
                {"name": "far", "description": "north of the pole", "encodingType": "application/geo+json",
                 "feature": {"type": "Polygon", "coordinates": [[[114.8, 30.8], [114.9, 30.8], [114.9, 95.0], [114.8, 30.8]]]}}
                """)
            try expectProblem(foi, status: 400, type: "invalid-body", naming: "feature")
            #expect(try foi.json["detail"]?.stringValue?.contains("latitude 95.0") == true)
            let longitude = try await api.send(.post, "/sta/v1.1/Locations", token: api.token(), body: """
                {"name": "x", "description": "y", "encodingType": "application/geo+json", "location": {"type": "Point", "coordinates": [514.8, 30.8]}}
                """)
            try expectProblem(longitude, status: 400, type: "invalid-body", naming: "location")
            #expect(try longitude.json["detail"]?.stringValue?.contains("longitude 514.8") == true)
            #expect(try await api.get("/sta/v1.1/Locations?$count=true").json["@iot.count"]?.integerValue == 1, "only the gauge's own Location")
            #expect(try await api.get("/sta/v1.1/FeaturesOfInterest?$count=true").json["@iot.count"]?.integerValue == 0)
        }
    }
}
