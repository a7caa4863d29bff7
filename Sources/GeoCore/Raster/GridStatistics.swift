/// Summary of a grid's valid cells (no-data and NaN cells skipped), as `gdalinfo -stats` reports
/// them: values are in the grid's value unit (metres for a DEM).
public struct GridStatistics: Hashable, Sendable {
    /// Number of valid cells (at least 1).
    public var count: Int
    public var minimum: Float
    public var maximum: Float
    /// Arithmetic mean, accumulated in Double.
    public var mean: Double
    /// Population standard deviation (divides by `count`, as GDAL's `STATISTICS_STDDEV`).
    public var standardDeviation: Double

    public init(count: Int, minimum: Float, maximum: Float, mean: Double, standardDeviation: Double) {
        self.count = count
        self.minimum = minimum
        self.maximum = maximum
        self.mean = mean
        self.standardDeviation = standardDeviation
    }
}

extension Grid {
    /// Minimum, maximum, mean, standard deviation and count of the valid cells, or `nil` when
    /// no cell is valid (an empty grid or one that is all no-data). Two passes over the values,
    /// so the deviation stays exact for high DEM values with small relief.
    public var statistics: GridStatistics? {
        values.withUnsafeBufferPointer { buffer -> GridStatistics? in
            let noData = self.noData ?? .nan   // NaN never compares equal: no sentinel.
            var count = 0
            var minimum = Float.infinity, maximum = -Float.infinity
            var sum = 0.0
            for v in buffer where !v.isNaN && v != noData {
                count += 1
                if v < minimum { minimum = v }
                if v > maximum { maximum = v }
                sum += Double(v)
            }
            guard count > 0 else { return nil }
            let mean = sum / Double(count)
            var squares = 0.0
            for v in buffer where !v.isNaN && v != noData {
                let d = Double(v) - mean
                squares += d * d
            }
            return GridStatistics(count: count, minimum: minimum, maximum: maximum, mean: mean,
                                  standardDeviation: (squares / Double(count)).squareRoot())
        }
    }
}
