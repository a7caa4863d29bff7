import GeoCore
import NetworkAnalysis

/// Who travels during a flood (issue 77): the depth of standing water that closes a road to
/// the class, and how shallower water slows it. Every answer computed against `CityConditions`
/// names the class and the rule it applied (`rules`); docs/capabilities/emergency.md tables them
/// with their sources.
///
/// | class | closed where the water is deeper than | slower in shallower water |
/// |---|---|---|
/// | `fire_engine` 消防车 | 0.50 m | Pregnolato et al. 2017, at most the road's speed; 2.07 km/h from 0.30 m up |
/// | `car` 小汽车 | 0.30 m | Pregnolato et al. 2017, at most the road's speed |
/// | `walking` 步行 | 0.25 m | not slowed (5 km/h) |
public struct VehicleClass: Sendable, Hashable {
    /// How shallower water slows the class.
    public enum Slowing: String, Sendable, Hashable {
        /// `DepthDisruption`: Pregnolato et al. 2017's depth–speed function, capped by the road's speed.
        case depthDisruption = "pregnolato-2017"
        /// Not slowed until the water closes the road.
        case none
    }

    /// `fire_engine`, `car` or `walking`.
    public let id: String
    public let title: String
    /// The road graph the class travels on.
    public let profile: TravelProfile
    /// Water deeper than this (metres) closes a road to the class.
    public let wadingDepthMetres: Double
    public let slowing: Slowing
    /// Where the wading depth comes from.
    public let source: String

    /// A fire engine: closed above 0.50 m, the lower end of the rated wading depths manufacturers
    /// give for fire appliances (0.5–0.8 m; a heavy vehicle's traffic interruption in still water
    /// starts at 1.1 m, Contreras-Jara et al. 2018); slowed as a car by Pregnolato et al. 2017 up
    /// to 0.30 m and at that function's speed at 0.30 m (2.07 km/h) from there to its wading depth.
    public static let fireEngine = VehicleClass(
        id: "fire_engine", title: "消防车", profile: .driving, wadingDepthMetres: 0.5, slowing: .depthDisruption,
        source: "rated wading depth of fire appliances 0.5–0.8 m (manufacturers' figures), the lower end taken")
    /// A car (an ambulance, a duty officer's car): closed above 0.30 m, where Pregnolato et al.
    /// 2017's function falls to about 2 km/h and the road is impassable to cars; slowed by it below.
    public static let car = VehicleClass(
        id: "car", title: "小汽车", profile: .driving, wadingDepthMetres: 0.3, slowing: .depthDisruption,
        source: "Pregnolato, Ford, Wilkinson & Dawson 2017, Transportation Research Part D 55, 67–81: impassable to cars at 300 mm")
    /// On foot: closed above 0.25 m, where still water becomes a danger to some people (Defra 2008,
    /// risk to life from flooding: hazard rating d·(v + 0.5) + DF with the debris factor 1 above
    /// 0.25 m); not slowed below (no depth–speed relation for walkers is applied).
    public static let walking = VehicleClass(
        id: "walking", title: "步行", profile: .walking, wadingDepthMetres: 0.25, slowing: .none,
        source: "Defra 2008 (risk to life from flooding): above 0.25 m still water is a danger for some (hazard rating ≥ 0.75)")

    /// Every class, in the order the docs list them.
    public static let all = [fireEngine, car, walking]

    /// The class named `id`, or nil.
    public static func named(_ id: String) -> VehicleClass? { all.first { $0.id == id } }

    /// The class travelling by `profile` when none is named: walking on foot, a car driving.
    public static func travelling(_ profile: TravelProfile) -> VehicleClass {
        profile == .walking ? .walking : .car
    }

    /// Speed in km/h through standing water `depth` metres deep on a road travelled at `roadKmh`,
    /// or nil where the water closes the road to the class (deeper than `wadingDepthMetres`).
    public func speedKmh(road roadKmh: Double, depth: Double) -> Double? {
        guard !(depth > wadingDepthMetres) else { return nil }
        guard depth > 0 else { return roadKmh }
        switch slowing {
        case .none: return roadKmh
        case .depthDisruption: return min(roadKmh, DepthDisruption.speedKmh(depthMetres: depth))
        }
    }

    /// The factor (≥ 1) travel time on a road travelled at `roadKmh` is multiplied by in water
    /// `depth` metres deep, or nil where the water closes it.
    public func factor(road roadKmh: Double, depth: Double) -> Double? {
        speedKmh(road: roadKmh, depth: depth).map { roadKmh / $0 }
    }

    /// The rule as answers name it.
    public var rules: JSONValue {
        let slowingText: String
        switch slowing {
        case .none: slowingText = "not slowed by water below the closing depth"
        case .depthDisruption:
            slowingText = """
                speed in water w mm deep = min(road speed, 0.0009·w² − 0.5529·w + 86.9448 km/h) (Pregnolato et al. 2017), \
                w taken at most 300 mm (2.07 km/h)
                """
        }
        return ["vehicle": .string(id), "title": .string(title), "profile": .string(profile.name),
                "closed_above_depth_m": .number(wadingDepthMetres), "slowing": .string(slowingText), "source": .string(source)]
    }
}

/// The depth–disruption function of Pregnolato, Ford, Wilkinson & Dawson (2017, "The impact of
/// flooding on road transport: a depth-disruption function", Transportation Research Part D 55,
/// 67–81): the safe speed of a car through standing water, fitted to video and safety data
/// (R² 0.95), v = 0.0009·w² − 0.5529·w + 86.9448 km/h with w the depth in mm; about 2 km/h at
/// 300 mm, where the paper takes the road to be impassable.
public enum DepthDisruption {
    /// The depth (mm) the function is used up to: its speed there holds deeper.
    public static let limitMillimetres = 300.0

    /// km/h through standing water `depthMetres` deep (depths beyond 300 mm read at 300 mm).
    public static func speedKmh(depthMetres: Double) -> Double {
        let w = min(max(0, depthMetres * 1000), limitMillimetres)
        return 0.0009 * w * w - 0.5529 * w + 86.9448
    }
}
