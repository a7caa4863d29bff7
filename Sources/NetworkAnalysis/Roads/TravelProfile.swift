/// How a traveller uses the road network: speed and whether one-way rules apply.
public struct TravelProfile: Sendable, Hashable {
    /// Short name (`driving`, `walking`), used in CLI and API parameters.
    public var name: String
    /// A speed in km/h used on every road, or `nil` to use each road's `speed_kmh`.
    public var fixedSpeedKmh: Double?
    /// Whether one-way roads may only be travelled in their digitised direction.
    public var honoursOneway: Bool
    /// Whether turn restrictions (`TurnRestriction`) apply.
    public var honoursTurnRestrictions: Bool

    /// A profile; `honoursTurnRestrictions` defaults to `honoursOneway` (vehicles obey both,
    /// pedestrians neither).
    public init(name: String, fixedSpeedKmh: Double? = nil, honoursOneway: Bool, honoursTurnRestrictions: Bool? = nil) {
        self.name = name
        self.fixedSpeedKmh = fixedSpeedKmh
        self.honoursOneway = honoursOneway
        self.honoursTurnRestrictions = honoursTurnRestrictions ?? honoursOneway
    }

    /// Vehicles: each road's design speed, one-way rules and turn restrictions apply.
    public static let driving = TravelProfile(name: "driving", fixedSpeedKmh: nil, honoursOneway: true)
    /// Pedestrians: 5 km/h on every road in both directions, turning anywhere (the 500 m ≈ 6 min walk of the
    /// shelter standards).
    public static let walking = TravelProfile(name: "walking", fixedSpeedKmh: 5, honoursOneway: false)

    /// The profile named `name` (`driving` or `walking`), or `nil`.
    public static func named(_ name: String) -> TravelProfile? {
        switch name.lowercased() {
        case "driving", "drive", "car": return .driving
        case "walking", "walk", "foot": return .walking
        default: return nil
        }
    }
}
