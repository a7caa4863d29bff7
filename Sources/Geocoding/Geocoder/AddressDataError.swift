/// Standard address data the geocoder cannot build on: a record missing a field or with one it
/// cannot read, a duplicate address code, a parent code that names no record. Not a geometry
/// failure (`GeometryError` stays for those): the data's content is at fault, named by the record
/// and the field.
public struct AddressDataError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The record at fault: `feature <id>` or `record <index>`.
    public var record: String
    /// The field at fault (`level`, `address_code`, `parent_code`), if one.
    public var field: String?
    public var message: String

    public init(record: String, field: String? = nil, _ message: String) {
        self.record = record
        self.field = field
        self.message = message
    }

    public var description: String { "\(record)" + (field.map { " field \($0)" } ?? "") + ": \(message)" }
}
