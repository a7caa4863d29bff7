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
    /// Reads the feed once for every stream and hands them its changes.
    let changeWatch: ChangeFeedWatch
    /// The open streams, counted per caller; their tokens checked while they last.
    let streams: LiveStreams
    /// What a stream reads and writes by itself (`reader="stream"`), beside the shared reading.
    let metrics: ServerMetrics
    /// The change subscription: Server-Sent Events of the store's change feed, so another
    /// service keeps a copy of layers in step without polling. Each event is one insert, update
    /// or delete (`id` = the feed's sequence, `event` = the kind, `data` = JSON with the feature
    /// as the caller may read it now, masked as /items masks it). A client that reconnects sends
    /// `Last-Event-ID` (browsers' EventSource do) and gets every change after it; `since=N`
    /// starts after sequence N (0: from the first change, i.e. every feature the layer ever
    /// had); without either the stream starts at the newest change. The first message is a
    /// `position` event whose id is where the stream starts: a follower that starts empty reads
    /// it, loads the items, and applies the events from there. Later `position` events say the
    /// stream has passed changes it does not carry (other layers, or layers the caller may know
    /// exist but not read): a follower whose last id is the newest change's sequence has caught up.
    /// A change of a layer secret to the caller sends nothing at all, not even a position.
    ///
    /// A stream is one of its caller's (`LiveStreams`: `--token-streams`, `--address-streams`,
    /// `--max-streams`), and its token is checked for as long as it lasts: revoked, expired or
    /// signed with a rotated secret, the stream ends with an `error` event whose data is a problem
    /// document (`token-no-longer-valid`) naming the reason.
    var operations: [APIOperation] {
        let since = APIParameter("since", "Start after this change-feed sequence (0: from the first change). Default: the newest change (only what happens from now). `Last-Event-ID` overrides it.",
                                 schema: ["type": "integer", "minimum": 0])
        let lastEventID = APIParameter("Last-Event-ID", in: .header, "The id of the last event received (sent by a reconnecting EventSource): the stream resumes after it.",
                                       schema: ["type": "integer", "minimum": 0])
        let responses: [APIResponse] = [
            .ok("Server-Sent Events until the client disconnects: `position` first, then `insert`, `update` and `delete`, and a comment as heartbeat every 15 s; a last `error` event (a problem document) when the token that opened the stream is revoked, expires or no longer matches the secret.",
                [("text/event-stream", "ChangeEvents")]),
            .problem(404, "No such collection."),
            .problem(429, "The caller has as many event streams open as it may (--token-streams, --address-streams); Retry-After says when to try again."),
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

    /// The event stream of `layers` (`nil`: every readable layer) for the request's caller,
    /// counted as one of its streams (`LiveStreams`: 429 beyond its share) and ended with an
    /// `error` event when its token is no longer valid.
    private func changeStream(_ request: Request, _ context: CityTwinRequestContext, _ query: QueryParameters,
                              layers: Set<String>?) async throws -> Representation {
        let caller = context.caller
        let latest = try await store.latestChange()
        let known = try await ChangeSubscription.newestKnown(to: caller, in: store)
        let start = try Self.changeCursor(request, query, latest: latest, known: known)
        let subscription = ChangeSubscription(store: store, caller: caller, layers: layers)
        let ticket = StreamTicket(try streams.open(context, kind: "changes"), in: streams)
        let watch = changeWatch
        let metrics = metrics
        return .eventStream(ResponseBody { writer in
            let lease = ticket.lease
            let (id, deliveries) = watch.subscribe(caller, known: latest)
            lease.onEnd { reason in watch.end(id, reason: reason) }
            defer {
                watch.end(id)
                ticket.close()
            }
            try await withGracefulShutdownHandler {
                var cursor = start, sent = start
                try await writer.write(ByteBuffer(string: "retry: 2000\n: CityTwin changes\n\n" + ChangeSubscription.positionText(start)))
                // Reads the feed itself (from where the stream is) until past `target` (nil: the feed's end).
                func catchUp(through target: Int64?) async throws {
                    var position: Int64?
                    while true {
                        let page = try await subscription.page(after: cursor)
                        metrics.count("citytwin_change_feed_reads_total", [("reader", "stream")])
                        metrics.count("citytwin_change_events_serialised_total", [("reader", "stream")], by: page.messages.count)
                        if let last = page.messages.last {
                            try await writer.write(ByteBuffer(string: page.messages.map(ChangeSubscription.eventText).joined()))
                            sent = max(sent, last.event.sequence)
                        }
                        if let p = page.position { position = max(position ?? p, p) }
                        let moved = page.cursor > cursor
                        cursor = max(cursor, page.cursor)
                        if let target, cursor >= target { break }
                        if !page.more && (target == nil || !moved) { break }
                    }
                    // Past changes the stream does not carry (other layers, hidden ones it may know
                    // of): say so, so a reconnect resumes here and a follower knows it has caught up.
                    if let position, position > sent {
                        try await writer.write(ByteBuffer(string: ChangeSubscription.positionText(position)))
                        sent = position
                    }
                }
                try await catchUp(through: nil)
                let accessClass = caller.accessClass
                delivering: for await delivery in deliveries {
                    switch delivery {
                    case .heartbeat:
                        try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
                    case .end(let reason):
                        try await writer.write(ByteBuffer(string: StreamLease.errorEvent(reason)))
                        break delivering
                    case .batch(let batch):
                        guard batch.to > cursor else { continue }
                        guard let part = batch.parts[accessClass] else {
                            try await catchUp(through: batch.to)  // the shared read missed this class: its own read
                            continue
                        }
                        if batch.from > cursor { try await catchUp(through: batch.from) }  // a gap before the batch
                        let events = part.events.filter { $0.sequence > cursor && (layers?.contains($0.layer) ?? true) }
                        if let last = events.last {
                            try await writer.write(ByteBuffer(string: events.map(\.text).joined()))
                            sent = max(sent, last.sequence)
                        }
                        if let position = part.position, position > sent {
                            try await writer.write(ByteBuffer(string: ChangeSubscription.positionText(position)))
                            sent = position
                        }
                        cursor = max(cursor, batch.to)
                    }
                    if Task.isCancelled { break }
                }
                try await writer.finish(nil)
            } onGracefulShutdown: {
                watch.end(id)
            }
        })
    }

    /// Where a stream starts: after `Last-Event-ID`, else after `since`, else at `known` (the
    /// newest change the caller may know of: `ChangeSubscription.newestKnown`). A resume point
    /// after the feed's end (`latest`) is refused without naming the end, which changes of secret
    /// layers move too.
    static func changeCursor(_ request: Request, _ query: QueryParameters, latest: Int64, known: Int64) throws -> Int64 {
        let given: (name: String, text: String)? =
            if let header = request.headers[.lastEventID]?.trimmingCharacters(in: .whitespaces), !header.isEmpty { ("Last-Event-ID", header) }
            else if let since = query["since"] { ("since", since) }
            else { nil }
        guard let given else { return known }
        guard let sequence = Int64(given.text), sequence >= 0 else {
            throw Problem.invalid(given.name, "must be a change-feed sequence (an integer ≥ 0), not '\(given.text)'")
        }
        guard sequence <= latest else {
            throw Problem.invalid(given.name, "is \(sequence), after the newest change: an id of another store? Follow again without it and reload the features")
        }
        return sequence
    }
}

extension HTTPField.Name {
    static let lastEventID = HTTPField.Name("Last-Event-ID")!
}
