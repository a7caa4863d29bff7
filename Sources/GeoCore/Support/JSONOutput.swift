import Foundation

/// The project's JSON output settings, one set per purpose and defined here only, so a document is
/// written the same way wherever it is written. (HTTP answers serialise `JSONValue` through its own
/// writer; these are the `Codable` paths.)
public enum JSONOutput {
    public enum Purpose: Sendable {
        /// What a person reads: the CLI's documents. Pretty-printed, sorted keys, `/` as is.
        case pretty
        /// Text that is stored, signed or compared (token claims, raster records, GeoPackage
        /// metadata): compact, sorted keys, `/` as is.
        case canonical
        /// The result files a flood run writes (time-step series): compact, sorted keys, `/` escaped
        /// (Foundation's default, as they have always been written).
        case resultFile
        /// Foundation's defaults: a value taken through JSON into another type, layer definitions
        /// and tile archive metadata.
        case plain
    }

    /// A new encoder with `purpose`'s settings.
    public static func encoder(_ purpose: Purpose) -> JSONEncoder {
        let encoder = JSONEncoder()
        switch purpose {
        case .pretty: encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        case .canonical: encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        case .resultFile: encoder.outputFormatting = [.sortedKeys]
        case .plain: break
        }
        return encoder
    }

    /// `value` encoded with `purpose`'s settings.
    public static func data(_ value: some Encodable, _ purpose: Purpose = .plain) throws -> Data {
        try encoder(purpose).encode(value)
    }

    /// `value` encoded with `purpose`'s settings, as text.
    public static func text(_ value: some Encodable, _ purpose: Purpose = .plain) throws -> String {
        String(decoding: try data(value, purpose), as: UTF8.self)
    }

    /// `value` as a `JSONValue` (an `Encodable` report as a process output or a feature's properties).
    public static func value(_ value: some Encodable) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: data(value))
    }

    /// `value` taken through JSON into `type` (a `JSONValue` input as a typed document).
    public static func convert<T: Decodable>(_ value: some Encodable, to type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: data(value))
    }
}
