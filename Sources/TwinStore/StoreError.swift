/// The one error type of TwinStore. A struct (not an enum) so codes can be added without
/// breaking callers. `layer`, `feature` and `field` name the offending input when known, so the
/// server can render a precise `application/problem+json` body.
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, RawRepresentable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A layer definition file is malformed or lacks a required catalogue field.
        public static let invalidLayerDefinition = Code(rawValue: "invalid-layer-definition")
        /// The layer does not exist, or the caller may not know that it exists.
        public static let layerNotFound = Code(rawValue: "layer-not-found")
        /// A layer with this id already exists.
        public static let layerExists = Code(rawValue: "layer-exists")
        /// A feature failed validation against the layer's schema or geometry type.
        public static let invalidFeature = Code(rawValue: "invalid-feature")
        /// A feature id was expected to exist (update, delete) and does not.
        public static let featureNotFound = Code(rawValue: "feature-not-found")
        /// A feature id was inserted twice.
        public static let duplicateFeature = Code(rawValue: "duplicate-feature")
        /// A conditional write found a feature at another version than it expected: another
        /// writer changed it after it was read. Nothing was written; read again and retry.
        public static let versionChanged = Code(rawValue: "version-changed")
        /// The caller is not allowed to do this.
        public static let forbidden = Code(rawValue: "forbidden")
        /// The caller must identify itself first (a bearer token): anonymous callers may not do this.
        public static let unauthenticated = Code(rawValue: "unauthenticated")
        /// The query is malformed (unknown CRS, bad limit, filter on a hidden attribute, …).
        public static let invalidQuery = Code(rawValue: "invalid-query")
        /// A paging cursor could not be decoded or belongs to another ordering.
        public static let invalidCursor = Code(rawValue: "invalid-cursor")
        /// The database reported an error.
        public static let backend = Code(rawValue: "backend")
        /// The database cannot be reached: stopped, refusing connections, or no connection free
        /// within the store's wait. Nothing was changed; the same call may succeed later.
        public static let unavailable = Code(rawValue: "unavailable")
    }

    public var code: Code
    public var message: String
    /// The layer id involved, when there is one.
    public var layer: String?
    /// The feature id involved, when there is one.
    public var feature: String?
    /// The attribute or definition field involved (e.g. `"sharing.method"`, `"phone"`).
    public var field: String?

    public init(_ code: Code, _ message: String, layer: String? = nil, feature: String? = nil, field: String? = nil) {
        self.code = code
        self.message = message
        self.layer = layer
        self.feature = feature
        self.field = field
    }

    public var description: String {
        var parts = ["\(code): \(message)"]
        if let layer { parts.append("layer \(layer)") }
        if let feature { parts.append("feature \(feature)") }
        if let field { parts.append("field \(field)") }
        return parts.joined(separator: "; ")
    }
}

extension StoreError {
    /// Runs `step` (a read, a computation and a conditional write) again while its write finds
    /// that another writer got in between (`versionChanged`), up to `attempts` runs in all; the
    /// last run's error passes on. The one retry of every read-modify-write of the stores.
    public static func retryingChangedVersions<T>(attempts: Int = 8, _ step: () async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await step()
            } catch let e as StoreError where e.code == .versionChanged && attempt < attempts {
                continue
            }
        }
    }
}
