/// The attributes of a tile's features, one row per feature id (EXT_structural_metadata's
/// property table): what a 3D viewer shows when a building or pipe is picked.
public struct PropertyTable: Sendable, Equatable {
    /// One property: text, or numbers (`nil` where a feature has none, written as `noData`).
    public enum Column: Sendable, Equatable {
        case strings([String])
        case numbers([Double?])

        var count: Int {
            switch self {
            case .strings(let v): v.count
            case .numbers(let v): v.count
            }
        }
    }

    /// The metadata class's name (the layer id) and the number of rows.
    public var className: String
    public var count: Int
    /// Columns by property name, in the order written.
    public var columns: [(name: String, values: Column)]

    /// The value written for a missing number (EXT_structural_metadata `noData`).
    public static let noData = -9999.0

    public init(className: String, count: Int, columns: [(name: String, values: Column)]) {
        self.className = className
        self.count = count
        self.columns = columns
    }

    public static func == (a: PropertyTable, b: PropertyTable) -> Bool {
        a.className == b.className && a.count == b.count
            && a.columns.map(\.name) == b.columns.map(\.name) && a.columns.map(\.values) == b.columns.map(\.values)
    }
}
