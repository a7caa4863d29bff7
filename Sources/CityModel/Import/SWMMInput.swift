import Foundation
import GeoCore

/// An EPA SWMM 5 input file (`.inp`) read as a drainage network for the CIM layers:
/// `[JUNCTIONS]` → drainage_manholes, `[OUTFALLS]` → drainage_outfalls, `[STORAGE]` →
/// drainage_storage, `[CONDUITS]` + `[XSECTIONS]` + `[VERTICES]` → drainage_pipes, `[PUMPS]` →
/// drainage_pumps, `[SUBCATCHMENTS]` + `[POLYGONS]` → subcatchments, with node
/// positions from `[COORDINATES]`.
///
/// US-unit models (`FLOW_UNITS` CFS, GPM, MGD) are converted to metres and hectares. Coordinates
/// are in a projected CRS (default EPSG:4547), or in local metres placed at `origin`. Errors name
/// the line (`line 12`, counting physical lines from 1) and the column.
public struct SWMMInput {
    /// One data line of a section: its line number and whitespace-separated tokens.
    struct Line {
        var number: Int
        var tokens: [String]
        var location: String { "line \(number)" }
    }

    public let file: URL
    private(set) var sections: [String: [Line]] = [:]

    /// Sections the importer reads.
    static let read: Set<String> = ["OPTIONS", "JUNCTIONS", "OUTFALLS", "STORAGE", "CONDUITS", "XSECTIONS", "COORDINATES",
                                    "VERTICES", "SUBCATCHMENTS", "POLYGONS", "PUMPS"]
    /// Other SWMM 5.2 sections: valid, not imported.
    static let known: Set<String> = read.union([
        "TITLE", "EVAPORATION", "TEMPERATURE", "ADJUSTMENTS", "RAINGAGES", "INFILTRATION", "LID_CONTROLS", "LID_USAGE",
        "SUBAREAS", "AQUIFERS", "GROUNDWATER", "GWF", "SNOWPACKS", "DIVIDERS", "ORIFICES", "WEIRS", "OUTLETS", "TRANSECTS",
        "STREETS", "INLETS", "INLET_USAGE", "LOSSES", "CONTROLS", "POLLUTANTS", "LANDUSES", "COVERAGES", "LOADINGS",
        "BUILDUP", "WASHOFF", "TREATMENT", "INFLOWS", "DWF", "RDII", "HYDROGRAPHS", "CURVES", "TIMESERIES", "PATTERNS",
        "REPORT", "TAGS", "MAP", "SYMBOLS", "LABELS", "BACKDROP", "FILES", "EVENTS", "PROFILES",
    ])

    /// Parses `file`.
    /// - Throws: `ImportError` naming the line of an unknown section or of data before any section.
    public init(file: URL) throws {
        self.file = file
        let name = file.lastPathComponent
        let data: Data
        do { data = try Data(contentsOf: file) } catch {
            throw ImportError(.unreadable, file: name, "cannot read the file: \(error.localizedDescription)")
        }
        let text = TextEncoding.utf8.decode(data) ?? TextEncoding.gb18030.decode(data) ?? String(decoding: data, as: UTF8.self)
        var current: String?
        var number = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            var line = Substring(raw)
            if let semi = line.firstIndex(of: ";") { line = line[..<semi] }
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty { continue }
            if trimmed.hasPrefix("[") {
                guard trimmed.hasSuffix("]") else {
                    throw ImportError(.malformed, file: name, location: "line \(number)", "a section header must end with ]")
                }
                let section = trimmed.dropFirst().dropLast().trimmingCharacters(in: .whitespaces).uppercased()
                guard Self.known.contains(section) else {
                    throw ImportError(.malformed, file: name, location: "line \(number)", field: section,
                                      "unknown section [\(section)]")
                }
                current = section
                continue
            }
            guard let current else {
                throw ImportError(.malformed, file: name, location: "line \(number)", "data before the first [SECTION] header")
            }
            guard Self.read.contains(current) else { continue }
            sections[current, default: []].append(Line(number: number, tokens: trimmed.split(whereSeparator: \.isWhitespace).map(String.init)))
        }
    }

    func lines(_ section: String) -> [Line] { sections[section] ?? [] }

    /// The `[OPTIONS]` value of `key`.
    func option(_ key: String) -> String? {
        lines("OPTIONS").first { $0.tokens.first?.uppercased() == key }.flatMap { $0.tokens.count > 1 ? $0.tokens[1] : nil }
    }

    /// Whether lengths are in feet and areas in acres (`FLOW_UNITS` CFS, GPM or MGD).
    var usesUSUnits: Bool { ["CFS", "GPM", "MGD"].contains(option("FLOW_UNITS")?.uppercased() ?? "CMS") }

    func token(_ line: Line, _ i: Int, _ column: String) throws -> String {
        guard i < line.tokens.count else {
            throw ImportError(.malformed, file: file.lastPathComponent, location: line.location, field: column, "the \(column) column is missing")
        }
        return line.tokens[i]
    }

    func number(_ line: Line, _ i: Int, _ column: String) throws -> Double {
        let t = try token(line, i, column)
        guard let d = Double(t), d.isFinite else {
            throw ImportError(.invalidValue, file: file.lastPathComponent, location: line.location, field: column, "\"\(t)\" is not a number")
        }
        return d
    }
}
