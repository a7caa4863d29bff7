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
