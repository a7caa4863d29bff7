import Foundation
import GeoCore
import Hummingbird
import Parking
import Scenarios
import Sensing
import TwinStore

extension CityTwinServer {
    /// `/parking/coverage`: the 70 % smart-parking indicator; `/parking/events`: the live guidance.
    var parkingOperations: [APIOperation] {
        [
            APIOperation(
                id: "getParkingCoverage", method: .get, path: "/parking/coverage",
                summary: "Smart-parking coverage (Wuhan indicator 29, target 70 %): the share of public berths (公共 lots and 道路泊位) with live detection, for the whole inventory and per administrative division.",
                tag: "Data", parameters: [],
                responses: [.ok("public_berths, detected_berths, share, target, meets_target, and divisions [{code, name, level, lots, …}].",
                                [(MediaTypeName.json, "ParkingCoverage")]),
                            .problem(404, "No parking_lots layer the caller may read.")] + APIResponse.standardProblems
            ) { [self] _, context, _ in
                _ = try await layers.definition(StoreParkingLot.layer, for: context.caller)
                let lots = try await StoreParkingLot.load(from: store, by: context.caller)
                var answer = Representation.json(try await SmartParkingCoverage.json(lots, from: store, by: context.caller))
                answer.headers[.cacheControl] = "no-cache"
                return answer
            },
            APIOperation(
                id: "getParkingEvents", method: .get, path: "/parking/events",
                summary: "Parking guidance as Server-Sent Events for guidance screens and apps: the current signs and lots first, then every change.",
                tag: "Data", parameters: [],
                responses: [.ok("Server-Sent Events until the client disconnects: `sign` (a parking_guidance_signs feature with its new content) and `availability` (a parking_availability feature), a comment as heartbeat every 15 s.",
                                [("text/event-stream", "ParkingEvents")]),
                            .problem(404, "Neither parking_guidance_signs nor parking_availability is a collection the caller may read.")]
                    + APIResponse.standardProblems
            ) { [self] _, context, _ in
                await parkingCatchUp([ParkingLiveView.layer])
                let signs = try await store.layerDefinition(ParkingLiveView.signsLayer, for: context.caller) != nil
                let lots = try await store.layerDefinition(ParkingLiveView.layer, for: context.caller) != nil
                guard signs || lots else {
                    throw Problem(.collectionNotFound, "no collection '\(ParkingLiveView.signsLayer)' or '\(ParkingLiveView.layer)' this caller may read")
                }
                return try await parkingEvents(caller: context.caller, signs: signs, lots: lots)
            },
        ]
    }

    /// The view brought up to date before a read of one of its layers, or after a write to a source.
    /// A refresh that fails leaves the store's answer as it is (a stale feed still shows unknown on
    /// the next successful refresh); the failure is logged.
    func parkingCatchUp(_ layers: [String]) async {
        guard layers.contains(where: ParkingLiveService.concerns) else { return }
        do {
            if try await parkingLive.catchUp() { tileService.noteLocalWrite() }
        } catch {
            options.logger.warning("parking view refresh failed", metadata: ["error": .string(String(describing: error))])
        }
    }

    /// `event: sign` (a `parking_guidance_signs` feature with its new `content`) and `event: availability`
    /// (a `parking_availability` feature) for every change from the moment of subscription, after the
    /// current state of each; a comment line as heartbeat every 15 s.
    private func parkingEvents(caller: Caller, signs: Bool, lots: Bool) async throws -> Representation {
        let stream = parkingLive.feed.subscribe()
        let onWrite: @Sendable () -> Void = { [tileService] in tileService.noteLocalWrite() }
        await parkingLive.follow(onWrite: onWrite)
        var current: [Feature] = []
        for (layer, wanted) in [(ParkingLiveView.signsLayer, signs), (ParkingLiveView.layer, lots)] where wanted {
            current += try await store.query(layer: layer, FeatureQuery(limit: 2000), by: caller).features
        }
        let snapshot = current
        return Self.eventStream(stream, banner: "CityTwin parking guidance", initial: snapshot) { feature in
            let sign = feature.properties["content"] != nil
            guard sign ? signs : lots else { return nil }
            return sign ? "sign" : "availability"
        }
    }

    /// A Server-Sent Events response of `stream`: `initial` first, then one event per feature (named by
    /// `event`; nil skips it) and a comment line per heartbeat, until the client disconnects. The
    /// headers are those of every event stream (`Representation.eventStream`: private, never stored,
    /// not buffered by a proxy).
    static func eventStream(_ stream: AsyncStream<Feature?>, banner: String, initial: [Feature] = [],
                            event: @escaping @Sendable (Feature) -> String?) -> Representation {
        Representation.eventStream(ResponseBody { writer in
            try await writer.write(ByteBuffer(string: ": \(banner)\n\n"))
            func send(_ feature: Feature) async throws {
                guard let name = event(feature) else { return }
                let data = String(decoding: GeoJSON.encode(feature), as: UTF8.self)
                try await writer.write(ByteBuffer(string: "event: \(name)\nid: \(feature.id?.description ?? "")\ndata: \(data)\n\n"))
            }
            for f in initial { try await send(f) }
            for await item in stream {
                guard let feature = item else {
                    try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
                    continue
                }
                try await send(feature)
            }
            try await writer.finish(nil)
        })
    }
}

extension CityTwinServer {
    /// Refuses what the parking layers cannot take before it is written: a hand edit of the computed
    /// `parking_availability` (403: write observations to `parking_occupancy`), and an observation
    /// of a lot `parking_lots` does not hold or with an unreadable time (400 naming the property).
    /// A count above the lot's capacity is kept as sent and shown clipped to full, flagged
    /// `reading_flag: above-capacity`; a negative count is refused by the layer's schema (minimum 0).
    func checkParkingWrite(_ layer: LayerDefinition, _ feature: Feature?) async throws {
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
}

extension CityTwinServer {
    /// Readings of a SensorThings Datastream whose `properties.parking_lot` names a lot are that lot's
    /// occupancy (vehicles present): they are recorded in `parking_occupancy` (source 传感接口, cleaned
    /// as every path cleans them: an unknown lot or a negative count left out and counted, above
    /// capacity clipped) and the view and the screens brought up to date in the same request. Readings
    /// the writer withdrew (deleted, or moved to another instant: `STAWriter.withdrawn`) end their rows
    /// first. A recording the caller may not write is logged, not silently dropped.
    func recordParkingReadings(_ writer: STAWriter, sensing: any SensingStore, by caller: Caller) async {
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
                await parkingCatchUp([StoreParkingOccupancy.layer])
            }
            guard !observations.isEmpty else { return }
            let report = try await StoreParkingOccupancy.record(readings: observations, into: store, by: caller)
            if report.cleaning.rejectedUnknownLot + report.cleaning.rejectedNegative > 0 {
                options.logger.warning("parking readings left out", metadata: [
                    "unknown_lots": .string(report.cleaning.unknownLots.joined(separator: ",")),
                    "negative": .string(String(report.cleaning.rejectedNegative))])
            }
            await parkingCatchUp([StoreParkingOccupancy.layer])
        } catch {
            options.logger.warning("parking readings from SensorThings not recorded", metadata: ["error": .string(String(describing: error))])
        }
    }
}
