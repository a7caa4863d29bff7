import Foundation

/// The newest quality summary of each layer, for the catalogue (a collection's metadata): kept
/// with the layer's last change when it was checked, and given only while the layer is unchanged
/// since (a summary of data that has changed would mislead).
public final class QualityLedger: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String: (lastChange: Int64, summary: QualitySummary)] = [:]

    public init() {}

    /// Records the summary of `report`.
    public func record(_ report: QualityReport) {
        lock.withLock { entries[report.collection] = (report.lastChange, report.summary) }
    }

    /// The summary of `layer` if it was checked at its current last change.
    public func summary(of layer: String, lastChange: Int64) -> QualitySummary? {
        lock.withLock { entries[layer].flatMap { $0.lastChange == lastChange ? $0.summary : nil } }
    }
}
