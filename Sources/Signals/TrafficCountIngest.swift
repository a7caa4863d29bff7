import CityModel
import Foundation
import GeoCore
import SignalSim
import TwinStore

/// What a SensorThings write of traffic counts means for the counts layer, without HTTP: which of
/// the written Observations are readings of a bound Datastream (`TrafficCountStream`), which
/// readings SensorThings still holds for rows a withdrawn reading was in, and whether a write made
/// an intersection's newest interval whole (adaptive control re-times from it). The SensorThings
/// route records with these (Server's TrafficCountRecording); a test or another feed may call them directly.
public enum TrafficCountIngest {
    /// The readings among `written` Observations whose Datastream is bound to a movement (each
    /// Datastream's binding read once), as the counts layer records them. Readings that are no
    /// count over an interval of whole minutes were refused before the write and are passed over.
    public static func readings(of written: [SensingObservation], in sensing: any SensingStore) async throws -> [TrafficCountFeed.Reading] {
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
        return readings
    }

    /// The readings SensorThings still holds for the rows `withdrawn` readings were in: every
    /// Datastream bound to the same intersection and approach, over the same interval.
    public static func readingsHeld(over withdrawn: [TrafficCountFeed.Reading], in sensing: any SensingStore) async throws -> [TrafficCountFeed.Reading] {
        guard !withdrawn.isEmpty else { return [] }
        let arms = Dictionary(grouping: withdrawn) { "\($0.stream.intersection)/\($0.stream.approach)" }
        var held: [TrafficCountFeed.Reading] = []
        for d in try await sensing.sensingEntities(.datastream, linkedBy: nil) {
            guard let stream = TrafficCountStream.bound(by: d.body["properties"]),
                  let taken = arms["\(stream.intersection)/\(stream.approach)"] else { continue }
            for (start, minutes) in Set(taken.map { [$0.start, Int64($0.minutes)] }).map({ ($0[0], Int($0[1])) }) {
                let range = ObservationRange(datastream: d.id, from: start, to: start + 1, limit: 1, fields: [.phenomenonEnd, .result])
                guard let o = try await sensing.observations(range).first, case .integer(let n) = o.result,
                      (try? TrafficCountStream.checkReading(result: o.result, start: o.phenomenonStart, end: o.phenomenonEnd)) == minutes else { continue }
                held.append(.init(stream: stream, start: start, minutes: minutes, count: Int(n)))
            }
        }
        return held
    }

    /// The end of intersection `intersection`'s newest whole interval of counts (local date-time
    /// `2026-11-25T08:15`) when one of `counts` (intersection and local start of each reading or
    /// row written) is that interval; `nil` when the intersection is unknown or the write made no
    /// newest interval (a backfill, a reading of an interval not yet whole).
    public static func newestIntervalWritten(at intersection: String, by counts: [(intersection: String, start: String)],
                                             in store: any FeatureStore, by caller: Caller) async throws -> String? {
        guard let found = try await SignalizedIntersection.load(id: intersection, from: store, by: caller) else { return nil }
        let read = try await found.counts(from: store, day: .latest, by: caller)
        guard let day = read.day, let last = read.intervals.map(\.start).max() else { return nil }
        let newest = "\(day)T\(TimeOfDayPeriod.clock(last))"
        guard counts.contains(where: { $0.intersection == intersection && $0.start.hasPrefix(newest) }) else { return nil }
        return "\(day)T\(TimeOfDayPeriod.clock(last + read.minutes))"
    }
}
