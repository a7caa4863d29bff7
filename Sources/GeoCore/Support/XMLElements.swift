import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// THE XML reader of the project: Foundation's streaming `XMLParser` (libxml2), element by
/// element, without building a tree (SUMO's networks and trip outputs run to many megabytes).
/// Callers keep what they need from each element's attributes.
public enum XMLElements {
    /// A document that is not well-formed XML: the parser's reason.
    public struct Malformed: Error, Sendable, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
    }

    /// Calls `start` with each element's name and attributes in document order, `text` with the
    /// character data (CDATA too) between tags, in pieces as the parser finds them, and `end`
    /// with each element's name as it closes. Names are as written (`fes:Filter`): prefixes are
    /// not resolved.
    /// - Throws: `Malformed` when the document is not well-formed.
    public static func read(_ data: Data, start: @escaping (_ name: String, _ attributes: [String: String]) -> Void,
                            end: @escaping (_ name: String) -> Void = { _ in },
                            text: @escaping (_ characters: String) -> Void = { _ in }) throws(Malformed) {
        let parser = XMLParser(data: data)
        let reader = Reader(start: start, end: end, text: text)
        parser.delegate = reader
        guard parser.parse() else {
            throw Malformed(reason: parser.parserError.map { "\($0)" } ?? "malformed XML")
        }
    }

    private final class Reader: NSObject, XMLParserDelegate {
        let start: (String, [String: String]) -> Void
        let end: (String) -> Void
        let text: (String) -> Void

        init(start: @escaping (String, [String: String]) -> Void, end: @escaping (String) -> Void, text: @escaping (String) -> Void) {
            self.start = start
            self.end = end
            self.text = text
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            text(string)
        }

        func parser(_ parser: XMLParser, foundCDATA block: Data) {
            text(String(decoding: block, as: UTF8.self))
        }

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            start(name, attributes)
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            end(name)
        }
    }
}
