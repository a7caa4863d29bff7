import GeoCore
import Testing
@testable import TwinStore

/// The canonical property text (sorted keys, no whitespace) is stored and hashed: its bytes
/// must never change, or content hashes of stored versions stop matching.
@Suite("Canonical JSON text of properties")
struct CanonicalJSONTests {
    @Test
    func anEmptyObjectIsTwoBraces() {
        #expect(CanonicalJSON.text([String: JSONValue]()) == "{}")
    }

    @Test
    func keysAreSortedAndNothingIsSpaced() {
        let text = CanonicalJSON.text(["楼层": .integer(3), "b": .array([.null, .bool(true), .bool(false)]), "a": .object(["z": .string("z"), "y": .number(0.5)])])
        #expect(text == #"{"a":{"y":0.5,"z":"z"},"b":[null,true,false],"楼层":3}"#)
    }

    @Test
    func numbersKeepTheirKind() {
        #expect(CanonicalJSON.text(.integer(0)) == "0")
        #expect(CanonicalJSON.text(.integer(-42)) == "-42")
        #expect(CanonicalJSON.text(.integer(.min)) == "-9223372036854775808")
        #expect(CanonicalJSON.text(.integer(.max)) == "9223372036854775807")
        #expect(CanonicalJSON.text(.number(600)) == "600.0")
        #expect(CanonicalJSON.text(.number(-0.25)) == "-0.25")
        #expect(CanonicalJSON.text(.number(1e20)) == "1e+20")
        #expect(CanonicalJSON.text(.number(.nan)) == "null")
        #expect(CanonicalJSON.text(.number(-.infinity)) == "null")
    }

    @Test
    func textIsEscapedAsJSONRequiresAndNothingMore() {
        #expect(CanonicalJSON.text(.string("邾城街道 \"一号\"\\路\n\t\r")) == #""邾城街道 \"一号\"\\路\n\t\r""#)
        #expect(CanonicalJSON.text(.string("a\u{1}b\u{1F}c/é")) == #""a\u0001b\u001fc/é""#)
    }

    @Test
    func theWriterNoticesNULInKeysAndText() {
        var clean = CanonicalJSON.Writer()
        clean.writeObject(["name": .string("鄂州")])
        #expect(!clean.containsNUL)
        var inText = CanonicalJSON.Writer()
        inText.writeObject(["name": .array([.string("a\u{0}b")])])
        #expect(inText.containsNUL)
        #expect(inText.text == #"{"name":["a\u0000b"]}"#)
        var inKey = CanonicalJSON.Writer()
        inKey.writeObject(["na\u{0}me": .null])
        #expect(inKey.containsNUL)
    }
}
