import CompressNIO
import Foundation
import GeoCore
import HTTPTypes
import Hummingbird

/// A response body with its media type and extra headers, before content coding. Every route
/// answers with one, so gzip and headers are decided in one place.
struct Representation: Sendable {
    var status: HTTPResponse.Status = .ok
    var mediaType: String
    var body: ByteBuffer
    var headers: HTTPFields = [:]
    /// A body written while the response is sent (Server-Sent Events), instead of `body`:
    /// neither compressed nor given a length.
    var stream: ResponseBody? = nil

    init(status: HTTPResponse.Status = .ok, mediaType: String, body: [UInt8], headers: HTTPFields = [:]) {
        self.init(status: status, mediaType: mediaType, buffer: ByteBuffer(bytes: body), headers: headers)
    }

    /// A body already in a buffer (a cached tile): the response shares its storage.
    init(status: HTTPResponse.Status = .ok, mediaType: String, buffer: ByteBuffer, headers: HTTPFields = [:]) {
        self.status = status
        self.mediaType = mediaType
        self.body = buffer
        self.headers = headers
    }

    /// A JSON document (sorted keys).
    static func json(_ value: JSONValue, mediaType: String = MediaTypeName.json, status: HTTPResponse.Status = .ok) -> Representation {
        Representation(status: status, mediaType: mediaType, body: JSONText.bytes(value))
    }

    /// A stream of Server-Sent Events (`text/event-stream`), private to the caller and never
    /// stored by any cache: what it sends depends on who asks and on when.
    static func eventStream(_ body: ResponseBody) -> Representation {
        var r = Representation(mediaType: "text/event-stream", body: [], headers: [.cacheControl: "private, no-store", .xAccelBuffering: "no"])
        r.stream = body
        return r
    }

    /// An HTML page.
    static func html(_ page: String, status: HTTPResponse.Status = .ok) -> Representation {
        Representation(status: status, mediaType: MediaTypeName.html, body: Array(page.utf8))
    }

    /// The response, gzip-coded when the client accepts gzip and the body is a text type
    /// larger than `threshold` bytes; cache headers by who asks (`CallerCaching`).
    func response(for request: Request, compressionThreshold: Int) -> Response {
        var headers = self.headers
        CallerCaching.apply(to: &headers, for: request, page: mediaType == MediaTypeName.html)
        if status == .noContent {
            // 204: no body, so no content headers (RFC 9110 §15.3.5).
            return Response(status: status, headers: headers, body: .init())
        }
        headers[.contentType] = mediaType
        if let stream {
            headers[.cacheControl] = CallerCaching.privateControl(headers[.cacheControl])
            return Response(status: status, headers: headers, body: stream)
        }
        var buffer = body
        if body.readableBytes > compressionThreshold, Self.acceptsGzip(request), Self.isCompressible(mediaType) {
            var compressed = ByteBufferAllocator().buffer(capacity: body.readableBytes / 3 + 64)
            var input = body
            do {
                try input.compress(to: &compressed, with: .gzip())
                buffer = compressed
                headers[.contentEncoding] = "gzip"
            } catch {
                // zlib refused (out of memory): send the body uncompressed.
                buffer = body
            }
        }
        headers[.contentLength] = String(buffer.readableBytes)
        return Response(status: status, headers: headers, body: .init(byteBuffer: buffer))
    }

    static func isCompressible(_ mediaType: String) -> Bool {
        mediaType.hasPrefix("text/") || mediaType.contains("json")
    }

    /// Whether `Accept-Encoding` lists gzip (or `*`) with a non-zero quality.
    static func acceptsGzip(_ request: Request) -> Bool {
        guard let header = request.headers[.acceptEncoding] else { return false }
        for item in header.split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let coding = parts.first, coding == "gzip" || coding == "x-gzip" || coding == "*" else { continue }
            let q = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            if q > 0 { return true }
        }
        return false
    }
}

extension HTTPField.Name {
    /// Tells a proxy in front (nginx, as `Scripts/cluster.sh` runs) to pass an event stream on
    /// as it comes instead of buffering it.
    static let xAccelBuffering = HTTPField.Name("X-Accel-Buffering")!
}
