/// A group of operations of one capability (features, tiles, SensorThings, parking, …): a value
/// holding exactly the services its handlers use, injected by `CityTwinServer`, which composes the
/// collections into its one operation table (router, parameter checks and OpenAPI document).
///
/// A new capability adds its routes as one more collection:
///
/// ```swift
/// struct HarbourRoutes: OperationCollection {
///     let store: any FeatureStore
///     let site: SiteLinks
///     var operations: [APIOperation] { [APIOperation(id: "getBerths", method: .get, path: "/harbour/berths", …) { … }] }
/// }
/// ```
///
/// and one line in `CityTwinServer.init`'s list of collections, at its place in the document.
protocol OperationCollection: Sendable {
    /// The collection's operations, in document order.
    var operations: [APIOperation] { get }
}
