@testable import FloodSim
import Foundation
@testable import SWMMFormat
import Testing

/// Malformed `.inp` text gives a `SWMMInputError` naming the line, section and field; never a crash.
@Suite("SWMM .inp reader errors")
struct SWMMInputErrorTests {
    static let valid = """
    [JUNCTIONS]
    J1  10  3
    J2  9   3
    [OUTFALLS]
    O1  8  FREE  NO
    [CONDUITS]
    C1  J1  J2  100  0.013
    C2  J2  O1  100  0.013
    [XSECTIONS]
    C1  CIRCULAR  1  0  0  0  1
    C2  CIRCULAR  1  0  0  0  1
    """

    func expectError(_ text: String, line: Int?, section: String?, field: String?, mentioning word: String,
                     sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try SWMMModel(parsing: text)
            Issue.record("no error for malformed input", sourceLocation: sourceLocation)
        } catch let e as SWMMInputError {
            #expect(e.line == line, "\(e)", sourceLocation: sourceLocation)
            #expect(e.section == section, "\(e)", sourceLocation: sourceLocation)
            #expect(e.field == field, "\(e)", sourceLocation: sourceLocation)
            #expect(e.description.contains(word), "\(e)", sourceLocation: sourceLocation)
            if let line { #expect(e.description.hasPrefix("line \(line)"), sourceLocation: sourceLocation) }
        } catch {
            Issue.record("unexpected error type \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("the valid base model reads")
    func baseIsValid() throws {
        #expect(try SWMMModel(parsing: Self.valid).conduits.count == 2)
    }

    @Test("an unknown section names its line")
    func unknownSection() {
        expectError(Self.valid + "\n[PIPES]\nP1 1 2", line: 12, section: "PIPES", field: nil, mentioning: "unknown section")
    }

    @Test("data before any section")
    func dataBeforeSection() {
        expectError("J1 10 3\n" + Self.valid, line: 1, section: nil, field: nil, mentioning: "before the first")
    }

    @Test("a conduit naming a missing node")
    func missingNode() {
        expectError(Self.valid.replacingOccurrences(of: "C2  J2  O1", with: "C2  J2  O9"), line: 8, section: "CONDUITS",
                    field: "ToNode", mentioning: "O9")
    }

    @Test("zero and negative conduit lengths")
    func badLength() {
        expectError(Self.valid.replacingOccurrences(of: "C1  J1  J2  100", with: "C1  J1  J2  0"), line: 7, section: "CONDUITS",
                    field: "Length", mentioning: "positive")
        expectError(Self.valid.replacingOccurrences(of: "C1  J1  J2  100", with: "C1  J1  J2  -5"), line: 7, section: "CONDUITS",
                    field: "Length", mentioning: "positive")
    }

    @Test("a non-numeric field")
    func nonNumeric() {
        expectError(Self.valid.replacingOccurrences(of: "J2  9   3", with: "J2  nine   3"), line: 3, section: "JUNCTIONS",
                    field: "Elevation", mentioning: "not a number")
        expectError(Self.valid.replacingOccurrences(of: "J2  9   3", with: "J2  inf   3"), line: 3, section: "JUNCTIONS",
                    field: "Elevation", mentioning: "not a number")
    }

    @Test("a conduit without a cross section")
    func missingCrossSection() {
        expectError(Self.valid.replacingOccurrences(of: "C2  CIRCULAR  1  0  0  0  1", with: ""), line: 8, section: "CONDUITS",
                    field: "Name", mentioning: "XSECTIONS")
    }

    @Test("a node that cannot reach an outfall is named")
    func unreachable() {
        expectError(Self.valid.replacingOccurrences(of: "J2  9   3", with: "J2  9   3\nJ3  9   3"), line: 4, section: "JUNCTIONS",
                    field: "Name", mentioning: "J3")
    }

    @Test("too few fields, a bad keyword, a duplicate name")
    func structure() {
        expectError(Self.valid.replacingOccurrences(of: "C1  J1  J2  100  0.013", with: "C1  J1  J2  100"), line: 7, section: "CONDUITS",
                    field: "Roughness", mentioning: "at least 5")
        expectError(Self.valid.replacingOccurrences(of: "O1  8  FREE", with: "O1  8  SOMETIMES"), line: 5, section: "OUTFALLS",
                    field: "Type", mentioning: "SOMETIMES")
        expectError(Self.valid.replacingOccurrences(of: "J2  9   3", with: "J1  9   3"), line: 3, section: "JUNCTIONS",
                    field: "Name", mentioning: "twice")
    }

    @Test("a missing file is an error, not a crash")
    func missingFile() {
        #expect(throws: SWMMInputError.self) { try SWMMModel(contentsOf: URL(fileURLWithPath: "/nonexistent/model.inp")) }
    }
}
