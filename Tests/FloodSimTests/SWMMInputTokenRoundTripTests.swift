@testable import FloodSim
import Foundation
@testable import SWMMFormat
import Testing

/// Odd tokens the `fuzz-swmm` harness found: every model the reader accepts must write as `.inp`
/// text that reads back equal, and tokens split the way SWMM 5's `getTokens` splits them.
@Suite("SWMM .inp tokens and the write → read round trip")
struct SWMMInputTokenRoundTripTests {
    /// A junction draining through conduits C1…C3 to an outfall, with subcatchment S1 on gage G1
    /// (the reader checks the network, so sections under test need real objects to name).
    static let network = """
        [RAINGAGES]
        G1 INTENSITY 0:05 1 TIMESERIES TS
        [SUBCATCHMENTS]
        S1 G1 J1 1 50 100 1 0
        [JUNCTIONS]
        J1 10 2
        [OUTFALLS]
        O1 9 FREE
        [CONDUITS]
        C1 J1 O1 100 0.013
        C2 J1 O1 100 0.013
        C3 J1 O1 100 0.013
        [TIMESERIES]
        TS 0 1

        """

    /// Reads `text`, writes it, reads it back: the two models must be equal.
    @discardableResult
    func expectRoundTrip(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> SWMMModel {
        let model = try SWMMModel(parsing: text)
        let written = model.inpText()
        let again = try SWMMModel(parsing: written)
        #expect(again == model, "written as:\n\(written)", sourceLocation: sourceLocation)
        return model
    }

    @Test("an empty line and a comment-only line give no tokens")
    func emptyLine() {
        #expect(SWMMLine.tokenize("").isEmpty)
        #expect(SWMMLine.tokenize("  ; a comment \"quoted\"").isEmpty)
    }

    @Test("a quote opens a token only at its start; inside a token it is an ordinary character")
    func quoteInsideToken() {
        #expect(SWMMLine.tokenize("Node a\"b c\"d") == ["Node", "a\"b", "c\"d"])
        #expect(SWMMLine.tokenize("\"a b\"c \"\" \"open to the end") == ["a b", "c", "", "open to the end"])
    }

    @Test("a semicolon ends the line even inside quotes, as in SWMM")
    func semicolonInQuotes() {
        #expect(SWMMLine.tokenize("Node \"a;b\" c") == ["Node", "a"])
    }

    @Test("a combining mark after a space starts a new token instead of gluing onto the space")
    func combiningMark() {
        #expect(SWMMLine.tokenize("Node  \u{301}x") == ["Node", "\u{301}x"])
    }

    @Test("empty, tabbed and spaced quoted tokens in a kept section survive the writer")
    func quotedTokensInRawSection() throws {
        let model = try expectRoundTrip("[TAGS]\nNode \"\" \"a\tb\" \"c  d\" e\"f\n")
        #expect(model.rawSections.first?.lines == [["Node", "", "a\tb", "c  d", "e\"f"]])
    }

    @Test("a quoted first token starting with [ is written quoted, not as a section header")
    func bracketToken() throws {
        let model = try expectRoundTrip("[TAGS]\n\"[x\" y\n")
        #expect(model.rawSections.first?.lines == [["[x", "y"]])
        // Later on a line it stays bare, so a quote inside it cannot end a quoted token early.
        let later = try expectRoundTrip("[TAGS]\n\"\"[\" \"a\"[b\"\n")
        #expect(later.rawSections.first?.lines == [["", "[\"", "a", "[b\""]])
    }

    @Test("an option value holding a non-breaking space and a quote keeps its words")
    func optionWords() throws {
        let model = try expectRoundTrip("[OPTIONS]\nSTART_DATE a\u{A0}\"b  \"c\td\"\n")
        #expect(model.option("START_DATE") == "a\u{A0}\"b c d")
    }

    @Test("a curve type that upper-cases to a number is read as a number, so it cannot change on writing")
    func curveTypeUppercasingToNumber() throws {
        #expect(throws: SWMMInputError.self) { try SWMMModel(parsing: "[CURVES]\nC1 ınf 0 1\n") }
    }

    @Test("a time in decimal hours that prints with an exponent or a long minus is not taken for a date")
    func timeseriesTimes() throws {
        let tiny = try expectRoundTrip("[TIMESERIES]\nTS 0.00000000012345 1\n")
        #expect(tiny.timeseries(named: "TS")?.points.first?.hours == 1.2345e-10)
        #expect(tiny.timeseries(named: "TS")?.points.first?.date == nil)
        let negative = try expectRoundTrip("[TIMESERIES]\nTS -1e6 1\n")
        #expect(negative.timeseries(named: "TS")?.points.first?.hours == -1e6)
        let dated = try expectRoundTrip("[TIMESERIES]\nTS 2024-06-01 1:30 2.5\n")
        #expect(dated.timeseries(named: "TS")?.points.first?.date == "2024-06-01")
    }

    @Test("CRLF line ends read like LF")
    func crlf() throws {
        let model = try expectRoundTrip("[TITLE]\r\nA district\r\n[TAGS]\r\nNode J1 x\r\n")
        #expect(model.title == ["A district"])
        #expect(model.rawSections.first?.lines == [["Node", "J1", "x"]])
    }

    @Test("[INFILTRATION] before [OPTIONS] uses the file's infiltration method, as SWMM does")
    func infiltrationBeforeOptions() throws {
        let model = try expectRoundTrip("[INFILTRATION]\nS1 3.5 0.5 0.25\n[OPTIONS]\nINFILTRATION GREEN_AMPT\n" + Self.network
                                        + "[XSECTIONS]\nC1 CIRCULAR 1 0 0 0\nC2 CIRCULAR 1 0 0 0\nC3 CIRCULAR 1 0 0 0\n")
        #expect(model.infiltration.first?.parameters == .greenAmpt(suction: 3.5, conductivity: 0.5, initialDeficit: 0.25))
    }

    @Test("barrels are the 7th field for IRREGULAR and CUSTOM sections too, and a huge count is an error")
    func barrels() throws {
        let model = try expectRoundTrip(Self.network + "[XSECTIONS]\nC1 IRREGULAR T1 0 0 0 2\nC2 CUSTOM 1.5 K1 0 0 3\nC3 CIRCULAR 1 0 0 0\n")
        #expect(model.crossSections.map(\.barrels) == [2, 3, 1])
        let error = try #require(throws: SWMMInputError.self) { try SWMMModel(parsing: "[XSECTIONS]\nC1 IRREGULAR T1 0 0 0 1e300\n") }
        #expect(error.line == 2 && error.section == "XSECTIONS" && error.field == "Barrels")
    }
}
