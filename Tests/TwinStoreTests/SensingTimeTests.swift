import Foundation
import GeoCore
import Testing
@testable import QueryLanguage

/// `SensingTime.format`'s integer path against the general formatter (through `Date`) it
/// replaced on the read path: the same bytes wherever that one is exact, and exact everywhere.
@Suite("SensorThings time formatting")
struct SensingTimeTests {
    static let second: Int64 = 1_000_000
    static let day: Int64 = 86_400 * second

    static func microseconds(_ text: String) throws -> Int64 { try #require(SensingTime.instant(text)) }

    /// The general formatter on the whole second (exact there: a `Double` holds whole seconds of any
    /// four-digit year) with the microseconds spliced in: an oracle for the whole range.
    static func oracle(_ t: Int64) -> String {
        var secs = t / second, frac = t % second
        if frac < 0 { frac += second; secs -= 1 }
        let whole = SensingTime.formatGeneral(secs * second)
        guard frac != 0 else { return whole }
        let digits = String(frac)
        return String(whole.dropLast()) + "." + String(repeating: "0", count: 6 - digits.count) + digits + "Z"
    }

    @Test("random instants from 1899 to 2040 format byte for byte as the general formatter does")
    func randomInstantsAgainstGeneral() {
        var g = SplitMix64(seed: 0x5EED_2026)
        var mismatches = [Int64]()
        for i in 0..<100_000 {
            let t: Int64 = switch i % 3 {
            case 0: Int64.random(in: -(1 << 51)..<(1 << 51), using: &g)                                         // sub-second
            case 1: Int64.random(in: -(1 << 51) / Self.second..<(1 << 51) / Self.second, using: &g) * Self.second  // whole seconds
            default: Int64.random(in: -3...3, using: &g) + Int64.random(in: -26_000...26_000, using: &g) * Self.day  // around midnight
            }
            if SensingTime.format(t) != SensingTime.formatGeneral(t) { mismatches.append(t) }
        }
        #expect(mismatches.isEmpty, "first mismatches: \(mismatches.prefix(5).map { ($0, SensingTime.format($0), SensingTime.formatGeneral($0)) })")
    }

    @Test("random instants of any four-digit year format exactly, whole seconds as the general formatter does")
    func randomInstantsWholeRange() {
        var g = SplitMix64(seed: 0x1A2B_3C4D)
        var mismatches = [Int64]()
        for i in 0..<100_000 {
            let t: Int64 = i % 2 == 0
                ? Int64.random(in: SensingTime.fastLow..<SensingTime.fastHigh, using: &g)
                : Int64.random(in: SensingTime.fastLow / Self.second..<SensingTime.fastHigh / Self.second, using: &g) * Self.second
            let ok = SensingTime.format(t) == Self.oracle(t) && (t % Self.second != 0 || SensingTime.format(t) == SensingTime.formatGeneral(t))
            if !ok { mismatches.append(t) }
        }
        #expect(mismatches.isEmpty, "first mismatches: \(mismatches.prefix(5).map { ($0, SensingTime.format($0), Self.oracle($0)) })")
    }

    @Test("leap days, century years, pre-1970 and sub-second instants", arguments: [
        "2024-02-29T23:59:59.999999Z", "2000-02-29T00:00:00Z", "1900-02-28T23:59:59Z", "1900-03-01T00:00:00Z",
        "2100-02-28T12:00:00.5Z", "2100-03-01T00:00:00Z", "1970-01-01T00:00:00Z", "1969-12-31T23:59:59.999999Z",
        "1969-12-31T00:00:00.000001Z", "1700-01-01T00:00:00Z", "2026-12-31T23:59:59.000100Z", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z",
    ])
    func knownInstants(_ text: String) throws {
        let t = try Self.microseconds(text)
        #expect(SensingTime.format(t) == SensingTime.formatGeneral(t))
        #expect(SensingTime.format(t) == text.replacingOccurrences(of: ".5Z", with: ".500000Z"))
        #expect(SensingTime.instant(SensingTime.format(t)) == t, "what is written reads back")
    }

    @Test("outside the integer path the general formatter answers")
    func outsideRange() {
        for t in [SensingTime.fastHigh, SensingTime.fastHigh + 86_400 * Self.second, SensingTime.fastLow - 1, SensingTime.fastLow - Self.day] {
            #expect(SensingTime.format(t) == SensingTime.formatGeneral(t))
        }
        #expect(SensingTime.format(SensingTime.fastHigh - 1) == "9999-12-31T23:59:59.999999Z")
        #expect(SensingTime.format(SensingTime.fastLow) == "0000-01-01T00:00:00Z")
    }
}
