import Foundation
import GeoCore
import HTTPTypes
import Hummingbird
import ServiceLifecycle
import TwinStore

/// `/changes` and `/collections/{collectionId}/changes`: the change feed as Server-Sent Events.
struct ChangeRoutes: OperationCollection {
    let store: any FeatureStore
    let layers: LayerDirectory
    /// Wakes the streams after a write of this process.
    let changeWatch: ChangeFeedWatch
    /// The change subscription: Server-Sent Events of the store's change feed, so another
    /// service keeps a copy of layers in step without polling. Each event is one insert, update
    /// or delete (`id` = the feed's sequence, `event` = the kind, `data` = JSON with the feature
    /// as the caller may read it now, masked as /items masks it). A client that reconnects sends
    /// `Last-Event-ID` (browsers' EventSource do) and gets every change after it; `since=N`
    /// starts after sequence N (0: from the first change, i.e. every feature the layer ever
    /// had); without either the stream starts at the newest change. The first message is a
    /// `position` event whose id is where the stream starts: a follower that starts empty reads
    /// it, loads the items, and applies the events from there. Later `position` events say the
    /// stream has passed changes it does not carry (other or hidden layers): a follower whose
    /// last id is the newest change's sequence has caught up.
    var operations: [APIOperation] {
        let since = APIParameter("since", "Start after this change-feed sequence (0: from the first change). Default: the newest change (only what happens from now). `Last-Event-ID` overrides it.",
                                 schema: ["type": "integer", "minimum": 0])
        let lastEventID = APIParameter("Last-Event-ID", in: .header, "The id of the last event received (sent by a reconnecting EventSource): the stream resumes after it.",
                                       schema: ["type": "integer", "minimum": 0])
        let responses: [APIResponse] = [
            .ok("Server-Sent Events until the client disconnects: `position` first, then `insert`, `update` and `delete`, and a comment as heartbeat every 15 s.",
                [("text/event-stream", "ChangeEvents")]),
            .problem(404, "No such collection."),
        ] + APIResponse.standardProblems
        return [
            APIOperation(
                id: "getChanges", method: .get, path: "/changes",
                summary: "Changes to every collection the caller may read (or those named in `collections`) as Server-Sent Events, resumable with Last-Event-ID.",
                tag: "Data",
                parameters: [since, APIParameter("collections", "Comma-separated collection ids to follow (default: every collection the caller may read).", commaList: true, key: "changeCollections"), lastEventID],
                responses: responses
            ) { [self] request, context, query in
                var followed: Set<String>? = nil
                if let list = query["collections"] {
                    let ids = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                    guard !ids.isEmpty else { throw Problem.invalid("collections", "names no collection") }
                    for id in ids where try await store.layerDefinition(id, for: context.caller) == nil {
                        throw Problem.invalid("collections", "names '\(id)', which is no collection")
                    }
                    followed = Set(ids)
                }
                return try await changeStream(request, context, query, layers: followed)
            },
            APIOperation(
                id: "getCollectionChanges", method: .get, path: "/collections/{collectionId}/changes",
                summary: "Changes to one collection's features as Server-Sent Events, resumable with Last-Event-ID: what a service needs to keep a copy in step without polling.",
                tag: "Data", parameters: [.collectionID, since, lastEventID], responses: responses
            ) { [self] request, context, query in
                let id = try pathParameter(context, "collectionId")
                _ = try await layers.definition(id, for: context.caller)
                return try await changeStream(request, context, query, layers: [id])
            },
        ]
    }

    /// The event stream of `layers` (`nil`: every readable layer) for the request's caller.
    private func changeStream(_ request: Request, _ context: CityTwinRequestContext, _ query: QueryParameters,
                              layers: Set<String>?) async throws -> Representation {
        let latest = try await store.latestChange()
        let start = try Self.changeCursor(request, query, latest: latest)
        let subscription = ChangeSubscription(store: store, caller: context.caller, layers: layers)
        let watch = changeWatch
        return .eventStream(ResponseBody { writer in
            let (id, wakes) = watch.subscribe()
            try await withGracefulShutdownHandler {
                var cursor = start
                try await writer.write(ByteBuffer(string: "retry: 2000\n: CityTwin changes\n\n" + ChangeSubscription.positionText(cursor)))
                var sent = cursor
                var wake = wakes.makeAsyncIterator()
                repeat {
                    // The feed to its end, then wait: a wake after a write, or a heartbeat.
                    var more = true
                    while more {
                        let page = try await subscription.page(after: cursor)
                        if let last = page.messages.last {
                            try await writer.write(ByteBuffer(string: page.messages.map(ChangeSubscription.eventText).joined()))
                            sent = last.event.sequence
                        }
                        (cursor, more) = (page.cursor, page.more)
                    }
                    // Past changes the stream does not carry (other layers, hidden ones): say
                    // so, so a reconnect resumes here and a follower knows it has caught up.
                    if cursor > sent {
                        try await writer.write(ByteBuffer(string: ChangeSubscription.positionText(cursor)))
                        sent = cursor
                    }
                    guard let next = await wake.next() else { break }  // the server is stopping
                    if next == .heartbeat { try await writer.write(ByteBuffer(string: ": heartbeat\n\n")) }
                } while !Task.isCancelled
                try await writer.finish(nil)
            } onGracefulShutdown: {
                watch.end(id)
            }
        })
    }

    /// Where a stream starts: after `Last-Event-ID`, else after `since`, else at `latest`.
    static func changeCursor(_ request: Request, _ query: QueryParameters, latest: Int64) throws -> Int64 {
        let given: (name: String, text: String)? =
            if let header = request.headers[.lastEventID]?.trimmingCharacters(in: .whitespaces), !header.isEmpty { ("Last-Event-ID", header) }
            else if let since = query["since"] { ("since", since) }
            else { nil }
        guard let given else { return latest }
        guard let sequence = Int64(given.text), sequence >= 0 else {
            throw Problem.invalid(given.name, "must be a change-feed sequence (an integer ≥ 0), not '\(given.text)'")
        }
        guard sequence <= latest else {
            throw Problem.invalid(given.name, "is \(sequence), after the newest change (\(latest)): an id of another store? Follow again without it and reload the features")
        }
        return sequence
    }
}

extension HTTPField.Name {
    static let lastEventID = HTTPField.Name("Last-Event-ID")!
}
