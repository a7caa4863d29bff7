import CCairo
import Foundation

/// A cairo drawing surface of `width` × `height` pixels: an ARGB raster (for PNG and JPEG) or a
/// PDF page of the same size in points (vector output, fonts embedded). Coordinates are pixels
/// from the top-left corner. A canvas belongs to one task at a time (cairo contexts are not
/// shared between threads).
public final class MapCanvas {
    public enum Kind: Sendable { case raster, pdf }

    public let width: Int
    public let height: Int
    public let kind: Kind
    let surface: OpaquePointer
    let context: OpaquePointer
    private let sink: ByteSink?
    private var finished = false

    /// - Throws: `MapRenderingError` `.request` for a size cairo cannot allocate, `.drawing` when cairo fails.
    public init(width: Int, height: Int, kind: Kind = .raster) throws {
        guard width > 0, height > 0, width <= 32_767, height <= 32_767 else {
            throw MapRenderingError(.request, "a canvas of \(width)×\(height) pixels: each side must be 1…32767")
        }
        self.width = width
        self.height = height
        self.kind = kind
        switch kind {
        case .raster:
            sink = nil
            surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height))
        case .pdf:
            let sink = ByteSink()
            self.sink = sink
            surface = cairo_pdf_surface_create_for_stream(ByteSink.write, Unmanaged.passUnretained(sink).toOpaque(),
                                                          Double(width), Double(height))
        }
        context = cairo_create(surface)
        let status = cairo_status(context)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_destroy(context)
            cairo_surface_destroy(surface)
            throw MapRenderingError(.drawing, "cairo could not make a \(width)×\(height) surface: \(String(cString: cairo_status_to_string(status)))")
        }
    }

    deinit {
        cairo_destroy(context)
        cairo_surface_destroy(surface)
    }

    // MARK: - Drawing

    /// Paints the whole canvas with `colour` (replacing what is there, alpha included).
    public func clear(_ colour: MapColour) {
        cairo_save(context)
        cairo_set_operator(context, CAIRO_OPERATOR_SOURCE)
        set(colour)
        cairo_paint(context)
        cairo_restore(context)
    }

    /// Starts a new path made of `rings` (pixel positions); closed rings for areas.
    public func path(_ rings: [[(x: Double, y: Double)]], closed: Bool) {
        cairo_new_path(context)
        for ring in rings {
            guard let first = ring.first else { continue }
            cairo_move_to(context, first.x, first.y)
            for p in ring.dropFirst() { cairo_line_to(context, p.x, p.y) }
            if closed { cairo_close_path(context) }
        }
    }

    /// Adds a circle of `radius` pixels around (x, y) to a new path.
    public func circle(x: Double, y: Double, radius: Double) {
        cairo_new_path(context)
        cairo_arc(context, x, y, max(0, radius), 0, 2 * .pi)
    }

    /// Fills the current path (even-odd: holes stay open), keeping it for a stroke.
    public func fill(_ colour: MapColour) {
        set(colour)
        cairo_set_fill_rule(context, CAIRO_FILL_RULE_EVEN_ODD)
        cairo_fill_preserve(context)
    }

    public enum LineCap: String, Sendable { case butt, round, square }
    public enum LineJoin: String, Sendable { case miter, round, bevel }

    /// Strokes the current path `width` pixels wide; `dash` in pixels (empty: solid).
    public func stroke(_ colour: MapColour, width: Double, dash: [Double] = [], cap: LineCap = .butt, join: LineJoin = .miter) {
        set(colour)
        cairo_set_line_width(context, width)
        cairo_set_line_cap(context, cap == .round ? CAIRO_LINE_CAP_ROUND : cap == .square ? CAIRO_LINE_CAP_SQUARE : CAIRO_LINE_CAP_BUTT)
        cairo_set_line_join(context, join == .round ? CAIRO_LINE_JOIN_ROUND : join == .bevel ? CAIRO_LINE_JOIN_BEVEL : CAIRO_LINE_JOIN_MITER)
        let pattern = dash.filter { $0 > 0 }
        pattern.withUnsafeBufferPointer { cairo_set_dash(context, $0.baseAddress, Int32(pattern.count == dash.count ? pattern.count : 0), 0) }
        cairo_stroke_preserve(context)
    }

    /// Runs `body` with drawing limited to `box`.
    public func clipped<R>(to box: PixelBox, _ body: () throws -> R) rethrows -> R {
        cairo_save(context)
        cairo_new_path(context)
        cairo_rectangle(context, box.x, box.y, box.width, box.height)
        cairo_clip(context)
        defer { cairo_restore(context) }
        return try body()
    }

    /// Runs `body` with the origin moved to (`x`, `y`) and units scaled by `scale` (a page drawn
    /// in points onto a raster of `scale` pixels per point; a map frame inside a page).
    public func transformed<R>(x: Double = 0, y: Double = 0, scale: Double = 1, _ body: () throws -> R) rethrows -> R {
        cairo_save(context)
        cairo_translate(context, x, y)
        cairo_scale(context, scale, scale)
        defer { cairo_restore(context) }
        return try body()
    }

    /// Starts a new path made of the rectangle `box`.
    public func rectangle(_ box: PixelBox) {
        cairo_new_path(context)
        cairo_rectangle(context, box.x, box.y, box.width, box.height)
    }

    func set(_ c: MapColour) {
        cairo_set_source_rgba(context, c.red, c.green, c.blue, c.alpha)
    }

    // MARK: - Output

    /// The canvas as PNG bytes (raster canvases), compressed as `encoding` says (the pixels are
    /// the same whatever it says).
    public func png(_ encoding: PNGEncoding = .standard) throws -> [UInt8] {
        guard kind == .raster else { throw MapRenderingError(.request, "a PDF canvas has no PNG; draw on a raster canvas") }
        cairo_surface_flush(surface)
        guard let data = cairo_image_surface_get_data(surface) else { throw MapRenderingError(.drawing, "cairo surface has no pixel data") }
        return try encoding.encode(argb32: data, width: width, height: height, stride: Int(cairo_image_surface_get_stride(surface)))
    }

    /// The finished PDF document (PDF canvases); the canvas takes no more drawing after it.
    public func pdf() throws -> [UInt8] {
        guard kind == .pdf, let sink else { throw MapRenderingError(.request, "a raster canvas has no PDF; draw on a PDF canvas") }
        if !finished {
            cairo_surface_finish(surface)
            finished = true
        }
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw MapRenderingError(.drawing, "cairo could not write the PDF: \(String(cString: cairo_status_to_string(status)))")
        }
        return sink.bytes
    }

    /// The pixels as straight (not premultiplied) RGBA rows, top row first (raster canvases).
    public func rgba() throws -> [UInt8] {
        guard kind == .raster else { throw MapRenderingError(.request, "a PDF canvas has no pixels") }
        cairo_surface_flush(surface)
        guard let data = cairo_image_surface_get_data(surface) else { throw MapRenderingError(.drawing, "cairo surface has no pixel data") }
        let stride = Int(cairo_image_surface_get_stride(surface))
        return PNGImage.straightRGBA(data, stride: stride, width: width, height: height, alpha: true)
    }
}

/// Collects the bytes cairo writes through a stream callback.
final class ByteSink {
    var bytes: [UInt8] = []

    static let write: cairo_write_func_t = { closure, data, length in
        guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
        let sink = Unmanaged<ByteSink>.fromOpaque(closure).takeUnretainedValue()
        sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
        return CAIRO_STATUS_SUCCESS
    }
}
