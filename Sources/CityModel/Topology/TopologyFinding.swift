import GeoCore

/// One problem a network check found, worded so a surveyor can go and fix it.
public struct TopologyFinding: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable, CaseIterable {
        /// Two features share an id.
        case duplicateID = "duplicate-id"
        /// A pipe or main names an end node that does not exist (or names none).
        case danglingPipe = "dangling-pipe"
        /// A pipe end lies farther from its node than the snapping tolerance.
        case snapping
        /// A sewer whose downstream invert is higher than its upstream invert.
        case reversedSlope = "reversed-slope"
        /// A manhole whose pipes all flow in (a sink that is not an outfall), or an outfall with pipes flowing out.
        case flowDirectionConflict = "flow-direction-conflict"
        /// Manholes from which no path along the flow reaches an outfall.
        case unreachableOutfall = "unreachable-outfall"
        /// Water nodes (and their mains) with no path to any source.
        case isolatedSegment = "isolated-segment"
    }

    public var kind: Kind
    /// Ids of the features involved, the primary one first.
    public var featureIDs: [String]
    /// Where to look, in the features' CRS (EPSG:4490 lon/lat for CityTwin layers), when known.
    public var location: Position?
    /// The measured distance in metres, for snapping findings.
    public var distance: Double?
    /// Message in Chinese.
    public var messageZH: String
    /// Message in English.
    public var messageEN: String

    public init(kind: Kind, featureIDs: [String], location: Position?, distance: Double? = nil,
                messageZH: String, messageEN: String) {
        self.kind = kind
        self.featureIDs = featureIDs
        self.location = location
        self.distance = distance
        self.messageZH = messageZH
        self.messageEN = messageEN
    }

    public var description: String { "[\(kind.rawValue)] \(messageZH) / \(messageEN)" }
}

/// The string form of a feature id ("" when absent).
func idString(_ f: Feature) -> String { f.id?.description ?? "" }

/// First and last positions of a line-string geometry.
func endPositions(_ g: Geometry?) -> (Position, Position)? {
    switch g {
    case .lineString(let l)?:
        guard let a = l.positions.first, let b = l.positions.last else { return nil }
        return (a, b)
    case .multiLineString(let m)?:
        guard let a = m.lineStrings.first?.positions.first, let b = m.lineStrings.last?.positions.last else { return nil }
        return (a, b)
    default:
        return nil
    }
}

func pointPosition(_ g: Geometry?) -> Position? {
    if case .point(let p)? = g { return p.position }
    return nil
}

func formatMetres(_ d: Double) -> String {
    let r = (d * 100).rounded() / 100
    return String(r)
}
