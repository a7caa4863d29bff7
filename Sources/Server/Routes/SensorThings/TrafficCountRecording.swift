import CityModel
import Foundation
import SignalSim
import TwinStore

/// The live path of traffic counts: readings of a SensorThings Datastream whose
/// `properties.traffic_count` binds it to an intersection's approach and movement are recorded in
/// `traffic_counts` (CityModel's `TrafficCountFeed`), under the name of the caller who sent them.
/// The platform's editors (the owner of `iot_devices`) register the detectors; the counts' owner
/// (公安局) sends their readings: its editors may write Observations of bound Datastreams, and
/// nothing else, to the SensorThings API.
extension CityTwinServer {
    /// A writer of the SensorThings API for `caller`: whatever it is about to write is checked
    /// first. A bound Datastream must name an intersection with a lane group on its approach; its
    /// readings need a caller who may write the counts. `feedOnly`: the caller may not write the
    /// SensorThings API otherwise, so the change may hold only readings of bound Datastreams.
    func staWriter(_ reader: STAReader, caller: Caller, feedOnly: Bool) -> STAWriter {
        let writer = STAWriter(reader: reader, caller: caller, auditLayer: Self.sensorThingsLayer)
        let store = self.store
        writer.beforeCommit = { writer in
            let change = writer.change
            let readings = writer.trafficCountStreams()
            if feedOnly {
                let onlyReadings = change.updates.isEmpty && change.deletes.isEmpty && change.observationDeletes.isEmpty
                    && change.inserts.allSatisfy { $0.kind == .featureOfInterest }
                    && (change.observations + change.observationUpdates).allSatisfy { readings[$0.datastream] != nil }
                guard onlyReadings else {
                    throw Problem(.forbidden, "this caller writes only Observations of Datastreams with properties.\(TrafficCountStream.property) (traffic counts) to the SensorThings API; anything else needs an editor of the owner of \(Self.sensorThingsLayer) or an admin")
                }
            }
            var declared = Array(readings.values)
            for e in change.inserts + change.updates where e.kind == .datastream {
                if let s = TrafficCountStream.bound(by: e.body["properties"]) { declared.append(s) }
            }
            do {
                try await TrafficCountFeed.checkBindings(declared, store: store)
            } catch let e as SignalTimingError {
                throw STAWriter.invalid(e.field, e.reason)
            }
            if !readings.isEmpty { try await TrafficCountFeed.checkRecorder(caller, store: store) }
        }
        return writer
    }

    /// Whether `caller`, who may not write the SensorThings API, may still send traffic counts to it.
    func mayFeedTrafficCounts(_ caller: Caller) async throws -> Bool {
        guard case .department = caller else { return false }
        return try await TrafficCountFeed.mayRecord(in: store, by: caller) ?? false
    }

    /// Records the readings of bound Datastreams that `change` wrote (checked before it was). Runs
    /// after the SensorThings write: a failure here is logged, the readings stay in SensorThings.
    func recordTrafficCounts(_ change: SensingChange, sensing: any SensingStore, by caller: Caller) async {
        let written = change.observations + change.observationUpdates
        guard !written.isEmpty else { return }
        do {
            var streams: [Int64: TrafficCountStream?] = [:]
            var readings: [TrafficCountFeed.Reading] = []
            for o in written {
                if streams[o.datastream] == nil {
                    let body = try await sensing.sensingEntity(.datastream, id: o.datastream)?.body["properties"]
                    streams[o.datastream] = .some(TrafficCountStream.bound(by: body))
                }
                // Checked before the write: a count over an interval of whole minutes.
                guard let stream = streams[o.datastream] ?? nil, case .integer(let n) = o.result,
                      let minutes = try? TrafficCountStream.checkReading(result: o.result, start: o.phenomenonStart, end: o.phenomenonEnd) else { continue }
                readings.append(.init(stream: stream, start: o.phenomenonStart, minutes: minutes, count: Int(n)))
            }
            guard !readings.isEmpty else { return }
            // One feed writer at a time here: a row gathers the movements that separate requests send.
            try await writeLocks.withLock("\(SignalizedIntersection.countsLayer)/feed") { [store, readings] in
                try await TrafficCountFeed.record(readings, into: store, by: caller)
            }
            noteLocalWrite()
        } catch {
            options.logger.error("traffic counts from SensorThings not recorded", metadata: ["error": .string(String(describing: error))])
        }
    }
}
