@testable import Geocoding
import GeoCore
import Testing
@testable import CityModel
import TestSupport

/// The geocoder built once per test process over the default sample district.
let districtGeocoder: Result<AddressGeocoder, any Error> = Result {
    try AddressGeocoder(features: try generatedDistrict()[layer: "addresses"])
}

@Suite("Geocoder accuracy on noisy addresses from the sample district")
struct GeocoderAccuracyTests {
    /// A returned match is correct when its record is the truth or an ancestor of it (a coarser
    /// but true answer at the level it asserts); recall counts exact answers among matchable strings.
    @Test("precision ≥ 98 % and recall ≥ 95 % on 3,000 seeded noisy strings")
    func precisionAndRecall() throws {
        let geocoder = try districtGeocoder.get()
        let district = try generatedDistrict()
        var set = GeocoderSampleSet(district: district, seed: 20_260_417)
        let levels: Set<String> = ["户室", "户室", "单元", "楼栋", "门牌", "院落", "街路巷", "社区/村"]
        let targets = set.nodes.values.filter { levels.contains($0.level) && $0.inUse }.map(\.code).sorted()
        #expect(targets.count > 10_000)
        var returned = 0, correct = 0, exact = 0, matchable = 0, wrong: [String] = [], missed: [String] = []
        for _ in 0..<3000 {
            let sample = set.next(targets: targets)
            if sample.matchable { matchable += 1 }
            let match = geocoder.geocode(sample.text)
            if let match {
                returned += 1
                if let truth = sample.truth, truth.hasPrefix(match.code) {
                    correct += 1
                    if truth == match.code && sample.matchable { exact += 1 }
                    else if sample.matchable { missed.append("\(sample.text) → \(match.record.fullAddress) (\(match.level.rawValue))") }
                } else {
                    wrong.append("\(sample.text) → \(match.record.fullAddress) [truth \(sample.truth ?? "none")]")
                }
            } else if sample.matchable {
                missed.append("\(sample.text) → no match")
            }
        }
        let precision = Double(correct) / Double(max(1, returned))
        let recall = Double(exact) / Double(max(1, matchable))
        print("geocoder precision \(precision) (\(correct)/\(returned)), recall \(recall) (\(exact)/\(matchable))")
        for w in wrong.prefix(15) { print("WRONG", w) }
        for m in missed.prefix(15) { print("MISSED", m) }
        #expect(precision >= 0.98, "wrong: \(wrong.prefix(10))")
        #expect(recall >= 0.95, "missed: \(missed.prefix(10))")
    }

    @Test("strings naming nothing in the district give no match")
    func nothing() throws {
        let geocoder = try districtGeocoder.get()
        for text in ["", "   ", "，。、", "北京市朝阳区建国路88号", "幸福路12号", "12345"] {
            #expect(geocoder.geocode(text) == nil, "\(text)")
        }
    }
}
