import Foundation
import GeoCore
import Hummingbird
import Parking
import Scenarios
import Sensing
import TwinStore

/// `/parking/coverage`: the 70 % smart-parking indicator; `/parking/events`: the live guidance.
struct ParkingRoutes: OperationCollection {
    let store: any FeatureStore
    let layers: LayerDirectory
    /// The live view and its push feed.
    let parking: ParkingUpkeep
    /// The open event streams (`/parking/events` among them), counted per caller, tokens checked.
    let streams: LiveStreams

    var operations: [APIOperation] {
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
                responses: [.ok("Server-Sent Events until the client disconnects: `sign` (a parking_guidance_signs feature with its new content) and `availability` (a parking_availability feature), a comment as heartbeat every 15 s; a last `error` event (a problem document) when the token that opened the stream is revoked, expires or no longer matches the secret.",
                                [("text/event-stream", "ParkingEvents")]),
                            .problem(404, "Neither parking_guidance_signs nor parking_availability is a collection the caller may read."),
                            .problem(429, "The caller has as many event streams open as it may (--token-streams, --address-streams).")]
                    + APIResponse.standardProblems
            ) { [self] _, context, _ in
                await parking.catchUp([ParkingLiveView.layer])
                let signs = try await store.layerDefinition(ParkingLiveView.signsLayer, for: context.caller) != nil
                let lots = try await store.layerDefinition(ParkingLiveView.layer, for: context.caller) != nil
                guard signs || lots else {
                    throw Problem(.collectionNotFound, "no collection '\(ParkingLiveView.signsLayer)' or '\(ParkingLiveView.layer)' this caller may read")
                }
                let ticket = StreamTicket(try streams.open(context, kind: "parking"), in: streams)
                return try await parkingEvents(caller: context.caller, ticket: ticket, signs: signs, lots: lots)
            },
        ]
    }

    /// `event: sign` (a `parking_guidance_signs` feature with its new `content`) and `event: availability`
    /// (a `parking_availability` feature) for every change from the moment of subscription, after the
    /// current state of each; a comment line as heartbeat every 15 s.
    private func parkingEvents(caller: Caller, ticket: StreamTicket, signs: Bool, lots: Bool) async throws -> Representation {
        let stream = parking.live.feed.subscribe()
        let onWrite: @Sendable () -> Void = { [tiles = parking.tiles] in tiles.noteLocalWrite() }
        await parking.live.follow(onWrite: onWrite)
        var current: [Feature] = []
        for (layer, wanted) in [(ParkingLiveView.signsLayer, signs), (ParkingLiveView.layer, lots)] where wanted {
            current += try await store.query(layer: layer, FeatureQuery(limit: 2000), by: caller).features
        }
        let snapshot = current
        return Representation.featureEventStream(stream, ticket: ticket, banner: "CityTwin parking guidance", initial: snapshot) { feature in
            let sign = feature.properties["content"] != nil
            guard sign ? signs : lots else { return nil }
            return sign ? "sign" : "availability"
        }
    }
}
