import Foundation
import GeoCore

/// The attribute table of a Shapefile (dBASE III `.dbf`): field types C (text), N and F
/// (numbers), L (logical) and D (date, given as `YYYY-MM-DD`); other types are read as text.
struct DBFTable {
    struct Field {
        var name: String
        var type: UInt8
        var offset: Int
        var length: Int
        var decimals: Int
    }

    let file: String
    let data: BinaryRecord
    let recordCount: Int
    let headerLength: Int
    let recordLength: Int
    let fields: [Field]
    let encoding: TextEncoding

    /// dBASE language driver ids for the Chinese code pages (936 GBK / GB2312).
    static let chineseDrivers: Set<UInt8> = [0x4D, 0x7A]

    /// Reads the header of `url`.
    /// - Parameter encoding: the text encoding (from the `.cpg`); when `nil`, the header's language
    ///   driver id decides (GBK for 0x4D/0x7A), else UTF-8.
    init(url: URL, encoding: TextEncoding?) throws {
        file = url.lastPathComponent
        let bytes: Data
        do { bytes = try Data(contentsOf: url, options: .mappedIfSafe) } catch {
            throw ImportError(.unreadable, file: file, "cannot read the attribute table: \(error.localizedDescription)")
        }
        data = BinaryRecord(bytes: bytes)
        do {
            recordCount = Int(try data.uint32LE(4))
            headerLength = Int(try data.uint16LE(8))
            recordLength = Int(try data.uint16LE(10))
            let driver = try data.uint8(29)
            self.encoding = encoding ?? (Self.chineseDrivers.contains(driver) ? .gb18030 : .utf8)
            var fields: [Field] = []
            var offset = 1                       // byte 0 of each record is the deletion flag
            var at = 32
            while at + 32 <= headerLength, try data.uint8(at) != 0x0D {
                let nameBytes = try data.slice(at, 11).prefix { $0 != 0 }
                guard let name = self.encoding.decode(nameBytes) ?? TextEncoding.utf8.decode(nameBytes) else {
                    throw ImportError(.malformed, file: file, location: "header", "field \(fields.count + 1) has an undecodable name")
                }
                let length = Int(try data.uint8(at + 16))
                fields.append(Field(name: name.trimmingCharacters(in: .whitespaces), type: try data.uint8(at + 11),
                                    offset: offset, length: length, decimals: Int(try data.uint8(at + 17))))
                offset += length
                at += 32
            }
            self.fields = fields
            guard offset <= recordLength else {
                throw ImportError(.malformed, file: file, location: "header", "fields add up to \(offset) bytes, more than the record length \(recordLength)")
            }
        } catch let e as BinaryRecord.Truncated {
            throw ImportError(.malformed, file: file, location: "header", "the header is truncated at byte \(e.offset)")
        }
    }

    /// The attributes of record `index` (from 0); `nil` for a record marked deleted.
    func record(_ index: Int) throws -> [String: JSONValue]? {
        let location = "row \(index + 1)"
        let start = headerLength + index * recordLength
        let bytes: Data
        do { bytes = try data.slice(start, recordLength) } catch {
            throw ImportError(.malformed, file: file, location: location, "the attribute table ends before this record")
        }
        let base = bytes.startIndex
        if bytes[base] == 0x2A { return nil }            // '*': deleted
        var out = [String: JSONValue]()
        out.reserveCapacity(fields.count)
        for f in fields {
            let raw = bytes[(base + f.offset)..<(base + f.offset + f.length)]
            func fail(_ why: String) -> ImportError { ImportError(.invalidValue, file: file, location: location, field: f.name, why) }
            switch f.type {
            case UInt8(ascii: "N"), UInt8(ascii: "F"):
                let s = String(decoding: raw, as: UTF8.self).trimmingCharacters(in: .whitespaces.union(.controlCharacters))
                if s.isEmpty || s.allSatisfy({ $0 == "*" }) { out[f.name] = .null; continue }
                if f.decimals == 0, let i = Int64(s) { out[f.name] = .integer(i); continue }
                guard let d = Double(s), d.isFinite else { throw fail("\"\(s)\" is not a number") }
                out[f.name] = .number(d)
            case UInt8(ascii: "L"):
                switch raw.first {
                case UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: "Y"), UInt8(ascii: "y"): out[f.name] = .bool(true)
                case UInt8(ascii: "F"), UInt8(ascii: "f"), UInt8(ascii: "N"), UInt8(ascii: "n"): out[f.name] = .bool(false)
                default: out[f.name] = .null
                }
            case UInt8(ascii: "D"):
                let s = String(decoding: raw, as: UTF8.self).trimmingCharacters(in: .whitespaces)
                if s.isEmpty || s.allSatisfy({ $0 == "0" }) { out[f.name] = .null; continue }
                let d = Array(s)
                guard d.count == 8, d.allSatisfy(\.isNumber) else { throw fail("\"\(s)\" is not a YYYYMMDD date") }
                out[f.name] = .string("\(String(d[0..<4]))-\(String(d[4..<6]))-\(String(d[6..<8]))")
            default:
                var end = raw.endIndex
                while end > raw.startIndex, raw[end - 1] == 0x20 || raw[end - 1] == 0 { end -= 1 }
                guard let text = encoding.decode(raw[raw.startIndex..<end]) else {
                    throw fail("the text is not valid \(encoding.rawValue) (give the encoding in a .cpg file or --encoding)")
                }
                out[f.name] = .string(text)
            }
        }
        return out
    }
}
