import FloodSim
import Foundation
import SWMMFormat
import Testing

@Suite("Storm intensity formula")
struct RainfallStormIntensityTests {
    @Test("Wuhan manual formula: 224 L/(s·hm²) at P = 1 a and 294 at P = 3 a, t = 10 min (flood.md §2.2)")
    func wuhan() {
        let f = StormIntensityFormula.wuhanManual
        #expect(abs(f.intensity(returnPeriod: 1, duration: 10) - 224) < 0.5)
        #expect(abs(f.intensity(returnPeriod: 3, duration: 10) - 294) < 0.5)
    }

    @Test("Suzhou 2025 check case: q(P = 5 a, t = 10 min) = 404.8 L/(s·hm²) (flood.md §2.4)")
    func suzhou() {
        let f = StormIntensityFormula(a1: 17.969, c: 1.24, b: 18.415, n: 0.785)
        #expect(abs(f.intensity(returnPeriod: 5, duration: 10) - 404.8) < 0.1)
    }
}

/// The parameter sets in `Models/storm-intensity.json` reproduce their own check values, and the
/// generator's built-in Wuhan formula is that file's `wuhan-manual` entry.
@Suite struct StormIntensityCatalogTests {
    /// `Models/` at the package root, found from this file's path (Tests/FloodSimTests/…).
    static let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Models/storm-intensity.json")

    @Test func everySetReproducesItsCheckValues() throws {
        let catalog = try StormIntensityFormula.catalog(at: Self.url)
        #expect(catalog.count >= 2)
        for entry in catalog.values {
            #expect(!entry.checks.isEmpty, "\(entry.id) has no check values")
            for check in entry.checks {
                let q = entry.formula.intensity(returnPeriod: check.returnPeriod, duration: check.duration)
                #expect(abs(q - check.q) < 0.5, "\(entry.id): q(P=\(check.returnPeriod), t=\(check.duration)) = \(q), expected \(check.q)")
            }
        }
    }

    @Test func theGeneratorsWuhanFormulaIsTheModelsEntry() throws {
        let entry = try #require(try StormIntensityFormula.catalog(at: Self.url)["wuhan-manual"])
        let built = StormIntensityFormula.wuhanManual
        #expect(abs(entry.formula.a1 - built.a1) < 1e-12 && entry.formula.c == built.c
                && entry.formula.b == built.b && entry.formula.n == built.n)
        #expect(entry.verified == false)
    }
}
