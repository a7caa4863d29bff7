import Foundation
import Hummingbird

/// The encoding of a response: chosen by `f` when present, else by the `Accept` header
/// (HTML only when the client prefers `text/html` over every JSON type, as browsers do).
enum OutputFormat: String, Sendable, CaseIterable {
    case json, html

    /// - Throws: `invalid-parameter` naming `f` for a value other than `json` or `html`.
    static func negotiate(_ query: QueryParameters, _ request: Request) throws -> OutputFormat {
        if let f = query["f"] {
            guard let format = OutputFormat(rawValue: f.lowercased()) else {
                throw Problem.invalid("f", "'\(f)' is not one of json, html")
            }
            return format
        }
        guard let accept = request.headers[.accept] else { return .json }
        var html = 0.0, json = 0.0
        for (i, item) in accept.split(separator: ",").enumerated() {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let type = parts.first else { continue }
            var q = 1.0
            for p in parts.dropFirst() where p.hasPrefix("q=") { q = Double(p.dropFirst(2)) ?? 0 }
            // Earlier entries win ties.
            let weight = q - Double(i) * 1e-6
            if type == "text/html" || type == "application/xhtml+xml" {
                html = max(html, weight)
            } else if type == "application/json" || type == "application/geo+json" || type.hasSuffix("+json") {
                json = max(json, weight)
            }
        }
        return html > 0 && html > json ? .html : .json
    }
}
