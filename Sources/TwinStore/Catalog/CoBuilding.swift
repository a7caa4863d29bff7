import GeoCore

/// 共建: a layer several departments build, each responsible for what it produced (谁产生谁负责).
/// A definition says `"coBuilt": true` (any department may contribute) or lists the contributing
/// departments (`"coBuilt": ["水务和湖泊局", "应急管理局"]`).
///
/// Each feature then records the department that created it in the reserved property
/// ``property``; a feature without it belongs to the layer's owner. A contributing department's
/// editors insert features (stamped with their department) and update or delete only their own;
/// the owner department's editors and the admin write all of them. Changing a feature's
/// department is a transfer: only the owner's editors or the admin may, and its audit entry is of
/// kind `transfer`; anyone else who writes another department into it (a forged ownership) is
/// refused (`forbidden`, naming ``property``) and the refusal is audited (kind `refused`).
public struct CoBuilding: Sendable, Hashable {
    /// The reserved property naming the department responsible for a feature.
    public static let property = "owner_department"

    /// The departments that may contribute besides the owner; nil: any department.
    public var contributors: [String]?

    public init(contributors: [String]?) {
        self.contributors = contributors
    }

    /// Whether `department` may contribute to a layer owned by `owner`.
    public func admits(_ department: String, owner: String) -> Bool {
        department == owner || (contributors?.contains(department) ?? true)
    }

    /// The definition file's value: `true` or the list of contributors.
    var json: JSONValue { contributors.map { .array($0.map(JSONValue.string)) } ?? .bool(true) }

    /// Reads `"coBuilt"`: nil for absent, null or false.
    static func parse(_ value: JSONValue?, fail: (String) -> StoreError) throws -> CoBuilding? {
        switch value {
        case nil, .null?, .bool(false)?: return nil
        case .bool(true)?: return CoBuilding(contributors: nil)
        case .array(let a)? where !a.isEmpty && a.allSatisfy({ !($0.stringValue ?? "").isEmpty }):
            return CoBuilding(contributors: a.compactMap(\.stringValue))
        default: throw fail("\"coBuilt\" must be true, false or a non-empty list of department names")
        }
    }
}
