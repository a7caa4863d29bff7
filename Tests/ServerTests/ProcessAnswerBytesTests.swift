import Testing

/// The comparison ProcessAnswerRecordings relies on: only the named values are replaced, every
/// other byte is kept as sent, and a difference is reported at its first byte.
@Suite("Process answers: scrubbing named fields and finding the first differing byte")
struct ProcessAnswerBytesTests {
    static let process = "p"

    func scrub(_ text: String, _ paths: [String]) throws -> String {
        String(decoding: try ProcessAnswerBytes.scrub(Array(text.utf8), paths.map { ScrubbedField(Self.process, $0, "test") }), as: UTF8.self)
    }

    @Test("a named value is replaced whole (an object, an array element's member, a string with escapes); spacing, number spelling and the rest stay")
    func replacesOnlyNamed() throws {
        let text = #"{"a": {"t": "2026-01-01T00:00:00Z", "n": 1.50}, "l":[{"t":1e3},{"t":[1, {"t": 2}]}], "s": "x\"}", "o": {"t": {"x": 1}}}"#
        #expect(try scrub(text, ["a.t", "l.*.t", "o"]) ==
                #"{"a": {"t": "(scrubbed: a.t)", "n": 1.50}, "l":[{"t":"(scrubbed: l.*.t)"},{"t":"(scrubbed: l.*.t)"}], "s": "x\"}", "o": "(scrubbed: o)"}"#)
        #expect(try scrub(text, []) == text)
        #expect(try scrub(text, ["a.n.x", "t"]) == text, "a path that names nothing changes nothing")
    }

    @Test("a path matches a member at its own depth only; * matches any index")
    func paths() throws {
        let field = ScrubbedField("other", "t", "test")
        #expect(field.matches(["t"]) && !field.matches(["t", "u"]) && !field.matches(["u"]))
        #expect(ScrubbedField("p", "l.*.t", "test").matches(["l", "7", "t"]))
    }

    @Test("a body that is not one JSON value is refused, naming the byte")
    func malformed() throws {
        for text in [#"{"a": 1"#, #"{"a" 1}"#, #"[1, 2] 3"#, ""] {
            #expect(throws: ProcessAnswerBytes.Malformed.self, "\(text)") { _ = try scrub(text, ["a"]) }
        }
    }

    @Test("a difference names the first differing byte and shows both sides around it; equal bytes are no difference")
    func difference() {
        #expect(ProcessAnswerBytes.difference(recorded: Array("abc".utf8), answer: Array("abc".utf8)) == nil)
        let changed = ProcessAnswerBytes.difference(recorded: Array(#"{"x": 1.25}"#.utf8), answer: Array(#"{"x": 1.5}"#.utf8)) ?? ""
        #expect(changed.contains("offset 8") && changed.contains(#"recorded: …{"x": 1.⟦25}…"#) && changed.contains(#"answered: …{"x": 1.⟦5}…"#), "\(changed)")
        let longer = ProcessAnswerBytes.difference(recorded: Array("[1]".utf8), answer: Array("[1] ".utf8)) ?? ""
        #expect(longer.contains("offset 3") && longer.contains("recorded 3 bytes, answered 4"), "\(longer)")
    }
}
