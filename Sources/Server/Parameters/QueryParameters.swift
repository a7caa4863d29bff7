import Foundation
import Hummingbird

/// The query string of a request, decoded once (`+` is a space, then percent-decoding).
/// A parameter given twice is rejected: OGC parameters are single-valued.
struct QueryParameters: Sendable {
    /// Parameters in request order.
    let pairs: [(name: String, value: String)]
    private let byName: [String: String]

    /// - Parameter query: the raw query string (`request.uri.query`).
    init(_ query: String?) throws {
        var pairs: [(String, String)] = []
        var byName: [String: String] = [:]
        for item in (query ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let kv = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ s: Substring) throws -> String {
                let spaced = s.replacingOccurrences(of: "+", with: " ")
                guard let text = spaced.removingPercentEncoding else {
                    throw Problem(.invalidParameter, "the query string has a malformed percent-encoding in '\(s)'")
                }
                return text
            }
            let name = try decode(kv[0])
            let value = kv.count > 1 ? try decode(kv[1]) : ""
            guard byName[name] == nil else { throw Problem.invalid(name, "given more than once") }
            byName[name] = value
            pairs.append((name, value))
        }
        self.pairs = pairs
        self.byName = byName
    }

    subscript(name: String) -> String? { byName[name] }

    /// Throws `unknown-parameter` naming the first parameter the operation does not declare.
    func requireDeclared(_ declared: Set<String>) throws {
        for (name, _) in pairs where !declared.contains(name) {
            throw Problem(.unknownParameter,
                          "parameter '\(name)' is not supported here; supported: \(declared.sorted().joined(separator: ", "))",
                          parameter: name)
        }
    }

    /// The query string with `changes` applied (nil removes a parameter), for links.
    func encoded(replacing changes: [String: String?] = [:]) -> String {
        var out: [(String, String)] = pairs.filter { changes[$0.name] == nil }
        for (name, value) in changes.sorted(by: { $0.key < $1.key }) {
            if let value { out.append((name, value)) }
        }
        guard !out.isEmpty else { return "" }
        return "?" + out.map { Self.escape($0.0) + "=" + Self.escape($0.1) }.joined(separator: "&")
    }

    private static let unreserved = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~,:")

    static func escape(_ s: String) -> String {
        s.addingPercentEncoding(withAllowedCharacters: unreserved) ?? s
    }
}
