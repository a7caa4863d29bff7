/// The flow units of an EPANET model (`[OPTIONS] UNITS`), which also decide the unit system of
/// every other quantity: US customary (feet, inches, psi) for CFS, GPM, MGD, IMGD and AFD; metric
/// (metres, millimetres) for LPS, LPM, MLD, CMH, CMD and CMS (EPANET 2.2 manual, table 3.1).
public enum EPANETFlowUnits: String, Sendable, Hashable, CaseIterable {
    case cfs = "CFS", gpm = "GPM", mgd = "MGD", imgd = "IMGD", afd = "AFD"
    case lps = "LPS", lpm = "LPM", mld = "MLD", cmh = "CMH", cmd = "CMD", cms = "CMS"

    /// Whether the model's lengths are feet and diameters inches.
    public var isUSCustomary: Bool { [.cfs, .gpm, .mgd, .imgd, .afd].contains(self) }

    /// Litres per second in one unit of flow.
    public var litresPerSecond: Double {
        switch self {
        case .cfs: 28.316846592
        case .gpm: 0.0630901964
        case .mgd: 43.812636389
        case .imgd: 52.616782518
        case .afd: 14.276410157
        case .lps: 1
        case .lpm: 1.0 / 60
        case .mld: 1_000_000.0 / 86_400
        case .cmh: 1000.0 / 3600
        case .cmd: 1000.0 / 86_400
        case .cms: 1000
        }
    }

    /// Metres in one unit of length or head (feet or metres).
    var metresPerLength: Double { isUSCustomary ? 0.3048 : 1 }
    /// Millimetres in one unit of pipe diameter (inches or millimetres).
    var millimetresPerDiameter: Double { isUSCustomary ? 25.4 : 1 }
}

/// How the model computes friction losses (`[OPTIONS] HEADLOSS`): the meaning of a pipe's roughness.
public enum EPANETHeadloss: String, Sendable, Hashable, CaseIterable {
    /// Hazen–Williams: roughness is the dimensionless C.
    case hazenWilliams = "H-W"
    /// Darcy–Weisbach: roughness is a height (millifeet or millimetres in the file; millimetres here).
    case darcyWeisbach = "D-W"
    /// Chezy–Manning: roughness is Manning's n.
    case chezyManning = "C-M"
}
