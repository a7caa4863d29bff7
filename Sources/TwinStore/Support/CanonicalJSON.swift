import Foundation
import GeoCore

/// JSON text with sorted keys and no whitespace: the form stored in the `props` column and
/// hashed for version content hashes, so equal properties always give equal text.
enum CanonicalJSON {
    static func text(_ v: JSONValue) -> String {
        var out = ""
        write(v, to: &out)
        return out
    }

    static func text(_ properties: [String: JSONValue]) -> String {
        var out = ""
        writeObject(properties, to: &out)
        return out
    }

    static func write(_ v: JSONValue, to out: inout String) {
        switch v {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .integer(let i): out += String(i)
        case .number(let d):
            if d.isFinite {
                if d.rounded() == d, abs(d) < 1e15 { out += String(Int64(d)) + ".0" } else { out += "\(d)" }
            } else {
                out += "null"
            }
        case .string(let s): writeString(s, to: &out)
        case .array(let a):
            out += "["
            for (i, e) in a.enumerated() {
                if i > 0 { out += "," }
                write(e, to: &out)
            }
            out += "]"
        case .object(let o): writeObject(o, to: &out)
        }
    }

    static func writeObject(_ o: [String: JSONValue], to out: inout String) {
        out += "{"
        for (i, (k, v)) in o.sorted(by: { $0.key < $1.key }).enumerated() {
            if i > 0 { out += "," }
            writeString(k, to: &out)
            out += ":"
            write(v, to: &out)
        }
        out += "}"
    }

    static func writeString(_ s: String, to out: inout String) {
        out += "\""
        // Most text needs no escape: append it whole (the same bytes the loop below writes).
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
            out += s
            out += "\""
            return
        }
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20:
                let hex = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(u)
            }
        }
        out += "\""
    }

    /// Parses the `props` column back; the store wrote it, so failure means corruption.
    static func parseObject(_ text: String, layer: String, feature: String) throws -> [String: JSONValue] {
        do {
            let v = try JSONValue(json: text)
            guard let o = v.objectValue else { throw StoreError(.backend, "stored properties are not an object", layer: layer, feature: feature) }
            return o
        } catch let e as StoreError {
            throw e
        } catch {
            throw StoreError(.backend, "stored properties do not parse: \(error)", layer: layer, feature: feature)
        }
    }
}
