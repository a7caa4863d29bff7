/// The departments a token may name: those that own a layer of the store, see one of its
/// masked attributes in clear, or are named co-builders of one (layer definitions' `owner`,
/// `sensitive[].visibleTo` and `coBuilt`: 气象局 owns no layer but registers its rain gauges in
/// the co-built `iot_devices`). A token
/// for any other department could read and write nothing, so `citytwin token create` refuses to
/// issue one and the server refuses an OpenID provider's token that names one (403).
public enum KnownDepartments {
    /// The departments of `store`'s layers, read as the admin.
    public static func of(_ store: any FeatureStore) async throws -> Set<String> {
        var names = Set<String>()
        for info in try await store.layers(for: .admin) {
            names.insert(info.definition.owner)
            for attribute in info.definition.sensitive { names.formUnion(attribute.visibleTo) }
            names.formUnion(info.definition.coBuilt?.contributors ?? [])
        }
        return names
    }
}
