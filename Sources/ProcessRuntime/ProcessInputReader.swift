import GeoCore

/// Reads a process's inputs field by field, and describes them: the one place each input's
/// title, description, type, range and default is declared.
///
/// A `ProcessInput` type's `init(from:)` asks the reader for every field it holds. Reading a
/// run's inputs, each call checks the value and returns it, throwing the `ProcessInputError`
/// that names the input; describing (`ProcessInput.parameters`), the same calls record the
/// field as a `ProcessParameter` (its JSON Schema carrying the range, enum and default the
/// reading enforces) and return a placeholder, so the schema a process serves cannot drift
/// from the checks it makes.
public final class ProcessInputReader {
    /// The inputs read; `nil` while describing.
    private let values: [String: JSONValue]?
    /// The fields asked for while describing.
    public private(set) var parameters: [String: ProcessParameter] = [:]

    /// A reader of a run's inputs.
    public init(_ values: [String: JSONValue]) {
        self.values = values
    }

    private init() {
        values = nil
    }

    /// A reader that records the fields asked for and reads nothing.
    public static func describing() -> ProcessInputReader { ProcessInputReader() }

    /// `true` while describing: the values returned are placeholders, so checks across fields
    /// should be skipped.
    public var isDescribing: Bool { values == nil }

    /// The value given for `name` (unwrapped from a qualified value), or `nil`; records the field
    /// while describing. Every typed read below passes here.
    /// - Parameters:
    ///   - schema: the JSON Schema of the value (`default`, when the field has one, included).
    ///   - required: whether the input must be given (its `minOccurs` is 1).
    public func value(_ name: String, title: String, description: String, schema: JSONValue,
                      required: Bool = false) -> JSONValue? {
        guard let values else {
            parameters[name] = ProcessParameter(title: title, description: description, schema: schema, minOccurs: required ? 1 : 0)
            return nil
        }
        return ProcessInputs.unwrap(values[name])
    }

    /// Whether input `name` was given (never while describing): for checks across inputs, such
    /// as one that applies only without another.
    public func isGiven(_ name: String) -> Bool {
        values.map { ProcessInputs.unwrap($0[name]) != nil } ?? false
    }

    /// The value given for the input `parameter` describes (its title, description, schema and
    /// whether it is required), or `nil`; for inputs whose shape (a document, a pair, one of two
    /// types) the typed reads below do not cover, checked by the caller.
    public func value(_ name: String, _ parameter: ProcessParameter) -> JSONValue? {
        value(name, title: parameter.title, description: parameter.description, schema: parameter.schema,
              required: parameter.minOccurs > 0)
    }

    /// A required input read by `parse`; `placeholder` while describing.
    public func required<T>(_ name: String, title: String, description: String, schema: JSONValue,
                            placeholder: @autoclosure () -> T, parse: (JSONValue) throws -> T) throws -> T {
        guard !isDescribing else {
            _ = value(name, title: title, description: description, schema: schema, required: true)
            return placeholder()
        }
        guard let v = value(name, title: title, description: description, schema: schema, required: true) else {
            throw ProcessInputError(name, "is required")
        }
        return try parse(v)
    }

    /// An optional input read by `parse`, `nil` when not given (and while describing).
    public func optional<T>(_ name: String, title: String, description: String, schema: JSONValue,
                            parse: (JSONValue) throws -> T) throws -> T? {
        try value(name, title: title, description: description, schema: schema).map(parse)
    }

    // MARK: Typed fields

    /// A number in `range`, `fallback` when not given. Schema: `minimum`, `maximum`, `default`.
    public func number(_ name: String, title: String, description: String, in range: ClosedRange<Double>,
                       default fallback: Double) throws -> Double {
        let schema = Self.numberSchema(range, default: .number(fallback))
        return try checkedNumber(value(name, title: title, description: description, schema: schema), name, in: range) ?? fallback
    }

    /// A number in `range`, `nil` when not given.
    public func number(_ name: String, title: String, description: String, in range: ClosedRange<Double>) throws -> Double? {
        try checkedNumber(value(name, title: title, description: description, schema: Self.numberSchema(range, default: nil)),
                          name, in: range)
    }

    private func checkedNumber(_ value: JSONValue?, _ name: String, in range: ClosedRange<Double>) throws -> Double? {
        guard let value else { return nil }
        return try ProcessInputs.number([name: value], name, in: range)
    }

    /// An integer in `range`, `fallback` when not given.
    public func integer(_ name: String, title: String, description: String, in range: ClosedRange<Int>,
                        default fallback: Int) throws -> Int {
        let schema: JSONValue = ["type": "integer", "minimum": .integer(Int64(range.lowerBound)),
                                 "maximum": .integer(Int64(range.upperBound)), "default": .integer(Int64(fallback))]
        guard let v = value(name, title: title, description: description, schema: schema) else { return fallback }
        return try ProcessInputs.integer([name: v], name, default: fallback, in: range)
    }

