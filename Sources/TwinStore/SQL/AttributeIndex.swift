/// An attribute index a layer definition declares (`indexes`): a B-tree on the expression a
/// query reads the property with (`SQLDialect.indexedProperty`), so CQL2 comparisons and `sortby`
/// on the property are index lookups whatever the layer's size (issue 57).
struct AttributeIndex: Hashable, Sendable {
    /// The property it indexes.
    let property: String
    /// `<table>_by_<8 hex digits>`: the digits hash the property's name and type (names may be
    /// Chinese or long; a type change makes a new index).
    let name: String
    /// The indexed expression over the unaliased `props` column.
    let expression: String

    /// The infix every attribute index name has after its table's bare name.
    static let infix = "_by_"

    /// The indexes `layer` declares, for a table whose bare (unqualified) name is `bare`.
    static func declared(by layer: LayerDefinition, dialect: any SQLDialect, bare: String) -> [AttributeIndex] {
        layer.indexes.map { property in
            let type = layer.schema.scalarType(of: property)
            var hash: UInt32 = 2_166_136_261  // FNV-1a
            for byte in (property + "\u{0}" + "\(type)").utf8 {
                hash = (hash ^ UInt32(byte)) &* 16_777_619
            }
            let hex = String(hash, radix: 16)
            let name = bare + infix + String(repeating: "0", count: 8 - hex.count) + hex
            return AttributeIndex(property: property, name: name,
                                  expression: dialect.indexedProperty(property, type: type, column: "props"))
        }
    }

    /// `CREATE INDEX` on `table` (qualified where the backend needs it).
    /// - SQLite: over current versions only (`WHERE valid_to IS NULL`, which every read without
    ///   `asOf` has); its planner has no statistics, so `SpatiaLiteStore` chooses the index itself.
    /// - PostgreSQL: over every version, since the planner estimates a comparison's selectivity
    ///   from an expression index's statistics only when the index is not partial; NULL first,
    ///   as `SQLDialect.order` sorts (PostgreSQL's default puts it last).
    func createStatement(table: String, postgres: Bool) -> String {
        postgres
            ? "CREATE INDEX IF NOT EXISTS \(name) ON \(table) ((\(expression)) NULLS FIRST)"
            : "CREATE INDEX IF NOT EXISTS \(name) ON \(table) ((\(expression))) WHERE valid_to IS NULL"
    }
}
