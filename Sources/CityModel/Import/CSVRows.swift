/// RFC 4180 records over UTF-8 text: comma-separated, fields optionally in double quotes, `""`
/// inside quotes for a quote, CR LF or LF line ends, line breaks allowed inside quoted fields.
/// Reads one record per call so a large file is never split into an array of rows at once.
package struct CSVRows {
    private let bytes: [UInt8]
    private var i = 0
    /// The physical line (from 1) where the record returned last started.
    package private(set) var line = 0
    private var currentLine = 1

    package init(text: String) {
        var b = Array(text.utf8)
        if b.starts(with: [0xEF, 0xBB, 0xBF]) { b.removeFirst(3) }
        bytes = b
    }

    /// Whether every record has been read.
    package var atEnd: Bool { i >= bytes.count }

    /// The next record's fields; `nil` at the end. A blank line is an empty record (`[""]`).
    /// - Throws: a reason when a quoted field is never closed.
    package mutating func next() throws(CSVSyntaxFailure) -> [String]? {
        guard i < bytes.count else { return nil }
        line = currentLine
        var fields: [String] = []
        var field: [UInt8] = []
        var quoted = false
        var wasQuoted = false
        while i < bytes.count {
            let c = bytes[i]
            if quoted {
                if c == 0x22 {
                    if i + 1 < bytes.count, bytes[i + 1] == 0x22 { field.append(0x22); i += 2; continue }
                    quoted = false; i += 1; continue
                }
                if c == 0x0A { currentLine += 1 }
                field.append(c); i += 1
                continue
            }
            switch c {
            case 0x22 where field.isEmpty && !wasQuoted:
                quoted = true; wasQuoted = true; i += 1
            case 0x2C:
                fields.append(String(decoding: field, as: UTF8.self)); field.removeAll(keepingCapacity: true)
                wasQuoted = false; i += 1
            case 0x0D where i + 1 < bytes.count && bytes[i + 1] == 0x0A:
                i += 1
            case 0x0A:
                i += 1; currentLine += 1
                fields.append(String(decoding: field, as: UTF8.self))
                return fields
            default:
                field.append(c); i += 1
            }
        }
        if quoted { throw CSVSyntaxFailure(reason: "a quoted field starting on line \(line) is never closed") }
        fields.append(String(decoding: field, as: UTF8.self))
        return fields
    }
}

package struct CSVSyntaxFailure: Error {
    package var reason: String
}
