import CityModel
import Foundation
import GeoCore
import Logging
import ProcessRuntime
import Signals
import TwinStore

/// The live path of traffic counts: readings of a SensorThings Datastream whose
/// `properties.traffic_count` binds it to an intersection's approach and movement are recorded in
/// `traffic_counts` (CityModel's `TrafficCountFeed`), under the name of the caller who sent them.
/// The platform's editors (the owner of `iot_devices`) register the detectors; the counts' owner
/// (公安局) sends their readings: its editors may write Observations of bound Datastreams, and
/// nothing else, to the SensorThings API.
struct TrafficCountRecording: Sendable {
    let store: any FeatureStore
    let writeLocks: FeatureWriteLocks
    let localWrites: LocalWrites
    /// The re-timing step the recorded counts may take.
    let retiming: SignalRetiming
    let logger: Logger

    /// A writer of the SensorThings API for `caller`: whatever it is about to write is checked
    /// first. A bound Datastream must name an intersection with a lane group on its approach; its
    /// readings need a caller who may write the counts. `feedOnly`: the caller may not write the
    /// SensorThings API otherwise, so the change may hold only readings of bound Datastreams.
    func staWriter(_ reader: STAReader, caller: Caller, feedOnly: Bool) -> STAWriter {
        let writer = STAWriter(reader: reader, caller: caller, auditLayer: SensorThingsRoutes.sensorThingsLayer)
        let store = self.store
        writer.beforeCommit = { writer in
            let change = writer.change
            let readings = writer.trafficCountStreams()
            let withdrawn = writer.withdrawnTrafficCounts()
            if feedOnly {
                let taken = Set(withdrawn.map(\.observation))
                let onlyReadings = change.updates.isEmpty && change.deletes.isEmpty && change.observationDeletes.allSatisfy(taken.contains)
                    && change.inserts.allSatisfy { $0.kind == .featureOfInterest }
                    && (change.observations + change.observationUpdates).allSatisfy { readings[$0.datastream] != nil }
                guard onlyReadings else {
                    throw Problem(.forbidden, "this caller writes only Observations of Datastreams with properties.\(TrafficCountStream.property) (traffic counts) to the SensorThings API; anything else needs an editor of the owner of \(SensorThingsRoutes.sensorThingsLayer) or an admin")
                }
            }
            var declared = Array(readings.values)
            for e in change.inserts + change.updates where e.kind == .datastream {
                if let s = TrafficCountStream.bound(by: e.body["properties"]) { declared.append(s) }
            }
            try await Self.checkBindingsKept(change, store: writer.store)
            do {
                try await TrafficCountFeed.checkBindings(declared, store: store)
            } catch let e as any InputFailure {
                throw STAWriter.invalid(e.failedInput, e.failureReason)
            }
            if !readings.isEmpty || !withdrawn.isEmpty { try await TrafficCountFeed.checkRecorder(caller, store: store) }
        }
        return writer
    }

    /// Whether `caller`, who may not write the SensorThings API, may still send traffic counts to it.
    func mayFeed(_ caller: Caller) async throws -> Bool {
        guard case .department = caller else { return false }
        return try await TrafficCountFeed.mayRecord(in: store, by: caller) ?? false
    }

    /// A Datastream with readings keeps its binding: its readings were recorded as the counts of the
    /// movement it named (or checked as none), so re-binding it would leave them where they are.
    /// - Throws: 409 naming `$.properties.traffic_count`.
    static func checkBindingsKept(_ change: SensingChange, store: any SensingStore) async throws {
        for e in change.updates where e.kind == .datastream {
            let before = TrafficCountStream.bound(by: try await store.sensingEntity(.datastream, id: e.id)?.body["properties"])
            guard before != TrafficCountStream.bound(by: e.body["properties"]) else { continue }
            let n = try await store.observationCount(ObservationRange(datastream: e.id))
            guard n == 0 else {
                let was = before.map { "counts \($0.intersection) \($0.approach) \($0.movement)" } ?? "counts no traffic"
                throw Problem(.conflict, "$.properties.\(TrafficCountStream.property): Datastream \(e.id) \(was) and has \(n) Observations, which keep the binding they were sent under; register a new Datastream for the new binding (and delete this one's Observations, or the Datastream, to take its readings back)",
                              parameter: TrafficCountStream.property, position: "$.properties.\(TrafficCountStream.property)")
            }
        }
    }

    /// Records in `traffic_counts` the readings of bound Datastreams that the writer's change wrote,
    /// and takes back those it withdrew (both checked before the write). Runs after the SensorThings
    /// write: a failure here is logged, the readings stay in SensorThings.
    func record(_ writer: STAWriter, sensing: any SensingStore, by caller: Caller) async {
        let written = writer.change.observations + writer.change.observationUpdates
        let withdrawn = writer.withdrawnTrafficCounts().map(\.reading)
        guard !written.isEmpty || !withdrawn.isEmpty else { return }
        do {
            let readings = try await TrafficCountIngest.readings(of: written, in: sensing)
            guard !readings.isEmpty || !withdrawn.isEmpty else { return }
            let remaining = try await TrafficCountIngest.readingsHeld(over: withdrawn, in: sensing)
            // One feed writer at a time in this process; the rows' conditional writes keep what other
            // processes on the store count into the same rows (`TrafficCountFeed.record`).
            try await writeLocks.withLock("\(SignalizedIntersection.countsLayer)/feed") { [store, readings] in
                try await TrafficCountFeed.withdraw(withdrawn, remaining: remaining, from: store, by: caller)
                try await TrafficCountFeed.record(readings, into: store, by: caller)
            }
            localWrites.note()
            await retiming.retime(after: readings.map { ($0.stream.intersection, TrafficCountFeed.localStart($0.start)) }, by: caller)
        } catch {
            logger.error("traffic counts from SensorThings not recorded", metadata: ["error": .string(String(describing: error))])
        }
    }
}
