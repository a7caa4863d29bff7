import CCairo
import Synchronization

/// How a raster map is written as PNG: the DEFLATE level and the row filters (CCairo's shim). The
/// pixels are those cairo's own PNG writer writes (8-bit RGB when every pixel is opaque, else 8-bit
/// RGBA un-premultiplied with cairo's rounding, a white bKGD): only the compression is chosen.
///
/// `standard` writes as MapServer's AGG/PNG output does (level 6, zlib's default; rows unfiltered),
/// the peer of issue 55's render benchmark, with the zlib stream made by libdeflate
/// (`citytwin_png_write_argb32_deflate`): the same format and pixels in about half zlib's time, and
/// 3 % smaller on the benchmark's tiles. cairo's writer lets libpng try all five row filters on
/// every row and keep the smallest (`adaptive`, written through libpng and zlib as cairo writes it,
/// `citytwin_png_write_argb32`): on the benchmark's z14 tiles that search cost about 2.5× the
/// unfiltered write for PNGs of about the same size (transparent tiles of flat colours compress as
/// well unfiltered).
public struct PNGEncoding: Sendable, Hashable {
    public enum RowFilters: Sendable, Hashable { case none, adaptive }

    /// zlib's level: 0 (stored) … 9 (smallest), -1 its default (6).
    public let level: Int
    public let filters: RowFilters

    /// MapServer's AGG/PNG settings: zlib's default level, rows unfiltered.
    public static let standard = PNGEncoding(checkedLevel: -1, filters: .none)
    /// cairo's `cairo_surface_write_to_png` settings: zlib's default level, adaptive row filters.
    public static let adaptive = PNGEncoding(checkedLevel: -1, filters: .adaptive)

    /// - Throws: `MapRenderingError` `.request` for a level outside -1…9.
    public init(level: Int, filters: RowFilters) throws {
        guard (-1...9).contains(level) else {
            throw MapRenderingError(.request, "a PNG compression level of \(level): zlib's levels are 0…9 (or -1, its default)")
        }
        self.init(checkedLevel: level, filters: filters)
    }

    private init(checkedLevel: Int, filters: RowFilters) {
        self.level = checkedLevel
        self.filters = filters
    }

    /// The PNG of a cairo ARGB32 raster (premultiplied native-endian pixels, `stride` bytes a row).
    /// A raster with nothing drawn on it (every byte 0: a tile of no feature, 38 of the render
    /// benchmark's 90) is the same file each time: it is encoded once per size and encoding and
    /// kept (zlib spends about as long on 256 KB of zeros as on half a drawn tile).
    func encode(argb32 pixels: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int) throws -> [UInt8] {
        guard citytwin_argb32_blank(pixels, Int32(width), Int32(height), Int32(stride)) != 0 else {
            return try write(argb32: pixels, width: width, height: height, stride: stride)
        }
        let key = BlankKey(width: width, height: height, encoding: self)
        if let known = Self.blanks.withLock({ $0[key] }) { return known }
        let bytes = try write(argb32: pixels, width: width, height: height, stride: stride)
        Self.blanks.withLock { blanks in
            // A handful of sizes in practice (tiles, legends); a client asking for every GetMap size
            // does not grow the table without bound.
            if blanks.count >= 64 { blanks.removeAll() }
            blanks[key] = bytes
        }
        return bytes
    }

    private struct BlankKey: Hashable {
        let width: Int
        let height: Int
        let encoding: PNGEncoding
    }

    /// The PNGs of blank rasters, by size and encoding.
    private static let blanks = Mutex<[BlankKey: [UInt8]]>([:])

    private func write(argb32 pixels: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int) throws -> [UInt8] {
        let sink = ByteSink()
        sink.bytes.reserveCapacity(16_384)
        var message = [CChar](repeating: 0, count: 256)
        let context = Unmanaged.passUnretained(sink).toOpaque()
        let status = switch filters {
        case .adaptive:
            citytwin_png_write_argb32(pixels, Int32(width), Int32(height), Int32(stride), Int32(level), 1, ByteSink.take,
                                      context, &message, message.count)
        case .none:
            citytwin_png_write_argb32_deflate(pixels, Int32(width), Int32(height), Int32(stride), Int32(level), ByteSink.take,
                                              context, &message, message.count)
        }
        guard status == 0 else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw MapRenderingError(.drawing, "the PNG could not be written: \(text)")
        }
        return sink.bytes
    }
}

extension ByteSink {
    /// The PNG writer's sink: keeps the bytes libpng writes.
    static let take: citytwin_png_sink = { closure, data, length in
        guard let closure, let data else { return 1 }
        let sink = Unmanaged<ByteSink>.fromOpaque(closure).takeUnretainedValue()
        sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
        return 0
    }
}
