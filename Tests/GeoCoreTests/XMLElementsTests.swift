import Foundation
import GeoCore
import Testing

/// The one XML reader: elements and attributes in document order, a malformed document refused.
@Suite("XML elements")
struct XMLElementsTests {
    @Test("elements open and close in document order with their attributes; entities are decoded")
    func order() throws {
        var events: [String] = []
        let xml = #"<net><edge id="a&amp;b"><lane index="0" length="12.5"/></edge><edge id='c'/></net>"#
        try XMLElements.read(Data(xml.utf8), start: { name, a in events.append("+\(name)\(a["id"].map { "#\($0)" } ?? "")\(a["length"].map { "@\($0)" } ?? "")") },
                             end: { events.append("-\($0)") })
        #expect(events == ["+net", "+edge#a&b", "+lane@12.5", "-lane", "-edge", "+edge#c", "-edge", "-net"])
    }

    @Test("a document that is not well-formed is refused with the parser's reason")
    func malformed() {
        let error = #expect(throws: XMLElements.Malformed.self) { try XMLElements.read(Data("<net><edge></net></edge>".utf8), start: { _, _ in }) }
        #expect(error?.reason.isEmpty == false)
    }
}
