import Foundation

/// A closed sewer cross-section as surveyed (PSize) and as SWMM's `[XSECTIONS]` names it.
public enum SewerSection: Hashable, Sendable {
    /// CIRCULAR, inside diameter in millimetres.
    case circular(diameter: Int)
    /// RECT_CLOSED box culvert, inside width × height in millimetres.
    case box(width: Int, height: Int)

    /// The design sizes the sample district chooses from, smallest first: circular pipes 300–2000 mm
    /// (GB 50014 minimum for rainwater sewers is 300 mm), then box culverts.
    public static let designSizes: [SewerSection] =
        [300, 400, 500, 600, 800, 1000, 1200, 1350, 1500, 1650, 1800, 2000].map { .circular(diameter: $0) } +
        [(2000, 1500), (2500, 1800), (3000, 2000), (3500, 2200), (4000, 2500), (4500, 3000), (5000, 3000),
         (6000, 3200)].map { .box(width: $0.0, height: $0.1) }

    /// SWMM shape keyword.
    public var shape: String {
        switch self {
        case .circular: "CIRCULAR"
        case .box: "RECT_CLOSED"
        }
    }

    /// Survey PSize text: "600" or "2000X1500".
    public var sizeText: String {
        switch self {
        case .circular(let d): "\(d)"
        case .box(let w, let h): "\(w)X\(h)"
        }
    }

    /// Inside height in metres.
    public var height: Double {
        switch self {
        case .circular(let d): Double(d) / 1000
        case .box(_, let h): Double(h) / 1000
        }
    }

    /// Full-flow area in m².
    public var area: Double {
        switch self {
        case .circular(let d): .pi * pow(Double(d) / 1000, 2) / 4
        case .box(let w, let h): Double(w) * Double(h) / 1e6
        }
    }

    /// Full-flow hydraulic radius in m.
    public var hydraulicRadius: Double {
        switch self {
        case .circular(let d): Double(d) / 4000
        case .box(let w, let h): area / (2 * (Double(w) + Double(h)) / 1000)
        }
    }

    /// Full-pipe Manning capacity in m³/s at invert slope `slope` (m/m) and roughness `manningN`.
    public func fullCapacity(slope: Double, manningN: Double) -> Double {
        area * pow(hydraulicRadius, 2.0 / 3.0) * slope.squareRoot() / manningN
    }

    /// Project design minimum slope (m/m): 0.003 for 300 mm as GB 50014 gives for rainwater sewers,
    /// then roughly 1/D(mm) for larger sizes, never below 0.0005. These are the sample district's
    /// values, not a table from the standard.
    public var minimumSlope: Double {
        let h = Double(height * 1000)
        return max(0.0005, min(0.003, 0.9 / h))
    }

    /// Manning n of the material the sample district lays this size in: HDPE (0.010) up to 500 mm,
    /// reinforced concrete (0.013) above and for box culverts.
    public var material: (name: String, manningN: Double) {
        if case .circular(let d) = self, d <= 500 { return ("HDPE", 0.010) }
        return ("钢筋混凝土", 0.013)
    }
}
