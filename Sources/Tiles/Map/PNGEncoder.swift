import CompressNIO
import NIOCore

/// Encodes indexed-colour PNG images (colour type 3, 8 bits per pixel, a `PLTE` palette and a
/// `tRNS` alpha per palette entry), as map tiles with a few colour classes need: one byte per
/// pixel, filter type 0 per scanline, the image data a zlib stream (PNG spec §10, RFC 1950).
public enum PNGEncoder {
    /// An RGBA colour, 0–255 per channel.
    public struct Colour: Hashable, Sendable {
        public var red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8
        public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
            self.red = red; self.green = green; self.blue = blue; self.alpha = alpha
        }
        public static let transparent = Colour(red: 0, green: 0, blue: 0, alpha: 0)
    }

    /// The PNG of a `width` × `height` image whose pixels (row by row from the top) index `palette`.
    /// - Precondition: `pixels.count == width * height`, every index < `palette.count` ≤ 256.
    public static func indexed(width: Int, height: Int, pixels: [UInt8], palette: [Colour]) throws -> [UInt8] {
        precondition(pixels.count == width * height && !palette.isEmpty && palette.count <= 256)
        return try image(width: width, height: height, colourType: 3, bytesPerPixel: 1, pixels: pixels) { out in
            chunk("PLTE", palette.flatMap { [$0.red, $0.green, $0.blue] }, into: &out)
            chunk("tRNS", palette.map(\.alpha), into: &out)
        }
    }

    /// The PNG of a `width` × `height` truecolour image (colour type 2, 8 bits per channel, no
    /// alpha): `pixels` holds red, green and blue of each pixel, row by row from the top. Lossless,
    /// as elevation tiles (Terrarium) need.
    /// - Precondition: `pixels.count == 3 * width * height`.
    public static func rgb(width: Int, height: Int, pixels: [UInt8]) throws -> [UInt8] {
        precondition(pixels.count == 3 * width * height)
        return try image(width: width, height: height, colourType: 2, bytesPerPixel: 3, pixels: pixels) { _ in }
    }

    /// Signature, IHDR (8 bits per sample, deflate, filter 0, no interlace), the chunks `before`
    /// writes, the filter-0 scanlines as one zlib IDAT, IEND.
    private static func image(width: Int, height: Int, colourType: UInt8, bytesPerPixel: Int, pixels: [UInt8],
                              before: (inout [UInt8]) -> Void) throws -> [UInt8] {
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header: [UInt8] = []
        header += bigEndian(UInt32(width)) + bigEndian(UInt32(height))
        header += [8, colourType, 0, 0, 0]   // bit depth 8, the colour type, deflate, filter 0, no interlace
        chunk("IHDR", header, into: &out)
        before(&out)
        let stride = width * bytesPerPixel
        var raw = ByteBuffer()
        raw.reserveCapacity(height * (stride + 1))
        pixels.withUnsafeBufferPointer { p in
            for row in 0..<height {
                raw.writeInteger(UInt8(0))
                raw.writeBytes(UnsafeBufferPointer(rebasing: p[(row * stride)..<((row + 1) * stride)]))
            }
        }
        var compressed = try raw.compress(with: .zlib())
        chunk("IDAT", compressed.readBytes(length: compressed.readableBytes) ?? [], into: &out)
        chunk("IEND", [], into: &out)
        return out
    }

    static func bigEndian(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }

    static func chunk(_ type: String, _ data: [UInt8], into out: inout [UInt8]) {
        out += bigEndian(UInt32(data.count))
        let typed = Array(type.utf8) + data
        out += typed
        out += bigEndian(crc32(typed))
    }

    /// CRC-32 (ISO 3309, as PNG chunks carry it).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = crcTable[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }

    static let crcTable: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }
}

extension PNGEncoder {
    /// An indexed image read back from a PNG this encoder wrote.
    public struct IndexedImage: Sendable, Equatable {
        public var width: Int
        public var height: Int
        /// Palette indices, row by row from the top.
        public var pixels: [UInt8]
        public var palette: [Colour]
    }

