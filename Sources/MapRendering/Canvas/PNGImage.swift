import CCairo

/// A PNG decoded by cairo into straight RGBA pixels: how tests and callers read back what a
/// renderer wrote (pixel checks), without another image library.
public struct PNGImage: Sendable {
    public let width: Int
    public let height: Int
    /// RGBA rows, top row first.
    public let pixels: [UInt8]

    /// - Throws: `MapRenderingError` `.request` when the bytes are no PNG cairo reads.
    public init(_ bytes: [UInt8]) throws {
        final class Source {
            let bytes: [UInt8]
            var offset = 0
            init(_ bytes: [UInt8]) { self.bytes = bytes }
        }
        let source = Source(bytes)
        let read: cairo_read_func_t = { closure, data, length in
            guard let closure, let data else { return CAIRO_STATUS_READ_ERROR }
            let s = Unmanaged<Source>.fromOpaque(closure).takeUnretainedValue()
            let n = Int(length)
            guard s.offset + n <= s.bytes.count else { return CAIRO_STATUS_READ_ERROR }
            s.bytes.withUnsafeBufferPointer { data.update(from: $0.baseAddress! + s.offset, count: n) }
            s.offset += n
            return CAIRO_STATUS_SUCCESS
        }
        let surface = withExtendedLifetime(source) {
            cairo_image_surface_create_from_png_stream(read, Unmanaged.passUnretained(source).toOpaque())
        }
        defer { cairo_surface_destroy(surface) }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let data = cairo_image_surface_get_data(surface) else {
            throw MapRenderingError(.request, "the bytes are not a PNG image")
        }
        width = Int(cairo_image_surface_get_width(surface))
        height = Int(cairo_image_surface_get_height(surface))
        let stride = Int(cairo_image_surface_get_stride(surface))
        let format = cairo_image_surface_get_format(surface)
        pixels = Self.straightRGBA(data, stride: stride, width: width, height: height, alpha: format == CAIRO_FORMAT_ARGB32)
    }

    /// Cairo's native-endian premultiplied ARGB32 (or RGB24 when `alpha` is false) words as
    /// straight RGBA bytes, top row first.
    static func straightRGBA(_ data: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, height: Int, alpha: Bool) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let word = data.advanced(by: y * stride + x * 4).withMemoryRebound(to: UInt32.self, capacity: 1) { $0.pointee }
                let a = alpha ? Int((word >> 24) & 255) : 255
                func straight(_ v: UInt32) -> UInt8 { a == 0 ? 0 : UInt8(min(255, (Int(v & 255) * 255 + a / 2) / a)) }
                let i = (y * width + x) * 4
                out[i] = straight(word >> 16)
                out[i + 1] = straight(word >> 8)
                out[i + 2] = straight(word)
                out[i + 3] = UInt8(a)
            }
        }
        return out
    }

    /// The pixel at column `x`, row `y` (from the top).
    public func colour(x: Int, y: Int) -> MapColour {
        let i = (y * width + x) * 4
        return MapColour(red: Double(pixels[i]) / 255, green: Double(pixels[i + 1]) / 255, blue: Double(pixels[i + 2]) / 255,
                         alpha: Double(pixels[i + 3]) / 255)
    }
}
