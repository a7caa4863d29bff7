import GeoCore

/// Occupancy readings in bulk as CSV: a header naming the columns, one reading per line. Birmingham's
/// columns (`SystemCodeNumber, Capacity, Occupancy, LastUpdated`) and CityTwin's own
/// (`lot, capacity, occupied, time`) are both read; `capacity` is optional when the lots are known.
public struct OccupancyFeed: Sendable {
    public var observations: [OccupancyObservation] = []
    /// Capacity per lot as the feed states it (the last stated value).
    public var capacities: [String: Int] = [:]
    /// Lines that could not be read (1-based line number and why), at most 20 kept.
    public var malformed: [String] = []
    /// All unreadable lines.
    public var malformedCount = 0

    static let lotColumns = ["systemcodenumber", "lot", "lot_id"]
    static let capacityColumns = ["capacity"]
    static let occupiedColumns = ["occupancy", "occupied"]
    static let timeColumns = ["lastupdated", "time", "observed_at"]

    /// Reads CSV text (RFC 4180, through the project's one reader, `CSVRecords`); throws when the
    /// header lacks a column the readings need or a quoted field is never closed.
    public init(csv text: String) throws {
        var records: [(line: Int, fields: [String])] = []
        var reader = CSVRecords(text: text)
        do {
            while let fields = try reader.next() { records.append((reader.line, fields)) }
        } catch {
            throw ParkingError(field: "csv", error.reason)
        }
        while let last = records.last, last.fields.count == 1, last.fields[0].trimmingSpaces.isEmpty { records.removeLast() }
        guard let header = records.first?.fields else { throw ParkingError(field: "csv", "is empty (a header line is required)") }
        let names = header.map { $0.trimmingSpaces.lowercased() }
        func column(_ options: [String], _ field: String) throws -> Int {
            guard let i = names.firstIndex(where: options.contains) else {
                throw ParkingError(field: field, "no column named \(options.joined(separator: " or ")) in the header")
            }
            return i
        }
        let lot = try column(Self.lotColumns, "lot")
        let occupied = try column(Self.occupiedColumns, "occupied")
        let time = try column(Self.timeColumns, "time")
        let capacity = names.firstIndex(where: Self.capacityColumns.contains)
        for (line, record) in records.dropFirst() {
            let fields = record.map { $0.trimmingSpaces }
            func bad(_ why: String) {
                malformedCount += 1
                if malformed.count < 20 { malformed.append("line \(line): \(why)") }
            }
            guard fields.count == names.count else { bad("\(fields.count) fields, the header has \(names.count)"); continue }
            guard !fields[lot].isEmpty else { bad("no lot id"); continue }
            guard let occ = Int(fields[occupied]) else { bad("occupied \"\(fields[occupied])\" is not a whole number"); continue }
            guard let t = LocalClock.parse(fields[time]) else { bad("time \"\(fields[time])\" is not YYYY-MM-DD HH:MM:SS"); continue }
            if let c = capacity {
                guard let cap = Int(fields[c]), cap > 0 else { bad("capacity \"\(fields[c])\" is not a positive whole number"); continue }
                capacities[fields[lot]] = cap
            }
            observations.append(OccupancyObservation(lot: fields[lot], time: t, occupied: occ))
        }
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces, tabs and quotes (CSV exports often quote plain fields).
    var trimmingSpaces: String {
        let skip: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\"" || $0 == "\r" }
        guard let a = firstIndex(where: { !skip($0) }), let b = lastIndex(where: { !skip($0) }) else { return "" }
        return String(self[a...b])
    }
}