    /// Reads an 8-bit indexed, non-interlaced PNG with filter-0 scanlines (what `indexed` writes;
    /// for checking tiles, not a general PNG reader).
    /// - Throws: `TileError` `.malformedTile` naming what is wrong.
    public static func decodeIndexed(_ png: [UInt8]) throws -> IndexedImage {
        let read = try decode(png, colourType: 3, bytesPerPixel: 1, kind: "8-bit indexed")
        let (rgb, alpha) = (read.chunks["PLTE"] ?? [], read.chunks["tRNS"] ?? [])
        let palette = stride(from: 0, to: rgb.count - 2, by: 3).enumerated().map { k, j in
            Colour(red: rgb[j], green: rgb[j + 1], blue: rgb[j + 2], alpha: k < alpha.count ? alpha[k] : 255)
        }
        return IndexedImage(width: read.width, height: read.height, pixels: read.pixels, palette: palette)
    }

    /// Reads an 8-bit truecolour (RGB), non-interlaced PNG with filter-0 scanlines (what `rgb`
    /// writes): its size and red, green, blue per pixel, row by row from the top.
    /// - Throws: `TileError` `.malformedTile` naming what is wrong.
    public static func decodeRGB(_ png: [UInt8]) throws -> (width: Int, height: Int, pixels: [UInt8]) {
        let read = try decode(png, colourType: 2, bytesPerPixel: 3, kind: "8-bit RGB")
        return (read.width, read.height, read.pixels)
    }

    private static func decode(_ png: [UInt8], colourType: UInt8, bytesPerPixel: Int,
                               kind: String) throws -> (width: Int, height: Int, pixels: [UInt8], chunks: [String: [UInt8]]) {
        func fail(_ why: String) -> TileError { TileError(.malformedTile, "PNG: \(why)") }
        guard png.count > 8, Array(png[0..<8]) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] else { throw fail("no PNG signature") }
        var i = 8
        var width = 0, height = 0
        var chunks: [String: [UInt8]] = [:], idat: [UInt8] = []
        func u32(_ k: Int) -> Int { Int(png[k]) << 24 | Int(png[k + 1]) << 16 | Int(png[k + 2]) << 8 | Int(png[k + 3]) }
        while i + 8 <= png.count {
            let length = u32(i)
            let type = String(decoding: png[(i + 4)..<(i + 8)], as: UTF8.self)
            guard i + 12 + length <= png.count else { throw fail("chunk \(type) runs past the end") }
            let data = Array(png[(i + 8)..<(i + 8 + length)])
            guard crc32(Array(png[(i + 4)..<(i + 8 + length)])) == UInt32(u32(i + 8 + length)) else { throw fail("chunk \(type) has a bad CRC") }
            switch type {
            case "IHDR":
                guard data.count == 13, data[8] == 8, data[9] == colourType, data[12] == 0 else { throw fail("not an \(kind), non-interlaced image") }
                width = Int(data[0]) << 24 | Int(data[1]) << 16 | Int(data[2]) << 8 | Int(data[3])
                height = Int(data[4]) << 24 | Int(data[5]) << 16 | Int(data[6]) << 8 | Int(data[7])
            case "IDAT": idat += data
            default: chunks[type] = data
            }
            i += 12 + length
        }
        let stride = width * bytesPerPixel
        var compressed = ByteBuffer(bytes: idat)
        var raw = try compressed.decompress(with: .zlib(), maxSize: (stride + 1) * height + 1)
        guard let bytes = raw.readBytes(length: raw.readableBytes), bytes.count == (stride + 1) * height else { throw fail("image data of the wrong size") }
        var pixels: [UInt8] = []
        pixels.reserveCapacity(stride * height)
        for row in 0..<height {
            guard bytes[row * (stride + 1)] == 0 else { throw fail("scanline \(row) is not filter type 0") }
            pixels += bytes[(row * (stride + 1) + 1)..<((row + 1) * (stride + 1))]
        }
        return (width, height, pixels, chunks)
    }
}
