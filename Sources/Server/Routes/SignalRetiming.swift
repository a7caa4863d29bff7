import CityModel
import Foundation
import GeoCore
import Logging
import ProcessRuntime
import Signals
import TwinStore

/// Adaptive signal control (`ServerOptions.signalRetiming`): a running plan stepped from live counts,
/// wherever they arrive (SensorThings readings, rows written through the features API).
struct SignalRetiming: Sendable {
    let store: any FeatureStore
    /// The re-timing method; `nil`: plans are not re-timed from live counts.
    let method: SignalPlanning.Retiming?
    let processes: ProcessRegistry
    let writeLocks: FeatureWriteLocks
    let localWrites: LocalWrites
    let logger: Logger

    /// Adaptive control (`ServerOptions.signalRetiming`): each intersection whose newest whole interval
    /// `counts` wrote (intersection and local start of each reading or row, from the SensorThings feed
    /// or the features API; normally the one that made it whole) takes one bounded re-timing step of
    /// its running plan, by the `signal-timing` process as `citytwin signal plan --method … --write`
    /// takes it, under the sender (the counts' owner also owns the plans). Once per interval: the plan
    /// keeps the counted day and time it was re-timed at (`inputs.retimed_at`), so a reading of that
    /// interval sent again or corrected later takes no second step (the process's `once`, checked
    /// against the plan as stored when the step is written, so it holds across server processes).
    /// A failure (no stored plan, a caller who may not write plans) is logged; the counts stay written.
    func retime(after counts: [(intersection: String, start: String)], by caller: Caller) async {
        guard let method = method, !counts.isEmpty, let process = processes["signal-timing"] else { return }
        for id in Set(counts.map(\.intersection)).sorted() {
            do {
                let stepped = try await writeLocks.withLock("\(SignalPlanLayer.layer)/\(id)/retiming") { [store, processes, logger] () -> Bool in
                    guard let at = try await TrafficCountIngest.newestIntervalWritten(at: id, by: counts, in: store, by: caller) else { return false }
                    // `once`: a plan already re-timed from this interval (by this process or another
                    // one on the store) takes no second step; the step is written only if the plan it
                    // stepped from is still stored as read.
                    let output = try await processes.run(process.id, inputs: ["intersections": [.string(id)], "method": .string(method.rawValue),
                                                                                  "write": true, "once": true],
                                                        caller: caller, store: store)
                    guard case .array(let written)? = output["written"], !written.isEmpty else { return false }
                    logger.info("signal re-timed from live counts", metadata: ["intersection": .string(id), "at": .string(at), "method": .string(method.rawValue)])
                    return true
                }
                if stepped { localWrites.note() }
            } catch {
                logger.warning("signal not re-timed from live counts", metadata: ["intersection": .string(id), "error": .string(String(describing: error))])
            }
        }
    }

    /// Adaptive control after a write of the features API: a `traffic_counts` row written by hand or by a
    /// counting system that writes rows (`retime(after:by:)`).
    func retime(afterWriting feature: Feature, to layer: String, by caller: Caller) async {
        guard layer == SignalizedIntersection.countsLayer, method != nil,
              let intersection = feature.properties["intersection"]?.stringValue, let start = feature.properties["start"]?.stringValue else { return }
        await retime(after: [(intersection, start)], by: caller)
    }
}
