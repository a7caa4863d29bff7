import Foundation
import GeoCore
import MapRendering
import Testing
import TwinStore

/// A printed page read back by pixels: a PDF turned into PNG by poppler's `pdftoppm` (Debian
/// `poppler-utils`), an independent reader of what cairo wrote, at `pixelsPerPoint` × 72 dpi.
struct MapPrintPage {
    let image: PNGImage
    /// Pixels per PDF point.
    let pixelsPerPoint: Double

    init(png bytes: [UInt8], pixelsPerPoint: Double) throws {
        image = try PNGImage(bytes)
        self.pixelsPerPoint = pixelsPerPoint
    }

    /// The PDF's first page rasterised by pdftoppm at `pixelsPerPoint` × 72 dpi.
    init(pdf bytes: [UInt8], pixelsPerPoint: Double = 2) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("citytwin-print-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let pdf = dir.appendingPathComponent("page.pdf")
        try Data(bytes).write(to: pdf)
        // CITYTWIN_PRINT_KEEP=<directory>: keep each page to look at.
        if let keep = ProcessInfo.processInfo.environment["CITYTWIN_PRINT_KEEP"] {
            try? Data(bytes).write(to: URL(fileURLWithPath: keep).appendingPathComponent("print-\(UUID().uuidString.prefix(8)).pdf"))
        }
        let tool = Process()
        tool.executableURL = URL(fileURLWithPath: "/usr/bin/pdftoppm")
        tool.arguments = ["-r", String(Int(72 * pixelsPerPoint)), "-png", "-singlefile", pdf.path, dir.appendingPathComponent("page").path]
        try tool.run()
        tool.waitUntilExit()
        #expect(tool.terminationStatus == 0, "pdftoppm reads the PDF")
        try self.init(png: Array(try Data(contentsOf: dir.appendingPathComponent("page.png"))), pixelsPerPoint: pixelsPerPoint)
    }

    /// The colour at a position in points.
    func colour(_ x: Double, _ y: Double) -> MapColour {
        image.colour(x: Int(x * pixelsPerPoint), y: Int(y * pixelsPerPoint))
    }

    /// The pixels of a box in points (clamped to the page), as (x, y, colour).
    func pixels(in box: PixelBox) -> [(x: Int, y: Int, colour: MapColour)] {
        let x0 = max(0, Int(box.x * pixelsPerPoint)), x1 = min(image.width, Int(box.maxX * pixelsPerPoint))
        let y0 = max(0, Int(box.y * pixelsPerPoint)), y1 = min(image.height, Int(box.maxY * pixelsPerPoint))
        var out: [(Int, Int, MapColour)] = []
        for y in y0..<max(y0, y1) { for x in x0..<max(x0, x1) { out.append((x, y, image.colour(x: x, y: y))) } }
        return out
    }

    /// How many pixels of `box` are ink (darker than mid-grey).
    func ink(in box: PixelBox) -> Int {
        pixels(in: box).filter { $0.colour.luminance < 0.5 }.count
    }

    /// The longest run of dark pixels along a row inside `box`, in points: a scale bar's edge.
    func longestDarkRun(in box: PixelBox) -> Double {
        var best = 0
        let x0 = Int(box.x * pixelsPerPoint), x1 = Int(box.maxX * pixelsPerPoint)
        for y in Int(box.y * pixelsPerPoint)..<Int(box.maxY * pixelsPerPoint) {
            var run = 0
            for x in x0..<x1 {
                run = image.colour(x: x, y: y).luminance < 0.6 ? run + 1 : 0
                best = max(best, run)
            }
        }
        return Double(best) / pixelsPerPoint
    }
}

extension MapColour {
    var luminance: Double { 0.2126 * red + 0.7152 * green + 0.0722 * blue }

    /// Whether the colours differ by at most `tolerance` (0…255) in each channel.
    func near(_ hex: String, tolerance: Double = 6) throws -> Bool {
        let o = try MapColour(parsing: hex)
        return [abs(red - o.red), abs(green - o.green), abs(blue - o.blue)].allSatisfy { $0 * 255 <= tolerance }
    }
}

/// Where a lon/lat position lands on a printed Web Mercator map, by the spherical formulas and
/// the frame-fitting rule (the box widened about its centre to the frame's proportions),
/// independent of PROJ and of the renderer's `MapView`.
struct PrintedMercator {
    let frame: PixelBox
    let minX: Double, maxX: Double, minY: Double, maxY: Double

    static func x(_ lon: Double) -> Double { 6378137 * lon * .pi / 180 }
    static func y(_ lat: Double) -> Double { 6378137 * log(tan(.pi / 4 + lat * .pi / 360)) }

    init(bbox: (west: Double, south: Double, east: Double, north: Double), frame: PixelBox) {
        self.frame = frame
        var (x0, x1, y0, y1) = (Self.x(bbox.west), Self.x(bbox.east), Self.y(bbox.south), Self.y(bbox.north))
        let aspect = frame.width / frame.height
        if (x1 - x0) / (y1 - y0) < aspect {
            let w = (y1 - y0) * aspect, c = (x0 + x1) / 2
            (x0, x1) = (c - w / 2, c + w / 2)
        } else {
            let h = (x1 - x0) / aspect, c = (y0 + y1) / 2
            (y0, y1) = (c - h / 2, c + h / 2)
        }
        (minX, maxX, minY, maxY) = (x0, x1, y0, y1)
    }

    /// The page position (points) of a lon/lat.
    func point(_ lon: Double, _ lat: Double) -> (x: Double, y: Double) {
        (frame.x + (Self.x(lon) - minX) / (maxX - minX) * frame.width, frame.y + (maxY - Self.y(lat)) / (maxY - minY) * frame.height)
    }

    /// Metres on the ground per point across the frame's middle: the fitted width's ground
    /// length along the centre's parallel on the GRS80/CGCS2000 ellipsoid (radius of the parallel
    /// N·cos φ), over the frame's width.
    var metresPerPoint: Double {
        let lat = 2 * atan(exp((minY + maxY) / 2 / 6378137)) - .pi / 2
        let e2 = 0.00669438002290
        let parallelRadius = 6378137 / sqrt(1 - e2 * sin(lat) * sin(lat)) * cos(lat)
        let degrees = (maxX - minX) / 6378137 * 180 / .pi
        return parallelRadius * degrees * .pi / 180 / frame.width
    }
}
