import Foundation
import GeoCore
import Sponge
import Testing

/// The rainfall record's CSV reader: columns named by the caller, dates and date-times, sub-daily
/// readings summed into days, and every bad row refused naming its row and column.
@Suite("Daily rainfall CSV: columns, days, sub-daily sums, bad rows named")
struct DailyRainfallCSVTests {
    let shanghai = TimeZone(identifier: "Asia/Shanghai")!

    func read(_ text: String, _ columns: DailyRainfall.Columns = .init()) throws -> DailyRainfall {
        try DailyRainfall(csv: text, columns: columns, zone: shanghai, source: "rain.csv")
    }

    func refusal(_ text: String, _ columns: DailyRainfall.Columns = .init()) -> SpongeInputError? {
        return #expect(throws: SpongeInputError.self) { try read(text, columns) }
    }

    @Test("daily rows with the default columns, quoted fields and a BOM")
    func daily() throws {
        let r = try read("\u{FEFF}date,precipitation\n2024-07-01,12.5\n\"2024-07-02\",\"0\"\n\n2024/07/04,3\n")
        #expect(r.days.map(\.date) == ["2024-07-01", "2024-07-02", "2024-07-04"])
        #expect(r.days.map(\.millimetres) == [12.5, 0, 3])
        #expect(r.coverage?.missingDays == 1)
        #expect(r.subDaily == false)
    }

    @Test("named columns and a snow column")
    func namedColumns() throws {
        let r = try read("day,mm,kind\n2024-01-01,4,雪\n2024-01-02,5,rain\n2024-01-03,6,SNOW\n",
                         .init(date: "day", depth: "mm", snow: "kind"))
        #expect(r.days.map(\.snow) == [true, false, true])
    }

    @Test("sub-daily readings are summed into the city's calendar day")
    func subDaily() throws {
        let r = try read("""
            time,precipitation
            2024-07-01T15:00:00Z,1.5
            2024-07-01 23:30,0.5
            2024-07-01T16:30:00Z,2.0
            2024-07-02 00:40:00,4
            """, .init(date: "time"))
        // 15:00Z is 23:00 in Shanghai (July 1); 16:30Z is 00:30 on July 2; wall-clock times are the city's.
        #expect(r.days.map(\.date) == ["2024-07-01", "2024-07-02"])
        #expect(r.days.map(\.millimetres) == [2.0, 6.0])
        #expect(r.readings == 4)
        #expect(r.subDaily)
    }

    @Test("bad rows are refused naming the row and the column")
    func badRows() {
        #expect(refusal("date,precipitation\n2024-07-01,x\n")?.input == "rain.csv row 2 column precipitation")
        #expect(refusal("date,precipitation\n2024-07-01,1\n2024-02-30,1\n")?.input == "rain.csv row 3 column date")
        #expect(refusal("date,precipitation\n2024-07-01,-1\n")?.reason.contains("negative") == true)
        #expect(refusal("date,precipitation\n2024-07-01,1\n2024-07-01,2\n")?.reason == "2024-07-01 is listed twice")
        #expect(refusal("date,precipitation\n2024-07-02,1\n2024-07-01,2\n")?.reason.contains("time order") == true)
        #expect(refusal("date,precipitation\n2024-07-01\n")?.input == "rain.csv row 2 column precipitation")
        #expect(refusal("date,precipitation\n2024-07-01,1\n2024-07-02 10:00,1\n")?.reason.contains("daily or sub-daily") == true)
        #expect(refusal("day,precipitation\n2024-07-01,1\n")?.reason.contains("--date-column") == true)
        #expect(refusal("date,precipitation\n")?.reason == "no row of rainfall after the header")
        #expect(refusal("")?.reason.contains("empty") == true)
    }
}
