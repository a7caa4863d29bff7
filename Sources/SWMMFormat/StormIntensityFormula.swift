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

    /// Wuhan's classic design-manual formula q = 983(1 + 0.65 lg P)/(t + 4)^0.56, i.e. 167·A₁ = 983:
    /// the `wuhan-manual` entry of `Models/storm-intensity.json` (a test holds the two equal).
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

    /// One entry of a parameter file in `Models/` (`storm-intensity.json`).
    public struct CatalogEntry: Decodable, Sendable {
        public struct Check: Decodable, Sendable {
            public var returnPeriod: Double
            public var duration: Double
            /// Expected q in L/(s·hm²).
            public var q: Double
            enum CodingKeys: String, CodingKey { case returnPeriod = "return_period_a", duration = "duration_min", q }
        }
        public var id: String
        public var city: String
        public var verified: Bool
        public var source: String
        public var checks: [Check]
        public var formula: StormIntensityFormula

        enum CodingKeys: String, CodingKey { case id, city, verified, source, checks, a1 = "a1_mm_per_min", c, b = "b_min", n }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            id = try c.decode(String.self, forKey: .id)
            city = try c.decode(String.self, forKey: .city)
            verified = try c.decode(Bool.self, forKey: .verified)
            source = try c.decode(String.self, forKey: .source)
            checks = try c.decodeIfPresent([Check].self, forKey: .checks) ?? []
            formula = StormIntensityFormula(a1: try c.decode(Double.self, forKey: .a1), c: try c.decode(Double.self, forKey: .c),
                                            b: try c.decode(Double.self, forKey: .b), n: try c.decode(Double.self, forKey: .n))
        }
    }

    /// The parameter sets of a storm-intensity file (`Models/storm-intensity.json`), by id.
    public static func catalog(at url: URL) throws -> [String: CatalogEntry] {
        struct File: Decodable { var formulas: [CatalogEntry] }
        let file = try JSONDecoder().decode(File.self, from: Data(contentsOf: url))
        return Dictionary(file.formulas.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }
}
