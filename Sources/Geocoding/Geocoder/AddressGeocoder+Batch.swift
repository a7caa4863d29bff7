import CityModel
import Foundation
import GeoCore

extension AddressGeocoder {
    /// What a batch geocodes: an address column (forward) or a lon/lat column pair (reverse, EPSG:4490).
    public enum BatchInput: Sendable, Hashable {
        case address(column: String)
        case point(lonColumn: String, latColumn: String)
    }

    /// Columns a batch appends to every row: the match (empty values when a row has none) and
    /// `reason`: empty for a match at the level the text asks for, `fallback: …` with why for a
    /// coarser one (`AddressMatch.fallback`), else why the row has none (it names the row's line).
    public static let batchColumns = ["address_code", "match_level", "confidence", "matched_address", "lon", "lat", "reason"]

    /// Geocodes every row of a CSV text (RFC 4180, header row first) and returns the CSV with
    /// `batchColumns` appended (plus `distance_m` for reverse batches). Every row is answered:
    /// a broken row (a quoted field never closed, more or fewer fields than the header, an
    /// empty address, a coordinate that is not a number) and a row without a match carry their
    /// reason, and the rows around them still answer. Output rows have the header's width.
    ///
    /// - Parameters:
    ///   - maximumDistance: reverse batches: the farthest record returned (m).
    ///   - wave: rows matched (on all cores) between two progress reports.
    ///   - progress: called after every wave and at the end: stage `geocoding`, rows done of the rows.
    ///
    /// Rows are matched on all cores; the output keeps the input order.
    /// - Throws: `ImportError` `.malformed` when the header row cannot be read and
    ///   `.invalidValue` when a named column is missing from the header.
    public func geocodeCSV(_ text: String, file: String, input: BatchInput, maximumDistance: Double = 500,
                           wave: Int = 8192, progress: ((WorkProgress) -> Void)? = nil) throws -> (csv: String, rows: Int, matched: Int) {
        let records = Self.csvRecords(text)
        guard let first = records.first else { throw ImportError(.malformed, file: file, "the CSV has no header row") }
        if let broken = first.broken { throw ImportError(.malformed, file: file, location: "line \(first.line)", broken) }
        let header = first.fields
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
        let reverse = reverseColumns, addressIndex = addressColumn, width = header.count
        let kinds = Self.outputKinds(width: width, numeric: Set(reverse.map { [$0.0, $0.1] } ?? []), reverse: reverse != nil)
        let names = (lon: reverse.map { header[$0.0] } ?? "", lat: reverse.map { header[$0.1] } ?? "")
        let emptyMatch = Array(repeating: "", count: Self.batchColumns.count - 1)
        // Rows are matched on all cores, a wave at a time, so progress is reported between waves
        // on the calling thread; the output keeps the input order.
        var done = 0
        while done < total {
            let rows = Array(records[(1 + done)..<(1 + Swift.min(total, done + Swift.max(1, wave)))])
            let lines = try rows.parallelMap { record -> (String, Bool) in
                var fields = record.fields
                fields += Array(repeating: "", count: Swift.max(0, width - fields.count))
                fields = Array(fields.prefix(width))
                var match: AddressMatch?
                var reason = ""
                if let broken = record.broken {
                    reason = broken
                } else if record.fields.count != width {
                    reason = "the row has \(record.fields.count) fields where the header has \(width)"
                } else if let (lonIndex, latIndex) = reverse {
                    let (lonText, latText) = (record.fields[lonIndex].trimmingCharacters(in: .whitespaces),
                                              record.fields[latIndex].trimmingCharacters(in: .whitespaces))
                    if let lon = Double(lonText), (-180...180).contains(lon) {
                        if let lat = Double(latText), (-90...90).contains(lat) {
                            match = geocoder.reverseGeocode(Position(x: lon, y: lat), maximumDistance: maximumDistance)
                            if match == nil { reason = "no door plate or building within \(Int(maximumDistance)) m" }
                        } else {
                            reason = "\(names.lat) '\(latText)' is not a latitude in degrees"
                        }
                    } else {
                        reason = "\(names.lon) '\(lonText)' is not a longitude in degrees"
                    }
                } else if record.fields[addressIndex].trimmingCharacters(in: .whitespaces).isEmpty {
                    reason = "the address is empty"
                } else {
                    match = geocoder.geocode(record.fields[addressIndex])
                    if match == nil { reason = "names no standard address of the district or contradicts itself" }
                }
                if let m = match {
                    fields += [m.code, m.level.rawValue, String(m.confidence), m.record.fullAddress,
                               String(m.position.x), String(m.position.y), m.fallback.map { "fallback: " + $0.reason } ?? ""]
                    if reverse != nil { fields.append(m.distance.map { String($0) } ?? "") }
                } else {
                    fields += emptyMatch + ["line \(record.line): " + reason]
                    if reverse != nil { fields.append("") }
                }
                return (Self.csvLine(fields, kinds: kinds), match != nil)
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

    /// The non-blank records of a CSV text with the line each starts on. A record that cannot be
    /// read (a quoted field never closed swallows the rest of the text) becomes a broken record
    /// with its reason, and reading goes on at the line after the one it started on.
    static func csvRecords(_ text: String) -> [(fields: [String], line: Int, broken: String?)] {
        var records: [(fields: [String], line: Int, broken: String?)] = []
        var lines: [Substring]?
        var rest = text, offset = 0
        while true {
            var rows = CSVRows(text: rest)
            do {
                while let r = try rows.next() { if r != [""] { records.append((r, offset + rows.line, nil)) } }
                return records
            } catch {
                let line = offset + rows.line
                records.append(([], line, "a quoted field is never closed"))
                let all = lines ?? text.split(separator: "\n", omittingEmptySubsequences: false)
                lines = all
                guard line < all.count else { return records }
                rest = all[line...].joined(separator: "\n")
                offset = line
            }
        }
    }

    /// One output line through `CSVField`: the table's own columns are text (a cell a spreadsheet
    /// would take for a formula gets its single quote), except a reverse batch's lon/lat columns,
    /// and the appended `confidence`, `lon`, `lat` and `distance_m`, which hold numbers.
    static func csvLine(_ fields: [String], kinds: [CSVField.Kind] = []) -> String {
        CSVField.record(fields, kinds: kinds) + "\n"
    }

    /// The kind of each output column: `width` columns of the table (those in `numeric` hold
    /// numbers), then `batchColumns` (and `distance_m`).
    static func outputKinds(width: Int, numeric: Set<Int>, reverse: Bool) -> [CSVField.Kind] {
        (0..<width).map { numeric.contains($0) ? .number : .text }
            + batchColumns.map { ["confidence", "lon", "lat"].contains($0) ? .number : .text }
            + (reverse ? [.number] : [])
    }
}
