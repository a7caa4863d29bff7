import Foundation
import MapRendering
import Testing

/// The PNG writers (CCairo's shim: libdeflate for unfiltered rows, libpng for filtered ones): what cairo's own
/// writer wrote, pixel for pixel, whatever the compression; RGB for an opaque map, RGBA with cairo's un-premultiplied colours otherwise.
@Suite("PNG encoding of rendered maps")
struct PNGEncodingTests {
    /// A canvas with opaque, half-transparent and empty parts: a filled square at 40 % opacity
    /// over a transparent ground, an opaque stroke, and a corner left empty.
    static func canvas(background: MapColour?) throws -> MapCanvas {
        let canvas = try MapCanvas(width: 64, height: 48)
        if let background { canvas.clear(background) }
        canvas.rectangle(PixelBox(x: 8, y: 8, width: 30, height: 20))
        canvas.fill(MapColour(red: 0.8, green: 0.2, blue: 0.1, alpha: 0.4))
        canvas.path([[(x: 4, y: 40), (x: 60, y: 10)]], closed: false)
        canvas.stroke(MapColour(red: 0.1, green: 0.3, blue: 0.9, alpha: 1), width: 3)
        return canvas
    }

    /// The PNG's colour type (IHDR byte 25: 2 RGB, 6 RGBA).
    static func colourType(_ png: [UInt8]) -> UInt8 { png[25] }

    @Test("unfiltered and adaptively filtered PNGs hold the same pixels, transparent or opaque")
    func compressionLeavesPixels() throws {
        for background in [nil, MapColour.white] {
            let canvas = try Self.canvas(background: background)
            let standard = try canvas.png()
            let adaptive = try canvas.png(.adaptive)
            let smallest = try canvas.png(try PNGEncoding(level: 9, filters: .adaptive))
            // Unfiltered rows go through libdeflate (standard: level 6), filtered ones through libpng and zlib.
            let stored = try canvas.png(try PNGEncoding(level: 0, filters: .none))
            let densest = try canvas.png(try PNGEncoding(level: 9, filters: .none))
            #expect(Array(standard.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            let a = try PNGImage(standard), b = try PNGImage(adaptive), c = try PNGImage(smallest)
            #expect(a.width == 64 && a.height == 48)
            #expect(a.pixels == b.pixels && a.pixels == c.pixels)
            #expect(try PNGImage(stored).pixels == a.pixels && PNGImage(densest).pixels == a.pixels)
            #expect(stored.count > standard.count)
            #expect(Self.colourType(stored) == Self.colourType(adaptive))
            #expect(Self.colourType(standard) == (background == nil ? 6 : 2))
            #expect(smallest.count <= adaptive.count)
        }
    }

    @Test("a PNG decodes to the colours drawn: the translucent fill un-premultiplied, the empty corner transparent")
    func decodesToTheDrawing() throws {
        let image = try PNGImage(try Self.canvas(background: nil).png())
        let fill = image.colour(x: 12, y: 12)
        // Premultiplied at 8 bits and back: within 2/255 of each channel drawn.
        #expect(abs(fill.red - 0.8) < 0.01 && abs(fill.green - 0.2) < 0.01 && abs(fill.blue - 0.1) < 0.01)
        #expect(abs(fill.alpha - 0.4) < 0.01)
        #expect(image.colour(x: 60, y: 44).alpha == 0)
        let opaque = try PNGImage(try Self.canvas(background: .white).png())
        #expect(opaque.colour(x: 60, y: 44).hex == "#ffffff" && opaque.colour(x: 60, y: 44).alpha == 1)
    }

    @Test("a blank raster is written once per size and encoding, and reads back wholly transparent")
    func blankRasters() throws {
        // An odd width: the blank check reads rows in 8-byte words and the last pixel alone.
        let first = try MapCanvas(width: 33, height: 7).png()
        let again = try MapCanvas(width: 33, height: 7).png()
        #expect(first == again)
        let image = try PNGImage(first)
        #expect(image.width == 33 && image.height == 7)
        #expect(image.pixels.allSatisfy { $0 == 0 })
        #expect(Self.colourType(first) == 6)
        // Another size or encoding is its own file.
        #expect(try MapCanvas(width: 7, height: 33).png() != first)
        #expect(try PNGImage(try MapCanvas(width: 33, height: 7).png(.adaptive)).pixels == image.pixels)
    }

    @Test("one drawn pixel, in the last column or row too, keeps a raster from being written as blank")
    func onePixelIsNotBlank() throws {
        let blank = try MapCanvas(width: 33, height: 7).png()
        for (x, y) in [(32, 6), (32, 0), (0, 6), (16, 3)] {
            let canvas = try MapCanvas(width: 33, height: 7)
            canvas.rectangle(PixelBox(x: Double(x), y: Double(y), width: 1, height: 1))
            canvas.fill(MapColour(red: 1, green: 0, blue: 0, alpha: 1))
            let png = try canvas.png()
            #expect(png != blank)
            let image = try PNGImage(png)
            #expect(image.colour(x: x, y: y).hex == "#ff0000" && image.colour(x: x, y: y).alpha == 1, "pixel (\(x), \(y))")
            #expect(stride(from: 3, to: image.pixels.count, by: 4).filter { image.pixels[$0] != 0 }.count == 1, "only pixel (\(x), \(y)) is painted")
        }
    }

    @Test("a compression level outside zlib's is refused, naming the levels")
    func refusesBadLevels() {
        #expect(throws: MapRenderingError.self) { try PNGEncoding(level: 10, filters: .none) }
        #expect(throws: MapRenderingError.self) { try PNGEncoding(level: -2, filters: .none) }
        #expect((try? PNGEncoding(level: 0, filters: .none)) != nil)
    }
}
