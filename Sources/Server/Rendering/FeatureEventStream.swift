import GeoCore
import Hummingbird

extension Representation {
    /// A Server-Sent Events response of `stream`: `initial` first, then one event per feature (named by
    /// `event`; nil skips it) and a comment line per heartbeat, until the client disconnects. The
    /// headers are those of every event stream (`Representation.eventStream`: private, never stored,
    /// not buffered by a proxy).
    static func featureEventStream(_ stream: AsyncStream<Feature?>, banner: String, initial: [Feature] = [],
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
