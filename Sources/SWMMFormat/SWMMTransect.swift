import Foundation

/// A natural channel cross-section from `[TRANSECTS]` (HEC-2 layout: NC, X1 and GR lines), in file
/// length units as written; `points(unit:)` applies the X1 line's station multiplier and elevation
/// offset as SWMM 5.2 does.
public struct SWMMTransect: Sendable, Equatable {
    public var name: String
    /// Manning's n of the left overbank, right overbank and main channel (an NC line's 0 keeps the
    /// previous transect's value; an overbank never given takes the channel's).
    public var leftN: Double, rightN: Double, channelN: Double
    /// Stations where the left overbank ends and the right overbank begins (before the multiplier).
    public var leftBank: Double, rightBank: Double
    /// Main channel length over flood-plain length (the meander modifier; 1 when not given).
    public var meander: Double
    /// The X1 line's station multiplier (1 when not given) and elevation offset.
    public var stationFactor: Double, elevationOffset: Double
    /// Station distances and elevations of the GR points, as written.
    public var stations: [Double], elevations: [Double]

    public init(name: String, leftN: Double, rightN: Double, channelN: Double, leftBank: Double, rightBank: Double,
                meander: Double = 1, stationFactor: Double = 1, elevationOffset: Double = 0, stations: [Double], elevations: [Double]) {
        self.name = name; self.leftN = leftN; self.rightN = rightN; self.channelN = channelN
        self.leftBank = leftBank; self.rightBank = rightBank; self.meander = meander
        self.stationFactor = stationFactor; self.elevationOffset = elevationOffset
        self.stations = stations; self.elevations = elevations
    }

    /// Stations, elevations and bank stations divided by `unit` (SWMM's UCF(LENGTH): 1 for US
    /// files, 0.3048 for SI ones, giving feet), the multiplier and offset applied in SWMM's order of
    /// operations: a station is (x · factor) / unit but a bank (x / unit) · factor, so where they
    /// differ in the last bit SWMM's bank-station comparisons do too, and the transect's tables
    /// with them.
    public func points(unit: Double) -> (stations: [Double], elevations: [Double], leftBank: Double, rightBank: Double) {
        (stations.map { $0 * stationFactor / unit }, elevations.map { ($0 + elevationOffset) / unit },
         leftBank / unit * stationFactor, rightBank / unit * stationFactor)
    }
}

extension SWMMModel {
    /// The transects of `[TRANSECTS]`, checked as SWMM 5.2's transect.c checks them.
    /// - Throws: `SWMMInputError` naming the transect for a line SWMM rejects (unknown keyword,
    ///   missing or unreadable numbers, negative n, stations out of order) and for a transect it
    ///   cannot build (fewer than 2 stations, no channel n, left bank beyond right bank, no depth).
    public func transects() throws -> [SWMMTransect] {
        guard let raw = rawSections.first(where: { $0.name == "TRANSECTS" }) else { return [] }
        var out: [SWMMTransect] = []
        var nLeft = 0.0, nRight = 0.0, nChannel = 0.0
        var current: SWMMTransect?
        var factor = 1.0, offset = 0.0
        func fail(_ field: String, _ reason: String) -> SWMMInputError {
            SWMMInputError(line: nil, section: "TRANSECTS", field: field, reason: reason)
        }
        func number(_ token: String, _ field: String) throws -> Double {
            guard let v = Double(token), v.isFinite else {
                throw fail(field, "transect \(current?.name ?? "?"): \(token) is not a number")
            }
            return v
        }
        func finish() throws {
            guard let t = current else { return }
            let name = t.name
            guard t.stations.count >= 2 else { throw fail("GR", "transect \(name) has fewer than 2 stations") }
            guard t.stations.count < 1500 else { throw fail("GR", "transect \(name) has more than 1,499 stations") }
            guard t.channelN > 0 else { throw fail("NC", "transect \(name) has no main channel Manning's n") }
            guard t.leftBank * t.stationFactor <= t.rightBank * t.stationFactor else {
                throw fail("X1", "transect \(name): the left bank station \(t.leftBank) is beyond the right bank station \(t.rightBank)")
            }
            guard let lo = t.elevations.min(), let hi = t.elevations.max(), lo < hi else {
                throw fail("GR", "transect \(name) has no depth (every station at one elevation)")
            }
            out.append(t)
            current = nil
            // SWMM leaves its channel n scaled by the meander factor for an NC line that gives none.
            nChannel *= t.meander.squareRoot()
        }
        for tokens in raw.lines where !tokens.isEmpty {
            switch tokens[0].uppercased() {
            case "NC":
                try finish()
                guard tokens.count >= 4 else { throw fail("NC", "an NC line needs the left, right and channel Manning's n") }
                let n = try tokens[1...3].map { try number($0, "NC") }
                guard n.allSatisfy({ $0 >= 0 }) else { throw fail("NC", "Manning's n \(n) must not be negative") }
                if n[0] > 0 { nLeft = n[0] }
                if n[1] > 0 { nRight = n[1] }
                if n[2] > 0 { nChannel = n[2] }
                if nLeft == 0 { nLeft = nChannel }
                if nRight == 0 { nRight = nChannel }
            case "X1":
                try finish()
                guard tokens.count >= 10 else {
                    throw fail("X1", "an X1 line needs the name, station count, bank stations, 2 unused fields, meander, station and elevation modifiers")
                }
                let x = try tokens[2...9].map { try number($0, "X1") }
                factor = x[6] == 0 ? 1 : x[6]
                offset = x[7]
                current = SWMMTransect(name: tokens[1], leftN: nLeft, rightN: nRight, channelN: nChannel,
                                       leftBank: x[1], rightBank: x[2], meander: x[5] == 0 ? 1 : x[5],
                                       stationFactor: factor, elevationOffset: offset, stations: [], elevations: [])
            case "GR":
                guard current != nil else { throw fail("GR", "a GR line before any X1 line") }
                guard tokens.count % 2 == 1 else { throw fail("GR", "transect \(current?.name ?? ""): GR values come in elevation–station pairs") }
                for i in stride(from: 1, to: tokens.count, by: 2) {
                    let y = try number(tokens[i], "GR"), s = try number(tokens[i + 1], "GR")
                    if let last = current?.stations.last, s * factor < last * factor {
                        throw fail("GR", "transect \(current?.name ?? ""): station \(tokens[i + 1]) comes after station \(last) (stations must not decrease)")
                    }
                    current?.stations.append(s)
                    current?.elevations.append(y)
                }
            default:
                throw fail("Keyword", "unknown transect keyword \(tokens[0]) (NC, X1 or GR)")
            }
        }
        try finish()
        return out
    }
}