    /// An integer in `range`, `nil` when not given.
    public func integer(_ name: String, title: String, description: String, in range: ClosedRange<Int>) throws -> Int? {
        let schema: JSONValue = ["type": "integer", "minimum": .integer(Int64(range.lowerBound)), "maximum": .integer(Int64(range.upperBound))]
        guard let v = value(name, title: title, description: description, schema: schema) else { return nil }
        return try ProcessInputs.integer([name: v], name, default: range.lowerBound, in: range)
    }

    /// A required point: a GeoJSON Point or `[lon, lat]` in CRS84 degrees; (0, 0) while describing.
    public func point(_ name: String, title: String, description: String) throws -> Position {
        try required(name, title: title, description: description, schema: ProcessInputs.pointSchema,
                     placeholder: Position(x: 0, y: 0)) { try ProcessInputs.requiredPoint([name: $0], name) }
    }

    /// An optional point, `nil` when not given.
    public func optionalPoint(_ name: String, title: String, description: String) throws -> Position? {
        try optional(name, title: title, description: description, schema: ProcessInputs.pointSchema) {
            try ProcessInputs.point([name: $0], name)
        } ?? nil
    }

    /// A required non-empty string; `placeholder` while describing.
    public func string(_ name: String, title: String, description: String, schema: JSONValue = ["type": "string"],
                       placeholder: String = "") throws -> String {
        try required(name, title: title, description: description, schema: schema, placeholder: placeholder) {
            try ProcessInputs.string([name: $0], name) ?? ""
        }
    }

    /// An optional non-empty string, `nil` when not given.
    public func optionalString(_ name: String, title: String, description: String,
                               schema: JSONValue = ["type": "string"]) throws -> String? {
        try optional(name, title: title, description: description, schema: schema) { try ProcessInputs.string([name: $0], name) } ?? nil
    }

    /// One of `cases` (a non-empty string), `fallback` when not given; `refusal` words the error
    /// for any other string. Schema: `enum` and `default`.
    public func choice(_ name: String, title: String, description: String, among cases: [String], default fallback: String,
                       refusal: (String) -> String) throws -> String {
        let schema: JSONValue = ["type": "string", "enum": .array(cases.map(JSONValue.string)), "default": .string(fallback)]
        guard let s = try optionalString(name, title: title, description: description, schema: schema) else { return fallback }
        guard cases.contains(s) else { throw ProcessInputError(name, refusal(s)) }
        return s
    }

    /// An optional array of strings, `nil` when not given.
    public func strings(_ name: String, title: String, description: String,
                        schema: JSONValue = ["type": "array", "items": ["type": "string"]]) throws -> [String]? {
        try optional(name, title: title, description: description, schema: schema) { try ProcessInputs.strings([name: $0], name) } ?? nil
    }

    /// `true` or `false`, `fallback` when not given.
    public func bool(_ name: String, title: String, description: String, default fallback: Bool = false) throws -> Bool {
        let schema: JSONValue = ["type": "boolean", "default": .bool(fallback)]
        guard let v = value(name, title: title, description: description, schema: schema) else { return fallback }
        return try ProcessInputs.bool([name: v], name, default: fallback)
    }

    /// `repair`: whether an invalid area is repaired (default `false`: refused with GEOS's reason).
    public func repair() throws -> Bool {
        try repairValue().map { try ProcessInputs.bool(["repair": $0], "repair") } ?? false
    }

    /// The `repair` input as given, for a process that reads it only beside an area.
    public func repairValue() -> JSONValue? {
        value("repair", title: "Repair the area",
              description: """
                  true: an invalid (e.g. self-intersecting) area is repaired with GEOS make-valid; false (default): it \
                  is refused with GEOS's reason.
                  """,
              schema: ["type": "boolean", "default": false])
    }

    /// The JSON Schema of a number in `range`: bounds written as integers when whole, so a
    /// schema reads `"maximum": 200`, not `200.0`.
    static func numberSchema(_ range: ClosedRange<Double>, default fallback: JSONValue?) -> JSONValue {
        var schema: [String: JSONValue] = ["type": "number", "minimum": bound(range.lowerBound), "maximum": bound(range.upperBound)]
        if let fallback { schema["default"] = fallback.doubleValue.map(bound) ?? fallback }
        return .object(schema)
    }

    static func bound(_ d: Double) -> JSONValue {
        d == d.rounded() && abs(d) < 1e15 ? .integer(Int64(d)) : .number(d)
    }
}
