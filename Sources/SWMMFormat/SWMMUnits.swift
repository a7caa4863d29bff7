import Foundation

/// The flow units of a SWMM model (`[OPTIONS] FLOW_UNITS`). CFS, GPM and MGD make the whole model
/// US customary (feet, acres, inches); CMS, LPS and MLD make it SI (metres, hectares, millimetres).
public enum SWMMFlowUnits: String, Sendable, CaseIterable, Hashable {
    case cfs = "CFS", gpm = "GPM", mgd = "MGD", cms = "CMS", lps = "LPS", mld = "MLD"

    /// True for CFS, GPM and MGD.
    public var isUS: Bool { self == .cfs || self == .gpm || self == .mgd }

    /// m³/s per one unit of this flow.
    public var cubicMetresPerSecond: Double {
        switch self {
        case .cfs: return 0.028316846592
        case .gpm: return 0.028316846592 / 448.831
        case .mgd: return 0.028316846592 * 1.547229
        case .cms: return 1
        case .lps: return 0.001
        case .mld: return 1.0 / 86.4
        }
    }

    /// The SI conversion factors that go with these flow units.
    public var units: SWMMUnits { SWMMUnits(flow: self) }
}

/// Factors that turn the values of a SWMM model into SI: multiply a file value by the factor.
public struct SWMMUnits: Sendable, Hashable {
    public var flow: SWMMFlowUnits

    public init(flow: SWMMFlowUnits) { self.flow = flow }

    /// Metres per file length unit (elevations, depths, lengths, widths): 0.3048 (ft) or 1 (m).
    public var length: Double { flow.isUS ? 0.3048 : 1 }
    /// m² per file land-area unit: 4046.8564224 (acre) or 10 000 (hectare).
    public var landArea: Double { flow.isUS ? 4046.8564224 : 10_000 }
    /// m² per file surface-area unit of nodes (ft² or m²).
    public var area: Double { length * length }
    /// m³ per file volume unit (ft³ or m³).
    public var volume: Double { length * length * length }
    /// m³/s per file flow unit.
    public var flowRate: Double { flow.cubicMetresPerSecond }
    /// Metres per file rain-depth unit (inches or millimetres): depression storage, rain depth,
    /// Green-Ampt suction head, Horton's maximum volume.
    public var rainDepth: Double { flow.isUS ? 0.0254 : 0.001 }
    /// m/s per file rain-rate unit (in/h or mm/h): rainfall intensity, infiltration rates, conductivity.
    public var rainRate: Double { rainDepth / 3600 }
    /// m/s per file evaporation-rate unit (in/day or mm/day).
    public var evaporationRate: Double { rainDepth / 86_400 }
}
