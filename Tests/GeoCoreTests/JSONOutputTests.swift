import Foundation
import GeoCore
import Testing

/// The JSON output settings, one per purpose: the bytes each writes.
@Suite("JSON output: one configuration per purpose")
struct JSONOutputTests {
    static let document: JSONValue = ["b": "a/b", "a": [1, 2]]

    @Test("pretty (the CLI), canonical (stored and signed text), result files and plain write what they always wrote")
    func bytes() throws {
        #expect(try JSONOutput.text(Self.document, .pretty) == "{\n  \"a\" : [\n    1,\n    2\n  ],\n  \"b\" : \"a/b\"\n}")
        #expect(try JSONOutput.text(Self.document, .canonical) == #"{"a":[1,2],"b":"a/b"}"#)
        #expect(try JSONOutput.text(Self.document, .resultFile) == #"{"a":[1,2],"b":"a\/b"}"#)
        let plain = try JSONOutput.text(Self.document)
        #expect(plain.contains(#""b":"a\/b""#) && plain.contains(#""a":[1,2]"#))
    }

    @Test("an Encodable value as a JSONValue and back into a type")
    func roundTrips() throws {
        struct Report: Codable, Equatable { var id: String; var delay: Double }
        let report = Report(id: "IX-1", delay: 21.5)
        #expect(try JSONOutput.value(report) == ["id": "IX-1", "delay": 21.5])
        #expect(try JSONOutput.convert(JSONOutput.value(report), to: Report.self) == report)
    }
}
