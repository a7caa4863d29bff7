import CityModel
import Foundation
import GeoCore
import ProcessRuntime
import TestSupport
import Testing
import TwinStore
@testable import Scenarios

/// The `geocoding` process other departments call: forward, reverse and CSV batches against the
/// district's standard addresses, each input answered in order, an unmatched one with its reason.
@Suite("Geocoding process")
struct GeocodingProcessTests {
    static func run(_ inputs: [String: JSONValue], caller: Caller = EmergencyDistrict.emergencyBureau) async throws -> JSONValue {
        let (store, _) = try await EmergencyDistrict.store()
        let registry = ProcessRegistry.standard
        let process = try #require(registry["geocoding"])
        return try await registry.run(process.id, inputs: inputs, caller: caller, store: store)
    }

    @Test("forward: a door plate's full address is found exactly, a fuzzy short form too, a city elsewhere is not")
    func forward() async throws {
        let (_, district) = try await EmergencyDistrict.store()
        let plate = try #require(district[layer: "addresses"].first { $0.properties["level"] == "门牌" })
        let full = try #require(plate.properties["full_address"]?.stringValue)
        let result = try await Self.run(["addresses": [.string(full), "北京市朝阳区"]])
        let matches = try #require(result["matches"]?.arrayValue)
        #expect(matches.count == 2)
        #expect(matches[0]["matched"] == true && matches[0]["address_code"]?.stringValue == plate.id?.description)
        #expect(matches[0]["confidence"]?.doubleValue == 1 && matches[0]["input"]?.stringValue == full)
        #expect(matches[1]["matched"] == false && matches[1]["reason"]?.stringValue != nil)
    }

    @Test("forward: a door plate that does not exist answers its road with a fallback naming the level asked for and why")
    func fallback() async throws {
        let result = try await Self.run(["addresses": ["邾城七路9999号", "沿江大道"]])
        let matches = try #require(result["matches"]?.arrayValue)
        #expect(matches[0]["match_level"] == "街巷" && matches[0]["confidence"]?.doubleValue == 0.5)
        #expect(matches[0]["matched_address"]?.stringValue?.hasSuffix("邾城街道邾城七路") == true)
        #expect(matches[0]["fallback"]?["requested_level"] == "门牌" && matches[0]["fallback"]?["interpolated"] == false)
        #expect(matches[0]["fallback"]?["reason"]?.stringValue?.contains("does not exist") == true)
        #expect(matches[1]["match_level"] == "街巷" && matches[1]["confidence"]?.doubleValue == 1 && matches[1]["fallback"] == nil)
    }

    @Test("reverse: a point beside a building answers it with the distance; a point far away answers no match")
    func reverse() async throws {
        let result = try await Self.run(["points": [[114.80, 30.84], [114.0, 30.0]]])
        let matches = try #require(result["matches"]?.arrayValue)
        #expect(matches[0]["matched"] == true && (matches[0]["distance_m"]?.doubleValue ?? 1e9) < 500)
        #expect(matches[1]["matched"] == false)
    }

    @Test("a CSV batch answers every row in order with the match columns appended")
    func batch() async throws {
        let result = try await Self.run(["csv": "name,address\na,邾城七路26号\nb,不存在的地址\n"])
        #expect(result["rows"]?.integerValue == 2 && result["matched"]?.integerValue == 1)
        let lines = try #require(result["csv"]?.stringValue?.split(separator: "\n").map(String.init))
        #expect(lines[0].hasPrefix("name,address,address_code,match_level,confidence"))
        #expect(lines.count == 3 && lines[1].hasPrefix("a,邾城七路26号,") && lines[2].hasPrefix("b,不存在的地址,,"))
    }

    @Test("bad inputs name the input; the addresses are refused to an anonymous caller")
    func refusals() async throws {
        func named(_ inputs: [String: JSONValue]) async -> String? {
            do { _ = try await Self.run(inputs); return nil } catch let e as ProcessInputError { return e.input } catch { return "\(error)" }
        }
        #expect(await named(["addresses": ["x"], "points": [[114.8, 30.84]]]) == "points")
        #expect(await named([:]) == "addresses")
        #expect(await named(["addresses": []]) == "addresses")
        #expect(await named(["points": [[514.8, 30.84]]]) == "points")
        #expect(await named(["csv": "name,address\na,b\n", "column": "地址"]) == "column")
        #expect(await named(["csv": "name,x,y\na,1,2\n", "reverse": true, "lonColumn": "x", "latColumn": "纬度"]) == "latColumn")
        #expect(await named(["csv": "\"name,address\n"]) == "csv")
        do {
            _ = try await Self.run(["addresses": ["邾城七路26号"]], caller: .anonymous)
            Issue.record("anonymous callers may not read the standard addresses")
        } catch let e as StoreError {
            #expect(e.code == .unauthenticated && e.layer == "addresses")
        }
    }
}
