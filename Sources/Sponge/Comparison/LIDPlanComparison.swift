/// Two LID plans (or a plan against the base network) side by side, b against a (difference =
/// b − a): capture rate (percentage points), the design storm's peak flow at the outfalls and
/// flooding volume, and cost (Σ total cost per plan, and the cost per percentage point of
/// capture rate gained). A pure function of the two plans' `LIDPlanMeasures`.
public struct LIDPlanComparison: Sendable, Encodable {
    /// One measure of the summary table.
    public struct Row: Sendable, Encodable, Equatable {
        public var measure: String
        public var unit: String
        public var a: Double?
        public var b: Double?
        public var difference: Double?
    }

    public var a: LIDPlanMeasures
    public var b: LIDPlanMeasures
    public var table: [Row]
    /// Per drainage zone: the capture rates (%) of a and b and their difference (points).
    public var zones: [Row]
    /// Per outfall: the design storm's peak inflow of a and b (m³/s) and its difference.
    public var outfalls: [Row]
    /// (cost b − cost a) / (capture rate b − a in percentage points), 元 per point; nil when b
    /// gains no capture.
    public var costPerPercentagePointYuan: Double?
    public var notes: [String]

    public init(a: LIDPlanMeasures, b: LIDPlanMeasures) {
        self.a = a
        self.b = b
        func row(_ measure: String, _ unit: String, _ x: Double?, _ y: Double?) -> Row {
            Row(measure: measure, unit: unit, a: x, b: y, difference: x.flatMap { x in y.map { $0 - x } })
        }
        let gain = (b.captureRate - a.captureRate) * 100
        let extra = b.summary.totalCostYuan - a.summary.totalCostYuan
        costPerPercentagePointYuan = gain > 0 ? extra / gain : nil
        let peakA = a.peakOutfallFlows.values.max(), peakB = b.peakOutfallFlows.values.max()
        table = [
            row("annual runoff volume capture rate", "%", a.captureRate * 100, b.captureRate * 100),
            row("largest peak flow at an outfall", "m³/s", peakA, peakB),
            row("sum of the outfalls' peak flows", "m³/s", a.peakOutfallFlows.values.reduce(0, +), b.peakOutfallFlows.values.reduce(0, +)),
            row("flooding volume", "m³", a.floodingCubicMetres, b.floodingCubicMetres),
            row("LID facilities", "count", Double(a.summary.facilities), Double(b.summary.facilities)),
            row("LID facility area", "m²", a.summary.areaSquareMetres, b.summary.areaSquareMetres),
            row("total cost", "元", a.summary.totalCostYuan, b.summary.totalCostYuan),
            row("cost per percentage point of capture rate gained", "元/pp", nil, costPerPercentagePointYuan),
        ]
        zones = Set(a.zoneCaptureRates.keys).union(b.zoneCaptureRates.keys).sorted().map {
            row($0, "%", a.zoneCaptureRates[$0].map { $0 * 100 }, b.zoneCaptureRates[$0].map { $0 * 100 })
        }
        outfalls = Set(a.peakOutfallFlows.keys).union(b.peakOutfallFlows.keys).sorted().map {
            row($0, "m³/s", a.peakOutfallFlows[$0], b.peakOutfallFlows[$0])
        }
        notes = []
        if gain <= 0 {
            notes.append(String(format: "plan %@ gains no capture over %@ (%.2f percentage points): no cost per point", b.summary.plan, a.summary.plan, gain))
        }
        for (name, m) in [("a", a), ("b", b)] where !m.summary.uncostedFacilities.isEmpty {
            notes.append("plan \(name) (\(m.summary.plan)): \(m.summary.uncostedFacilities.count) facilities have no cost and count as 0 元: \(m.summary.uncostedFacilities.joined(separator: ", "))")
        }
    }
}
