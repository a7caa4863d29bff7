import Foundation
import GeoCore
import Logging
import Parking
import Scenarios
import Sensing
import TwinStore

/// The parking capability's live upkeep, shared by the routes that read or write its layers: the
/// live view (`ParkingLiveService`) brought up to date, writes to the parking layers checked, and
/// SensorThings readings of a lot recorded as its occupancy.
struct ParkingUpkeep: Sendable {
    let store: any FeatureStore
    /// The live view and its push feed (`/parking/events`).
    let live: ParkingLiveService
    /// Told when the view changed, so tiles of its layer are drawn again.
    let tiles: TileService
    let logger: Logger

    /// The view brought up to date before a read of one of its layers, or after a write to a source.
    /// A refresh that fails leaves the store's answer as it is (a stale feed still shows unknown on
    /// the next successful refresh); the failure is logged.
    func catchUp(_ layers: [String]) async {
        guard layers.contains(where: ParkingLiveService.concerns) else { return }
        do {
            if try await live.catchUp() { tiles.noteLocalWrite() }
        } catch {
            logger.warning("parking view refresh failed", metadata: ["error": .string(String(describing: error))])
        }
    }

    /// Refuses what the parking layers cannot take before it is written: a hand edit of the computed
    /// `parking_availability` (403: write observations to `parking_occupancy`), and an observation
    /// of a lot `parking_lots` does not hold or with an unreadable time (400 naming the property).
    /// A count above the lot's capacity is kept as sent and shown clipped to full, flagged
    /// `reading_flag: above-capacity`; a negative count is refused by the layer's schema (minimum 0).
    func checkWrite(_ layer: LayerDefinition, _ feature: Feature?) async throws {
        if layer.id == ParkingLiveView.layer {
            throw Problem(.forbidden, "'\(layer.id)' is a live view computed from parking_lots and parking_occupancy: write occupancy observations to parking_occupancy")
        }
        guard layer.id == StoreParkingOccupancy.layer, let feature else { return }
        if let lot = feature.properties["lot"]?.stringValue, try await store.feature(layer: StoreParkingLot.layer, id: lot, by: .admin) == nil {
            throw Problem(.invalidFeature, "$.properties.lot: no parking lot '\(lot)' in parking_lots", parameter: "lot", position: "$.properties.lot")
        }
        if let t = feature.properties["observed_at"]?.stringValue, StoreParkingOccupancy.localTime(iso: t) == nil {
            throw Problem(.invalidFeature, "$.properties.observed_at: '\(t)' is not an ISO 8601 time (YYYY-MM-DDTHH:MM:SS with Z or an offset)",
                          parameter: "observed_at", position: "$.properties.observed_at")
        }
    }

    /// Readings of a SensorThings Datastream whose `properties.parking_lot` names a lot are that lot's
    /// occupancy (vehicles present): they are recorded in `parking_occupancy` (source 传感接口, cleaned
    /// as every path cleans them: an unknown lot or a negative count left out and counted, above
    /// capacity clipped) and the view and the screens brought up to date in the same request. Readings
    /// the writer withdrew (deleted, or moved to another instant: `STAWriter.withdrawn`) end their rows
    /// first. A recording the caller may not write is logged, not silently dropped.
    func recordReadings(_ writer: STAWriter, sensing: any SensingStore, by caller: Caller) async {
        let change = writer.change
        var lotOf: [Int64: String?] = [:]
        var observations: [(lot: String, at: Date, occupied: Int)] = []
        // Readings deleted, or moved to another instant: their rows end first (a corrected one is written again below).
        let withdrawn = writer.withdrawn.compactMap { old, properties -> (lot: String, at: Date)? in
            properties?["parking_lot"]?.stringValue.map { ($0, Date(timeIntervalSince1970: Double(old.phenomenonStart) / 1e6)) }
        }
        do {
            for o in change.observations + change.observationUpdates {
                if lotOf[o.datastream] == nil {
                    let stream = try await sensing.sensingEntity(.datastream, id: o.datastream)
                    lotOf[o.datastream] = .some(stream?.body["properties"]?["parking_lot"]?.stringValue)
                }
                guard let lot = lotOf[o.datastream] ?? nil, let value = o.result.doubleValue, value.isFinite else { continue }
                observations.append((lot, Date(timeIntervalSince1970: Double(o.phenomenonStart) / 1e6), Int(value.rounded())))
            }
            if !withdrawn.isEmpty, try await StoreParkingOccupancy.withdraw(readings: withdrawn, from: store, by: caller) > 0, observations.isEmpty {
                await catchUp([StoreParkingOccupancy.layer])
            }
            guard !observations.isEmpty else { return }
            let report = try await StoreParkingOccupancy.record(readings: observations, into: store, by: caller)
            if report.cleaning.rejectedUnknownLot + report.cleaning.rejectedNegative > 0 {
                logger.warning("parking readings left out", metadata: [
                    "unknown_lots": .string(report.cleaning.unknownLots.joined(separator: ",")),
                    "negative": .string(String(report.cleaning.rejectedNegative))])
            }
            await catchUp([StoreParkingOccupancy.layer])
        } catch {
            logger.warning("parking readings from SensorThings not recorded", metadata: ["error": .string(String(describing: error))])
        }
    }
}
