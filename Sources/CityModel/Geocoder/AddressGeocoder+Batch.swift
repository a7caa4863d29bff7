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
    ///   - wave: rows matched (on all cores) between two progress reports.
    ///   - progress: called after every wave and at the end: stage `geocoding`, rows done of the rows.
    ///
    /// Rows are matched on all cores; the output keeps the input order.
    /// - Throws: `ImportError` `.malformed` for broken CSV (naming the line) and `.invalidValue`
    ///   when a named column is missing from the header.
    public func geocodeCSV(_ text: String, file: String, input: BatchInput,
                           wave: Int = 8192, progress: ((WorkProgress) -> Void)? = nil) throws -> (csv: String, rows: Int, matched: Int) {
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
        let geocoder = self
        let reverse = reverseColumns, addressIndex = addressColumn
        let emptyFields = Array(repeating: "", count: Self.batchColumns.count + (reverse == nil ? 0 : 1))
        // Rows are matched on all cores, a wave at a time, so progress is reported between waves
        // on the calling thread; the output keeps the input order.
        var done = 0
        while done < total {
            let rows = Array(records[(1 + done)..<(1 + Swift.min(total, done + Swift.max(1, wave)))])
            let lines = try rows.parallelMap { row -> (String, Bool) in
                let match: AddressMatch?
                if let (lonIndex, latIndex) = reverse {
                    let lon = lonIndex < row.count ? Double(row[lonIndex]) : nil
                    let lat = latIndex < row.count ? Double(row[latIndex]) : nil
                    match = lon.flatMap { x in lat.flatMap { y in geocoder.reverseGeocode(Position(x: x, y: y)) } }
                } else {
                    match = addressIndex < row.count ? geocoder.geocode(row[addressIndex]) : nil
                }
                var fields = row
                if let m = match {
                    fields += [m.code, m.level.rawValue, String(m.confidence), m.record.fullAddress,
                               String(m.position.x), String(m.position.y)]
                    if reverse != nil { fields.append(m.distance.map { String($0) } ?? "") }
                } else {
                    fields += emptyFields
                }
                return (Self.csvLine(fields), match != nil)
            }
            for (line, isMatch) in lines {
                out += line
                if isMatch { matched += 1 }
            }
            done += rows.count
            if done < total { progress?(WorkProgress(stage: "geocoding", completed: Double(done), total: Double(total), unit: "rows")) }
        }
        progress?(WorkProgress(stage: "geocoding", completed: Double(total), total: Double(total), unit: "rows"))
        return (out, total, matched)
    }

    static func csvLine(_ fields: [String]) -> String {
        fields.map { f in
            f.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
                ? "\"" + f.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : f
        }.joined(separator: ",") + "\n"
    }
}
