import GeoCore
import Testing

/// The one non-cryptographic hash and the one markup escaping the modules share.
@Suite("FNV-1a and markup escaping")
struct HashAndEscapingTests {
    @Test("FNV-1a 64 gives the reference vectors (Noll's test suite)")
    func fnvVectors() {
        #expect(FNV1a.hash("") == 0xcbf2_9ce4_8422_2325)
        #expect(FNV1a.hash("a") == 0xaf63_dc4c_8601_ec8c)
        #expect(FNV1a.hash("foobar") == 0x8594_4171_f739_67e8)
        #expect(FNV1a.hex("a".utf8) == "af63dc4c8601ec8c")
        #expect(FNV1a.hex([UInt8]()) == "cbf29ce484222325")
    }

    @Test("markup escaping turns &, <, >, \" and ' into entities and leaves the rest (Chinese included)")
    func escaping() {
        #expect(MarkupEscaping.escape(#"A&B <x> "q" 'r' 路口"#) == "A&amp;B &lt;x&gt; &quot;q&quot; &#39;r&#39; 路口")
        #expect(MarkupEscaping.escape("plain") == "plain")
    }
}
