import Foundation
import Sponge
import Testing

/// GB/T 51345-2018's design rainfall on a real record (NOAA's daily rainfall at Seattle,
/// 2012–2015; Fixtures/ by Scripts/reference/make_sponge_fixtures.py, which computes the method
/// independently with numpy: the rates by Σmin(P, d)/ΣP, the depths by bisection).
@Suite("Design rainfall matches a numpy reference of GB/T 51345-2018 on NOAA's Seattle record")
struct DesignRainfallTests {
    struct Reference: Decodable {
        var days: Int
        var first_date: String
        var last_date: String
        var counted_days: Int
        var counted_mm: Double
        var dry_days: Int
        var light_days: Int
        var snow_days: Int
        var snow_mm: Double
        var design_depth_mm: [String: Double]
        var rate_at_depth: [String: Double]
    }

    static func fixture(_ name: String, _ ext: String) throws -> URL {
        try #require(Bundle.module.url(forResource: name, withExtension: ext, subdirectory: "Fixtures"))
    }

    static func seattle() throws -> (DailyRainfall, Reference) {
        let text = try String(contentsOf: try fixture("seattle-weather-daily", "csv"), encoding: .utf8)
        let record = try DailyRainfall(csv: text, columns: .init(date: "date", depth: "precipitation", snow: "weather"))
        let reference = try JSONDecoder().decode(Reference.self, from: Data(contentsOf: try fixture("seattle-design-rainfall", "json")))
        return (record, reference)
    }

    @Test("the record's days, the days counted and the days left out, by reason")
    func daysCounted() throws {
        let (record, reference) = try Self.seattle()
        let answer = try DesignRainfall(record: record, rate: 0.75)
        #expect(answer.record.recordedDays == reference.days)
        #expect(answer.record.firstDate == reference.first_date)
        #expect(answer.record.lastDate == reference.last_date)
        #expect(answer.record.missingDays == 0)
        #expect(answer.countedDays == reference.counted_days)
        #expect(abs(answer.countedMillimetres - reference.counted_mm) < 1e-6)
        #expect(answer.dropped.dryDays == reference.dry_days)
        #expect(answer.dropped.lightDays == reference.light_days)
        #expect(answer.dropped.snowDays == reference.snow_days)
        #expect(abs(answer.dropped.snowMillimetres - reference.snow_mm) < 1e-6)
    }

    @Test("the design depth of every rate on the curve within 1e-6 mm of the reference")
    func designDepths() throws {
        let (record, reference) = try Self.seattle()
        let answer = try DesignRainfall(record: record, rate: 0.75)
        #expect(abs(answer.designRainfallMillimetres - reference.design_depth_mm["0.75"]!) < 1e-6)
        #expect(answer.curve.map(\.rate) == DesignRainfall.curveRates)
        for point in answer.curve {
            let expected = try #require(reference.design_depth_mm[String(format: "%.2f", point.rate)])
            #expect(abs(point.depthMillimetres - expected) < 1e-6, "rate \(point.rate): \(point.depthMillimetres) mm, reference \(expected) mm")
        }
    }

    @Test("the capture rate of a depth matches the reference's Σmin(P, d)/ΣP")
    func ratesOfDepths() throws {
        let (record, reference) = try Self.seattle()
        let curve = CaptureRateCurve(depths: DesignRainfall.countedDepths(record))
        for (text, expected) in reference.rate_at_depth {
            let d = try #require(Double(text))
            #expect(abs(curve.rate(forDepth: d) - expected) < 1e-12, "\(d) mm: \(curve.rate(forDepth: d)), reference \(expected)")
            // The inverse: the depth of that rate is the depth again.
            #expect(abs(curve.depth(forRate: expected) - d) < 1e-9)
        }
    }

    @Test("a record shorter than 30 years is analysed and said so")
    func shortRecordWarned() throws {
        let (record, _) = try Self.seattle()
        let answer = try DesignRainfall(record: record, rate: 0.8)
        #expect(answer.record.years == 4.0)
        #expect(answer.warnings.contains { $0.contains("4.0 years") && $0.contains("at least 30 years") })
        // The target joins the curve when it is not one of its rates.
        let other = try DesignRainfall(record: record, rate: 0.77)
        #expect(other.curve.map(\.rate).contains(0.77))
    }

    @Test("a rate outside (0, 1) and a record with no day above 2 mm are refused, naming them")
    func refusals() throws {
        let (record, _) = try Self.seattle()
        #expect(throws: SpongeInputError("rate", "a capture rate is between 0 and 1 (exclusive), got 1.0")) {
            try DesignRainfall(record: record, rate: 1)
        }
        let dry = DailyRainfall(days: [.init(day: 0, millimetres: 1.5), .init(day: 1, millimetres: 0), .init(day: 2, millimetres: 30, snow: true)])
        let error = #expect(throws: SpongeInputError.self) { try DesignRainfall(record: dry, rate: 0.75) }
        #expect(error?.input == "daily-rainfall")
        #expect(error?.reason.contains("no day") == true)
    }
}
