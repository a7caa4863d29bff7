import CCairo
import CPango

/// A label's text laid out by pango on a canvas: wrapped at a width, centred, in the map's
/// Chinese font (WenQuanYi Micro Hei, Debian `fonts-wqy-microhei`, the face the web map's glyphs
/// are cut from). Sizes in pixels.
public final class TextLayout {
    /// The label font family (fontconfig name).
    public static let fontFamily = "WenQuanYi Micro Hei"

    let layout: OpaquePointer
    let canvas: MapCanvas
    /// The laid-out text's logical size in pixels.
    public let width: Double
    public let height: Double

    /// Lays out `text` at `size` pixels, wrapped at `maxWidth` pixels (nil: one line), its lines
    /// centred (labels) or flush left (`leftAligned`: a print page's notes).
    public init(_ text: String, size: Double, maxWidth: Double?, leftAligned: Bool = false, on canvas: MapCanvas) {
        self.canvas = canvas
        layout = pango_cairo_create_layout(canvas.context)
        let font = pango_font_description_new()
        pango_font_description_set_family(font, Self.fontFamily)
        pango_font_description_set_absolute_size(font, size * Double(PANGO_SCALE))
        pango_layout_set_font_description(layout, font)
        pango_font_description_free(font)
        if let maxWidth {
            pango_layout_set_width(layout, Int32(maxWidth * Double(PANGO_SCALE)))
            pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
        }
        pango_layout_set_alignment(layout, leftAligned ? PANGO_ALIGN_LEFT : PANGO_ALIGN_CENTER)
        pango_layout_set_text(layout, text, -1)
        var ink = PangoRectangle(), logical = PangoRectangle()
        pango_layout_get_pixel_extents(layout, &ink, &logical)
        width = Double(logical.width)
        height = Double(logical.height)
        // A wrapped layout is as wide as its wrap width; its text starts at logical.x.
        offsetX = Double(logical.x)
    }

    /// Where the text's logical box starts inside a wrapped layout.
    let offsetX: Double

    deinit {
        g_object_unref(UnsafeMutableRawPointer(layout))
    }

    /// Draws the text with its logical box's top-left corner at (x, y), no halo.
    public func draw(left x: Double, top y: Double, colour: MapColour) {
        draw(centreX: x + width / 2, centreY: y + height / 2, colour: colour, halo: nil, haloWidth: 0)
    }

    /// Draws the text centred on (x, y), turned `angle` radians about that centre, with a halo
    /// of `haloWidth` pixels around the glyphs drawn first.
    public func draw(centreX x: Double, centreY y: Double, angle: Double = 0, colour: MapColour, halo: MapColour?, haloWidth: Double) {
        let cr = canvas.context
        cairo_save(cr)
        cairo_translate(cr, x, y)
        if angle != 0 { cairo_rotate(cr, angle) }
        cairo_translate(cr, -width / 2 - offsetX, -height / 2)
        pango_cairo_update_layout(cr, layout)
        if let halo, haloWidth > 0 {
            cairo_new_path(cr)
            cairo_move_to(cr, 0, 0)
            pango_cairo_layout_path(cr, layout)
            canvas.set(halo)
            cairo_set_line_width(cr, haloWidth * 2)
            cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
            cairo_set_dash(cr, nil, 0, 0)
            cairo_stroke(cr)
        }
        cairo_new_path(cr)
        cairo_move_to(cr, 0, 0)
        canvas.set(colour)
        pango_cairo_show_layout(cr, layout)
        cairo_restore(cr)
    }
}
