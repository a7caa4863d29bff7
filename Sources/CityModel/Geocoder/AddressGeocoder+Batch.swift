import Foundation
import GeoCore

extension AddressGeocoder {
    /// What a batch geocodes: an address column (forward) or a lon/lat column pair (reverse, EPSG:4490).
    public enum BatchInput: Sendable, Hashable {
        case address(column: String)
        case point(lonColumn: String, latColumn: String)
    }

    /// Columns a batch appends to every row (empty values when a row has no match).
    public static let batchColumns = ["address_code", "match_level", "confidence", "matched_address", "lon", "lat"]

    /// Geocodes every row of a CSV text (RFC 4180, header row first) and returns the CSV with
    /// `batchColumns` appended (plus `distance_m` for reverse batches).
    ///
    /// - Parameters:
    ///   - progress: called with (rows done, rows total) every 1,000 rows and at the end.
    /// - Throws: `ImportError` `.malformed` for broken CSV (naming the line) and `.invalidValue`
    ///   when a named column is missing from the header.
    public func geocodeCSV(_ text: String, file: String, input: BatchInput,
                           progress: ((Int, Int) -> Void)? = nil) throws -> (csv: String, rows: Int, matched: Int) {
        var rows = CSVRows(text: text)
        var records: [[String]] = []
        do {
            while let r = try rows.next() { if r != [""] { records.append(r) } }
        } catch {
            throw ImportError(.malformed, file: file, location: "line \(rows.line)", error.reason)
        }
        guard let header = records.first else { throw ImportError(.malformed, file: file, "the CSV has no header row") }
        func column(_ name: String) throws -> Int {
            guard let i = header.firstIndex(of: name) else {
                throw ImportError(.invalidValue, file: file, field: name,
                                  "column \(name) is not in the header (\(header.joined(separator: ", ")))")
            }
            return i
        }
        var out = Self.csvLine(header + Self.batchColumns)
        var reverseColumns: (Int, Int)?
        var addressColumn = 0
        switch input {
        case .address(let name): addressColumn = try column(name)
        case .point(let lon, let lat):
            reverseColumns = (try column(lon), try column(lat))
            out = Self.csvLine(header + Self.batchColumns + ["distance_m"])
        }
        let total = records.count - 1
        var matched = 0
        for (n, row) in records.dropFirst().enumerated() {
            let match: AddressMatch?
            if let (lonIndex, latIndex) = reverseColumns {
                let lon = lonIndex < row.count ? Double(row[lonIndex]) : nil
                let lat = latIndex < row.count ? Double(row[latIndex]) : nil
                match = lon.flatMap { x in lat.flatMap { y in reverseGeocode(Position(x: x, y: y)) } }
            } else {
                match = addressColumn < row.count ? geocode(row[addressColumn]) : nil
            }
            var fields = row
            if let m = match {
                matched += 1
                fields += [m.code, m.level.rawValue, String(m.confidence), m.record.fullAddress,
                           String(m.position.x), String(m.position.y)]
                if reverseColumns != nil { fields.append(m.distance.map { String($0) } ?? "") }
            } else {
                fields += Array(repeating: "", count: Self.batchColumns.count + (reverseColumns == nil ? 0 : 1))
            }
            out += Self.csvLine(fields)
            if (n + 1) % 1000 == 0 { progress?(n + 1, total) }
        }
        progress?(total, total)
        return (out, total, matched)
    }

    static func csvLine(_ fields: [String]) -> String {
        fields.map { f in
            f.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
                ? "\"" + f.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : f
        }.joined(separator: ",") + "\n"
    }
}
