import Foundation
import TwinStore

/// The query options of a SensorThings request (STA 1.1 §9.3): `$filter`, `$expand` (nested,
/// each with its own options after `;`), `$select`, `$orderby`, `$top`, `$skip`, `$count`,
/// `$resultFormat`. Every fault is a 400 naming the option (and the character for `$filter`).
struct STAQueryOptions: Sendable {
    var filter: SensingFilter?
    var expand: [STAExpand] = []
    var select: [String]?
    var orderBy: [(SensingFilter, descending: Bool)] = []
    var top: Int?
    var skip = 0
    var count = false
    var resultFormat: String?
    /// The options as given (for the `@iot.nextLink` of an expanded collection).
    var given: [(String, String)] = []

    /// Items per page when `$top` is not given, and the largest `$top` accepted.
    static let defaultTop = 100
    static let maximumTop = 10_000

    static let names: Set<String> = ["$filter", "$expand", "$select", "$orderby", "$top", "$skip", "$count", "$resultFormat"]

    /// From the query string of the request.
    init(query: QueryParameters) throws {
        for (name, _) in query.pairs where !Self.names.contains(name) {
            throw Problem(.unknownParameter, "parameter '\(name)' is not a SensorThings query option; supported: \(Self.names.sorted().joined(separator: ", "))",
                          parameter: name)
        }
        try self.init(pairs: query.pairs.map { ($0.name, $0.value) }, context: nil)
    }

    init() {}

    /// From `name=value` pairs; `context` is the `$expand` option they are nested in (for messages).
    init(pairs: [(String, String)], context: String?) throws {
        func fail(_ name: String, _ reason: String, position: String? = nil) -> Problem {
            let shown = context.map { "\($0) option \(name)" } ?? name
            return Problem(.invalidParameter, "parameter '\(shown)': \(reason)", parameter: context == nil ? name : "$expand", position: position)
        }
        given = pairs
        for (name, value) in pairs {
            switch name {
            case "$filter":
                do {
                    filter = try SensingFilter.parse(value)
                } catch let e as SensingFilterError {
                    let shown = context.map { "\($0) option $filter" } ?? "$filter"
                    throw Problem(.invalidFilter, "parameter '\(shown)': \(e.message) at character \(e.offset)",
                                  parameter: context == nil ? "$filter" : "$expand", position: "offset \(e.offset)")
                }
            case "$expand":
                expand = try STAExpand.parseList(value)
            case "$select":
                let names = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                guard !names.isEmpty, names.allSatisfy({ !$0.isEmpty }) else { throw fail(name, "a comma-separated list of property names") }
                select = names
            case "$orderby":
                for item in STAExpand.splitTopLevel(value, on: ",") {
                    var text = item.trimmingCharacters(in: .whitespaces)
                    var descending = false
                    let lower = text.lowercased()
                    if lower.hasSuffix(" desc") { descending = true; text = String(text.dropLast(5)) }
                    else if lower.hasSuffix(" asc") { text = String(text.dropLast(4)) }
                    do {
                        orderBy.append((try SensingFilter.parse(text), descending))
                    } catch let e as SensingFilterError {
                        throw fail(name, "\(e.message) at character \(e.offset) of '\(text)'")
                    }
                }
            case "$top":
                guard let n = Int(value), n >= 0 else { throw fail(name, "must be an integer ≥ 0") }
                top = min(n, Self.maximumTop)
            case "$skip":
                guard let n = Int(value), n >= 0 else { throw fail(name, "must be an integer ≥ 0") }
                skip = n
            case "$count":
                switch value.lowercased() {
                case "true": count = true
                case "false": count = false
                default: throw fail(name, "must be true or false")
                }
            case "$resultFormat":
                switch value.lowercased() {
                case "dataarray": resultFormat = "dataArray"
                case "csv": resultFormat = "CSV"
                default: throw fail(name, "must be dataArray or CSV")
                }
            default:
                throw fail(name, "not a query option (supported: \(Self.names.sorted().joined(separator: ", ")))")
            }
        }
    }

    var pageSize: Int { top ?? Self.defaultTop }
}

/// One item of `$expand`: a navigation path (`Datastreams/Observations` expands both) and the
/// options of its last step.
struct STAExpand: Sendable {
    var path: [String]
    var options: STAQueryOptions

    /// Parses `Datastreams($top=2;$expand=Observations($orderby=phenomenonTime desc)),Locations`.
    static func parseList(_ text: String) throws -> [STAExpand] {
        var out = [STAExpand]()
        for item in splitTopLevel(text, on: ",") {
            let trimmed = item.trimmingCharacters(in: .whitespaces)
            var name = trimmed
            var options = STAQueryOptions()
            if let open = trimmed.firstIndex(of: "(") {
                guard trimmed.hasSuffix(")") else {
                    throw Problem(.invalidParameter, "parameter '$expand': '\(trimmed)' lacks its closing ')'", parameter: "$expand")
                }
                name = String(trimmed[..<open])
                let inner = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
                var pairs = [(String, String)]()
                for option in splitTopLevel(inner, on: ";") where !option.trimmingCharacters(in: .whitespaces).isEmpty {
                    let kv = option.split(separator: "=", maxSplits: 1)
                    guard kv.count == 2 else {
                        throw Problem(.invalidParameter, "parameter '$expand': option '\(option)' of \(name) is not name=value", parameter: "$expand")
                    }
                    pairs.append((kv[0].trimmingCharacters(in: .whitespaces), String(kv[1])))
                }
                options = try STAQueryOptions(pairs: pairs, context: "$expand=\(name)")
            }
            let path = name.split(separator: "/").map { $0.trimmingCharacters(in: .whitespaces) }
            guard !path.isEmpty, path.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isLetter } }) else {
                throw Problem(.invalidParameter, "parameter '$expand': '\(name)' is not a navigation property path", parameter: "$expand")
            }
            out.append(STAExpand(path: path, options: options))
        }
        return out
    }

    /// `text` split at `separator`s outside parentheses and quotes.
    static func splitTopLevel(_ text: String, on separator: Character) -> [String] {
        var out = [String](), current = "", depth = 0, quoted = false
        for c in text {
            if c == "'" { quoted.toggle() }
            if !quoted {
                if c == "(" { depth += 1 }
                if c == ")" { depth -= 1 }
                if c == separator, depth == 0 {
                    out.append(current)
                    current = ""
                    continue
                }
            }
            current.append(c)
        }
        out.append(current)
        return out.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
    }
}
