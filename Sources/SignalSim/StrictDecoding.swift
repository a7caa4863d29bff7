import Foundation

/// Any key of a JSON object, to see every field a document holds.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension Decoder {
    /// Refuses fields the document's type does not know. The signal inputs have optional fields with
    /// defaults, so a misspelt one (`all_red` for `all_red_s`, a `uturn` flow) would otherwise be
    /// dropped and its default used without a word: a plausible plan from input nobody gave.
    public func refuseUnknownFields<Keys: CodingKey & CaseIterable>(_ known: Keys.Type) throws {
        let names = Set(Keys.allCases.map(\.stringValue))
        for key in try container(keyedBy: AnyCodingKey.self).allKeys where !names.contains(key.stringValue) {
            throw DecodingError.dataCorrupted(.init(
                codingPath: codingPath + [key],
                debugDescription: "unknown field '\(key.stringValue)' (known: \(names.sorted().joined(separator: ", ")))"))
        }
    }
}

/// The one way a signal document (an intersection as `signal plan --input` reads it, a corridor
/// as `signal corridor --input` reads it) is read, from a file or a process input: any decoding
/// failure becomes a `SignalTimingError` naming the field's JSON path (`approaches[2].lanes`).
public enum SignalDocument {
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            throw SignalTimingError(field: path(context.codingPath + [key]), "is required")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw SignalTimingError(field: path(context.codingPath), context.debugDescription)
        } catch let DecodingError.dataCorrupted(context) {
            throw SignalTimingError(field: path(context.codingPath), context.codingPath.isEmpty ? "not JSON (\(context.debugDescription))" : context.debugDescription)
        }
    }

    /// `approaches[2].flows_veh_h` for a decoding path; `$` for the document itself.
    public static func path(_ keys: [any CodingKey]) -> String {
        var text = ""
        for key in keys {
            if let i = key.intValue { text += "[\(i)]" } else { text += (text.isEmpty ? "" : ".") + key.stringValue }
        }
        return text.isEmpty ? "$" : text
    }
}
