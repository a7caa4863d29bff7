/// A process input that is missing, unknown or has a bad value, named: the one error a
/// process's input decoding throws ("input 'area': must be a GeoJSON Polygon or MultiPolygon").
/// The server answers it as a 400 naming the input, the CLI as a usage error, a job as its failure.
public struct ProcessInputError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The input id at fault, e.g. `incident`; `inputs` for the input object as a whole.
    public var input: String
    /// Why, e.g. `is required`.
    public var reason: String

    public init(_ input: String, _ reason: String) {
        self.input = input
        self.reason = reason
    }

    public var description: String { "input '\(input)': \(reason)" }
}
