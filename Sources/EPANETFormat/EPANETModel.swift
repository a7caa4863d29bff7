/// An EPANET 2 water distribution model as data: its nodes (junctions, reservoirs, tanks), links
/// (pipes, pumps, control valves) and where they lie, read from a `.inp` file
/// (`EPANETModel(text:)`). Quantities are converted to SI once, when read: lengths, heads and
/// elevations in metres, pipe and valve diameters in millimetres, demands in litres per second,
/// Darcy–Weisbach roughness in millimetres. Coordinates are as the file gives them (its map units).
///
/// What the hydraulic solver alone needs (patterns, curves, controls, rules, energy, quality) is
/// checked for its section name and kept out of the model; CityTwin imports the network.
public struct EPANETModel: Sendable, Hashable {
    public struct Junction: Sendable, Hashable {
        public var id: String
        public var elevation: Double
        /// The base demand, L/s: the sum of the junction's `[DEMANDS]` when it has any (they replace
        /// the one in `[JUNCTIONS]`, as EPANET reads them), else its `[JUNCTIONS]` demand.
        public var baseDemand: Double
        public var demandPattern: String?
    }

    public struct Reservoir: Sendable, Hashable {
        public var id: String
        /// Total head, m.
        public var head: Double
        public var headPattern: String?
    }

    public struct Tank: Sendable, Hashable {
        public var id: String
        /// Bottom elevation, m.
        public var elevation: Double
        public var initialLevel: Double
        public var minimumLevel: Double
        public var maximumLevel: Double
        /// Nominal diameter, m.
        public var diameter: Double
        /// Minimum volume, m³.
        public var minimumVolume: Double
        public var volumeCurve: String?
    }

    public enum LinkStatus: String, Sendable, Hashable, CaseIterable {
        case open = "OPEN", closed = "CLOSED"
        /// A pipe with a check valve: flow only from Node1 to Node2.
        case checkValve = "CV"
    }

    public struct Pipe: Sendable, Hashable {
        public var id: String
        public var node1: String
        public var node2: String
        /// m.
        public var length: Double
        /// mm.
        public var diameter: Double
        /// H-W C, D-W height in mm, or Manning's n (`EPANETModel.headloss`).
        public var roughness: Double
        public var minorLoss: Double
        /// The initial status: `[PIPES]`' own, overridden by `[STATUS]`.
        public var status: LinkStatus
    }

    public struct Pump: Sendable, Hashable {
        public var id: String
        public var node1: String
        public var node2: String
        /// The head curve's id (`HEAD`), when the pump has one.
        public var headCurve: String?
        /// Constant power, kW (`POWER`; horsepower in US files, converted).
        public var power: Double?
        public var speed: Double
        public var pattern: String?
        public var status: LinkStatus
    }

    /// The control valve types of EPANET 2.2.
    public enum ValveType: String, Sendable, Hashable, CaseIterable {
        /// Pressure reducing, pressure sustaining, pressure breaker, flow control, throttle control, general purpose.
        case prv = "PRV", psv = "PSV", pbv = "PBV", fcv = "FCV", tcv = "TCV", gpv = "GPV"
        /// Positional control valve (EPANET 2.3).
        case pcv = "PCV"
    }

    public struct Valve: Sendable, Hashable {
        public var id: String
        public var node1: String
        public var node2: String
        /// mm.
        public var diameter: Double
        public var type: ValveType
        /// As EPANET reads it: a pressure (PRV/PSV/PBV; m of head), a flow (FCV; L/s), a loss
        /// coefficient (TCV), a curve id (GPV: in `curve`), a percent open (PCV).
        public var setting: Double
        /// The head-loss curve of a GPV.
        public var curve: String?
        public var minorLoss: Double
        /// `[STATUS]` may fix a valve open or closed instead of active.
        public var fixedStatus: LinkStatus?
    }

    /// A map position in the file's own units.
    public struct Coordinate: Sendable, Hashable {
        public var x: Double
        public var y: Double
        public init(x: Double, y: Double) {
            self.x = x
            self.y = y
        }
    }

    public var title: [String] = []
    public var flowUnits: EPANETFlowUnits = .gpm
    public var headloss: EPANETHeadloss = .hazenWilliams
    public var junctions: [Junction] = []
    public var reservoirs: [Reservoir] = []
    public var tanks: [Tank] = []
    public var pipes: [Pipe] = []
    public var pumps: [Pump] = []
    public var valves: [Valve] = []
    /// Node positions (`[COORDINATES]`), by node id.
    public var coordinates: [String: Coordinate] = [:]
    /// The interior vertices of links (`[VERTICES]`), by link id, in order.
    public var vertices: [String: [Coordinate]] = [:]
    /// `[TAGS]`: a category per node or link id.
    public var nodeTags: [String: String] = [:]
    public var linkTags: [String: String] = [:]

    public init() {}

    /// Every node id, junctions then reservoirs then tanks, in file order.
    public var nodeIDs: [String] { junctions.map(\.id) + reservoirs.map(\.id) + tanks.map(\.id) }

    /// Every link as (id, node1, node2), pipes then pumps then valves, in file order.
    public var links: [(id: String, node1: String, node2: String)] {
        pipes.map { ($0.id, $0.node1, $0.node2) } + pumps.map { ($0.id, $0.node1, $0.node2) } + valves.map { ($0.id, $0.node1, $0.node2) }
    }
}
