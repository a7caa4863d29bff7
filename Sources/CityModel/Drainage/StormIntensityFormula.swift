import Foundation

/// A Chinese storm-intensity formula (暴雨强度公式), q = 167·A₁(1 + C·lg P)/(t + b)ⁿ, with q in
/// L/(s·hm²), P the return period in years and t the rainfall duration in minutes
/// (`shared/reference/flood.md` §2.1).
public struct StormIntensityFormula: Sendable, Hashable {
    /// A₁ in mm/min.
    public var a1: Double
    public var c: Double
    /// b in minutes.
    public var b: Double
    public var n: Double

    public init(a1: Double, c: Double, b: Double, n: Double) {
        self.a1 = a1
        self.c = c
        self.b = b
        self.n = n
    }

    /// Wuhan's classic design-manual formula q = 983(1 + 0.65 lg P)/(t + 4)^0.56, i.e. 167·A₁ = 983.
    /// Marked **unverified** in `shared/reference/flood.md` §2.2 (the official notice was not
    /// retrieved); used for the sample district's pipe sizing only.
    public static let wuhanManual = StormIntensityFormula(a1: 983.0 / 167.0, c: 0.65, b: 4, n: 0.56)

    /// Design intensity q in L/(s·hm²).
    /// - Parameters:
    ///   - returnPeriod: P in years (> 0).
    ///   - duration: t in minutes (≥ 0).
    public func intensity(returnPeriod: Double, duration: Double) -> Double {
        167 * a1 * (1 + c * log10(returnPeriod)) / pow(duration + b, n)
    }
}
