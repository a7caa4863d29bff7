import GeoCore

/// Rain falling on the surface grid (rain on grid): a hyetograph of intensities held constant
/// over each interval, optionally scaled per cell (a radar pattern or a partial storm).
///
/// Interval `i` runs from `startTimes[i]` to `startTimes[i + 1]` (seconds from the start of the
/// run); the last intensity holds until the end of the run, so end a storm with a zero interval.
/// Before the first start time there is no rain. Rain on building cells is not added to the
/// surface (roofs drain through downpipes, which a caller models as point sources).
public struct SurfaceRainfall: Sendable {
    /// Start of each interval in seconds, strictly increasing.
    public let startTimes: [Double]
    /// Intensity over each interval in mm/h (≥ 0).
    public let intensities: [Double]
    /// Per-cell multiplier of the intensity (≥ 0), same size as the elevation grid, or `nil` for
    /// uniform rain. No-data cells get no rain.
    public let cellWeights: Grid?

    /// No rain.
    public static let none = SurfaceRainfall(uncheckedStartTimes: [0], intensities: [0], cellWeights: nil)

    /// Uniform rain of constant `intensity` mm/h from time 0.
    public static func constant(_ intensity: Double) -> SurfaceRainfall {
        SurfaceRainfall(uncheckedStartTimes: [0], intensities: [Swift.max(0, intensity)], cellWeights: nil)
    }

    /// - Throws: `FloodInputError` when the arrays are empty or of different
    ///   lengths, an intensity is negative or not finite, the times do not increase strictly, or a
    ///   weight is negative.
    public init(startTimes: [Double], intensities: [Double], cellWeights: Grid? = nil) throws {
        guard !startTimes.isEmpty, startTimes.count == intensities.count else {
            throw FloodInputError(
                                "a hyetograph needs one intensity per interval, got \(startTimes.count) start times and \(intensities.count) intensities")
        }
        for i in startTimes.indices {
            guard startTimes[i].isFinite, intensities[i].isFinite, intensities[i] >= 0 else {
                throw FloodInputError("rain intensity must be finite and ≥ 0 mm/h",
                                    field: "interval \(i)")
            }
            if i > 0, startTimes[i] <= startTimes[i - 1] {
                throw FloodInputError("hyetograph start times must increase strictly",
                                    field: "interval \(i)")
            }
        }
        if let cellWeights {
            for (i, w) in cellWeights.values.enumerated() where cellWeights.isValid(w) && w < 0 {
                throw FloodInputError("rain weight must be ≥ 0",
                                    field: "cell (\(i % cellWeights.width), \(i / cellWeights.width))")
            }
        }
        self.init(uncheckedStartTimes: startTimes, intensities: intensities, cellWeights: cellWeights)
    }

    init(uncheckedStartTimes: [Double], intensities: [Double], cellWeights: Grid?) {
        self.startTimes = uncheckedStartTimes
        self.intensities = intensities
        self.cellWeights = cellWeights
    }

    /// Rain depth in metres (before cell weights) falling between `start` and `end` seconds:
    /// the exact integral of the hyetograph, so a step that spans an interval change is correct.
    public func depth(from start: Double, to end: Double) -> Double {
        guard end > start else { return 0 }
        var total = 0.0
        for i in startTimes.indices {
            let a = Swift.max(start, startTimes[i])
            let b = Swift.min(end, i + 1 < startTimes.count ? startTimes[i + 1] : end)
            if b > a { total += intensities[i] * (b - a) }
        }
        return total / 3_600_000
    }
}
