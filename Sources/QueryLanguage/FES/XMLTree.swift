import Foundation
import GeoCore

/// A small XML document as a tree, read through the project's one XML reader (`XMLElements`):
/// what a FES filter or a GML geometry of a few kilobytes needs. Names are local (`fes:Filter`
/// is `Filter`; FES 2.0 and GML 3.2 use no two namespaces with clashing local names), attribute
/// names too (`gml:id` is `id`).
struct XMLTree: Sendable {
    var name: String
    /// The name as written, prefix included, for messages.
    var qualifiedName: String
    var attributes: [String: String]
    var children: [XMLTree]
    /// The element's own character data, whitespace at both ends removed.
    var text: String

    /// The deepest nesting read; deeper documents are refused, not recursed into.
    static let maximumDepth = 64

    static func localName(_ name: String) -> String {
        name.lastIndex(of: ":").map { String(name[name.index(after: $0)...]) } ?? name
    }

    /// Parses a whole document into its root element.
    /// - Throws: `FESError.malformed` when the text is not well-formed XML or nests too deep.
    static func parse(_ data: Data) throws -> XMLTree {
        var stack: [XMLTree] = []
        var texts: [String] = []
        var root: XMLTree?
        var tooDeep = false
        do {
            try XMLElements.read(data, start: { name, attributes in
                var local: [String: String] = [:]
                for (k, v) in attributes where !k.hasPrefix("xmlns") { local[localName(k)] = v }
                stack.append(XMLTree(name: localName(name), qualifiedName: name, attributes: local, children: [], text: ""))
                texts.append("")
                if stack.count > maximumDepth { tooDeep = true }
            }, end: { _ in
                guard var node = stack.popLast(), let text = texts.popLast() else { return }
                node.text = text.trimmingCharacters(in: .whitespacesAndNewlines)
                if stack.isEmpty { root = node } else { stack[stack.count - 1].children.append(node) }
            }, text: { characters in
                if !texts.isEmpty { texts[texts.count - 1] += characters }
            })
        } catch {
            throw FESError(.malformed, "the filter is not well-formed XML: \(error.reason)")
        }
        guard !tooDeep else { throw FESError(.malformed, "the filter nests deeper than \(maximumDepth) elements") }
        guard let root else { throw FESError(.malformed, "the filter is empty") }
        return root
    }

    /// The child elements with this local name.
    func children(named name: String) -> [XMLTree] { children.filter { $0.name == name } }

    func child(named name: String) -> XMLTree? { children.first { $0.name == name } }
}

/// A FES 2.0 filter (or a GML geometry in it) that cannot be used. `unsupported` names an
/// operator or construct CityTwin does not evaluate (WFS `OperationNotSupported`); `malformed`
/// is input at fault (`InvalidParameterValue`).
public struct FESError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable { case malformed, unsupported }
    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
