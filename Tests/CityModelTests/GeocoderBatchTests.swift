import GeoCore
import Testing
@testable import CityModel

@Suite("Batch geocoding of a CSV")
struct GeocoderBatchTests {
    /// 1,500 noisy rows in waves of 400 (each wave matched on all cores): each output row is the input row
    /// followed by exactly what `geocode` answers for it, in the input order.
    @Test("every row carries its own match, in input order, across waves")
    func rowsKeepOrder() throws {
        let geocoder = try districtGeocoder.get()
        var set = GeocoderSampleSet(district: try generatedDistrict(), seed: 7)
        let targets = set.nodes.values.filter { $0.inUse }.map(\.code).sorted()
        let texts = (0..<1_500).map { _ in set.next(targets: targets).text }
        let csv = "id,address\n" + texts.enumerated().map { "\($0.offset),\(AddressGeocoder.csvLine([$0.element]).dropLast())" }.joined(separator: "\n") + "\n"
        var reported: [Int] = []
        let result = try geocoder.geocodeCSV(csv, file: "batch.csv", input: .address(column: "address"), wave: 400) { p in
            #expect(p.total == Double(texts.count) && p.unit == "rows")
            reported.append(Int(p.completed))
        }
        #expect(result.rows == texts.count)
        #expect(reported == reported.sorted() && reported.last == texts.count)
        var rows = CSVRows(text: result.csv)
        #expect(try rows.next() == ["id", "address"] + AddressGeocoder.batchColumns)
        var matched = 0
        for (i, text) in texts.enumerated() {
            let row = try #require(try rows.next())
            #expect(row[0] == String(i) && row[1] == text)
            let expected = geocoder.geocode(text)
            #expect(row[2] == (expected?.code ?? ""), "row \(i): \(text)")
            if expected != nil { matched += 1 }
        }
        #expect(result.matched == matched && matched > texts.count / 2)
    }

    @Test("an empty batch (header only) gives the header back")
    func headerOnly() throws {
        let result = try districtGeocoder.get().geocodeCSV("address\n", file: "empty.csv", input: .address(column: "address"))
        #expect(result.rows == 0 && result.matched == 0)
        #expect(result.csv == AddressGeocoder.csvLine(["address"] + AddressGeocoder.batchColumns))
    }

    @Test("a missing address column is an error naming it")
    func missingColumn() throws {
        #expect(throws: ImportError.self) {
            try districtGeocoder.get().geocodeCSV("name\nx\n", file: "bad.csv", input: .address(column: "address"))
        }
    }
}
