import GeoCore
import Hummingbird

extension Representation {
    /// A Server-Sent Events response of `stream`: `initial` first, then one event per feature (named by
    /// `event`; nil skips it) and a comment line per heartbeat, until the client disconnects, or until
    /// the stream's token is no longer valid (`ticket`'s lease ends: a last `error` event says why,
    /// `StreamLease.errorEvent`). The headers are those of every event stream
    /// (`Representation.eventStream`: private, never stored, not buffered by a proxy).
    static func featureEventStream(_ stream: AsyncStream<Feature?>, ticket: StreamTicket, banner: String, initial: [Feature] = [],
                                   event: @escaping @Sendable (Feature) -> String?) -> Representation {
        Representation.eventStream(ResponseBody { writer in
            defer { ticket.close() }
            enum Item: Sendable { case feature(Feature), heartbeat, end(String) }
            // The features and the lease's end, merged so that one loop writes both in order.
            let (items, merged) = AsyncStream<Item>.makeStream(bufferingPolicy: .bufferingNewest(1000))
            let forwarding = Task {
                for await item in stream { merged.yield(item.map(Item.feature) ?? .heartbeat) }
                merged.finish()
            }
            defer { forwarding.cancel() }
            ticket.lease.onEnd { reason in
                merged.yield(.end(reason))
                merged.finish()
            }
            try await writer.write(ByteBuffer(string: ": \(banner)\n\n"))
            func send(_ feature: Feature) async throws {
                guard let name = event(feature) else { return }
                let data = String(decoding: GeoJSON.encode(feature), as: UTF8.self)
                try await writer.write(ByteBuffer(string: "event: \(name)\nid: \(feature.id?.description ?? "")\ndata: \(data)\n\n"))
            }
            for f in initial { try await send(f) }
            loop: for await item in items {
                switch item {
                case .feature(let feature): try await send(feature)
                case .heartbeat: try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
                case .end(let reason):
                    try await writer.write(ByteBuffer(string: StreamLease.errorEvent(reason)))
                    break loop
                }
            }
            try await writer.finish(nil)
        })
    }
}
