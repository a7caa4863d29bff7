@testable import Geocoding
import GeoCore
import Testing
@testable import CityModel
import TestSupport

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

    @Test("a broken row says why (line and reason) and the rows around it still answer; output rows keep the header's width")
    func brokenRows() throws {
        let geocoder = try districtGeocoder.get()
        let door = try #require(geocoder.records.first { $0.level == .doorPlate && $0.inUse })
        let csv = "id,address\n1,\(door.fullAddress)\n2, \n3,\(door.fullAddress),extra\n4,\"\(door.fullAddress)\n5,\(door.fullAddress)\n"
        let result = try geocoder.geocodeCSV(csv, file: "broken.csv", input: .address(column: "address"))
        #expect(result.rows == 5 && result.matched == 2)
        var rows = CSVRows(text: result.csv)
        let header = try #require(try rows.next())
        var answered: [[String]] = []
        while let row = try rows.next() { answered.append(row) }
        #expect(answered.count == 5 && answered.allSatisfy { $0.count == header.count })
        let reason = try #require(header.firstIndex(of: "reason"))
        #expect(answered.map { $0[reason] } == ["", "line 3: the address is empty", "line 4: the row has 3 fields where the header has 2",
                                                 "line 5: a quoted field is never closed", ""])
        #expect(answered[0][2] == door.code && answered[4][2] == door.code && answered[4][0] == "5")
        // Reverse rows: a coordinate that is not a number is named.
        let points = try geocoder.geocodeCSV("lon,lat\n\(door.position.x),\(door.position.y)\n114.8,north\n", file: "points.csv",
                                             input: .point(lonColumn: "lon", latColumn: "lat"))
        #expect(points.rows == 2 && points.matched == 1)
        #expect(points.csv.contains("line 3: lat 'north' is not a latitude in degrees"))
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
