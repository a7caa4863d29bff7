import Foundation
import Testing
@testable import SignalSim

/// The intersection JSON `citytwin signal plan --input` reads: its defaults and its refusals.
extension WebsterTimingTests {
    @Test("the intersection JSON of `citytwin signal plan --input` decodes with its defaults")
    func decodesInputJSON() throws {
        let json = #"""
        {"id": "IX-0043", "amber_s": 3, "all_red_s": 2, "startup_lost_s": 3,
         "approaches": [{"id": "N", "lanes": 2, "saturation_veh_h_lane": 1800, "flows_veh_h": {"through": 900, "left": 120, "right": 80}},
                        {"id": "S", "lanes": 2, "flows_veh_h": {"through": 800}},
                        {"id": "W", "lanes": 1, "flows_veh_h": {"through": 300, "left": 50}},
                        {"id": "E", "lanes": 1, "flows_veh_h": {"through": 280, "right": 60}, "storage_m": 60}],
         "stages": [["N", "S"], ["W", "E"]]}
        """#
        let demand = try JSONDecoder().decode(IntersectionDemand.self, from: Data(json.utf8))
        #expect(demand.approaches[1].saturationPerLane == nil)
        #expect(demand.approaches[3].storage == 60 && demand.approaches[0].storage == nil)
        #expect(demand.approaches[0].flows.total == 1100)
        let timing = try SignalTiming.webster(demand)
        // S uses the default through saturation: 2 × 1800.
        #expect(timing.approaches[1].saturationFlow == 3600)
        // W's left turners lower its saturation flow below the through default.
        #expect(timing.approaches[2].saturationFlow < 1800)
        // N's 1800 is the base of its through lanes: its 120 lefts through S's 800 and its 80 rights
        // are discounted from it, as from the default base it equals (the same plan without it).
        #expect(timing.approaches[0].saturationFlow < 3400)
        var defaults = demand
        defaults.approaches[0].saturationPerLane = nil
        #expect(try SignalTiming.webster(defaults).plan == timing.plan)
    }

    @Test("a field the intersection JSON does not know is refused, naming it, not dropped for a default",
          arguments: [
              (#"{"id": "K", "all_red": 4, "approaches": [{"id": "N", "lanes": 1, "flows_veh_h": {"through": 300}}], "stages": [["N"]]}"#, "all_red"),
              (#"{"id": "K", "approaches": [{"id": "N", "lanes": 1, "flows_veh_h": {"through": 300, "uturn": 20}}], "stages": [["N"]]}"#, "approaches[0].flows_veh_h.uturn"),
              (#"{"id": "K", "approaches": [{"id": "N", "lanes": 1, "saturation": 1700, "flows_veh_h": {"through": 300}}], "stages": [["N"]]}"#, "approaches[0].saturation"),
              (#"{"id": "K", "approaches": [{"id": "N", "lanes": 1, "flows_veh_h": {"through": 300}}], "stages": [["N"]], "crossings": [{"id": "P", "length_m": 20, "stage": 0, "island": true}]}"#, "crossings[0].island"),
          ])
    func unknownFieldsRefused(_ json: String, _ path: String) {
        #expect {
            try JSONDecoder().decode(IntersectionDemand.self, from: Data(json.utf8))
        } throws: { error in
            guard case let DecodingError.dataCorrupted(context) = error else { return false }
            let named = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? "." + $0.stringValue }.joined()
            return named.drop(while: { $0 == "." }) == path && context.debugDescription.contains("unknown field")
        }
    }
}
