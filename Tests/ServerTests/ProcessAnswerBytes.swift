import Foundation

/// A member of a process's answer whose value cannot be the same in two runs (a wall-clock
/// instant, an id the store generates): named by its path from the answer's root, its value
/// replaced by a placeholder naming the field before the bytes are compared. Everything else
/// stays byte for byte as the server sent it.
struct ScrubbedField: Sendable {
    /// The process whose answers hold the member.
    let process: String
    /// Member names from the root; `*` stands for any array index or member name.
    let path: [String]
    /// Why the value changes from run to run (and why it is not fixed at its source).
    let reason: String

    init(_ process: String, _ path: String, _ reason: String) {
        self.process = process
        self.path = path.split(separator: ".").map(String.init)
        self.reason = reason
    }

    func matches(_ at: [String]) -> Bool {
        at.count == path.count && zip(at, path).allSatisfy { $1 == "*" || $0 == $1 }
    }

    /// The JSON text put in place of the value.
    var placeholder: [UInt8] { Array("\"(scrubbed: \(path.joined(separator: ".")))\"".utf8) }
}

/// The bytes of a JSON answer with the values of `fields` replaced by their placeholders: a
/// scanner over the raw bytes, so every other byte (member order, number spelling, escapes,
/// whitespace) is kept exactly as sent.
enum ProcessAnswerBytes {
    struct Malformed: Error, CustomStringConvertible {
        let offset: Int
        let what: String
        var description: String { "not JSON at byte \(offset): \(what)" }
    }

    static func scrub(_ bytes: [UInt8], _ fields: [ScrubbedField]) throws -> [UInt8] {
        guard !fields.isEmpty else { return bytes }
        var replacements: [(Range<Int>, [UInt8])] = []
        var scanner = Scanner(bytes: bytes)
        try scanner.value(path: []) { path in fields.first { $0.matches(path) }.map(\.placeholder) } found: { range, text in
            replacements.append((range, text))
        }
        scanner.skipSpace()
        guard scanner.i == bytes.count else { throw Malformed(offset: scanner.i, what: "text after the value") }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var at = 0
        for (range, text) in replacements {
            out += bytes[at..<range.lowerBound]
            out += text
            at = range.upperBound
        }
        out += bytes[at...]
        return out
    }

    /// `nil` when `answer` equals `recorded`; else where and how they first differ.
    static func difference(recorded: [UInt8], answer: [UInt8]) -> String? {
        guard recorded != answer else { return nil }
        let common = zip(recorded, answer).prefix { $0 == $1 }.count
        func context(_ b: [UInt8]) -> String {
            let from = max(0, common - 60), to = min(b.count, common + 60)
            let before = String(decoding: b[from..<common], as: UTF8.self), after = String(decoding: b[common..<to], as: UTF8.self)
            return "…\(before)⟦\(after)…"
        }
        return "first differing byte at offset \(common) (recorded \(recorded.count) bytes, answered \(answer.count));"
            + "\n  recorded: \(context(recorded))\n  answered: \(context(answer))"
    }

    /// A recursive-descent walk over one JSON value: each value whose path `replace` gives a
    /// text for is passed to `found` with its byte range (and not descended into).
    struct Scanner {
        let bytes: [UInt8]
        var i = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func skipSpace() {
            while i < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[i]) { i += 1 }
        }

        mutating func value(path: [String], replace: ([String]) -> [UInt8]?, found: (Range<Int>, [UInt8]) -> Void) throws {
            skipSpace()
            guard i < bytes.count else { throw Malformed(offset: i, what: "a value expected") }
            let start = i
            if let text = replace(path) {
                try value(path: path, replace: { _ in nil }, found: { _, _ in })
                found(start..<i, text)
                return
            }
            switch bytes[i] {
            case UInt8(ascii: "{"):
                i += 1
                skipSpace()
                if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; break }
                while true {
                    skipSpace()
                    let keyStart = i
                    try string()
                    let key = try JSONDecoder().decode(String.self, from: Data(bytes[keyStart..<i]))
                    skipSpace()
                    try expect(":")
                    try value(path: path + [key], replace: replace, found: found)
                    skipSpace()
                    if try next(",", or: "}") { break }
                }
            case UInt8(ascii: "["):
                i += 1
                skipSpace()
                if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; break }
                var index = 0
                while true {
                    try value(path: path + [String(index)], replace: replace, found: found)
                    index += 1
                    skipSpace()
                    if try next(",", or: "]") { break }
                }
            case UInt8(ascii: "\""):
                try string()
            default:
                // A number, true, false or null: up to the next delimiter.
                while i < bytes.count, ![UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), 0x20, 0x0A, 0x0D, 0x09].contains(bytes[i]) { i += 1 }
                guard i > start else { throw Malformed(offset: i, what: "a value expected") }
            }
        }

        mutating func string() throws {
            try expect("\"")
            while i < bytes.count, bytes[i] != UInt8(ascii: "\"") { i += bytes[i] == UInt8(ascii: "\\") ? 2 : 1 }
            try expect("\"")
        }

        mutating func expect(_ c: Unicode.Scalar) throws {
            guard i < bytes.count, bytes[i] == UInt8(ascii: c) else { throw Malformed(offset: i, what: "'\(c)' expected") }
            i += 1
        }

        /// Consumes `separator` (false: more follows) or `end` (true).
        mutating func next(_ separator: Unicode.Scalar, or end: Unicode.Scalar) throws -> Bool {
            guard i < bytes.count else { throw Malformed(offset: i, what: "'\(end)' expected") }
            if bytes[i] == UInt8(ascii: separator) { i += 1; return false }
            try expect(end)
            return true
        }
    }
}
