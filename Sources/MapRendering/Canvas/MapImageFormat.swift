import CGDAL
import DataSources
import Foundation

/// The image formats a map is written in: PDF by cairo, PNG from cairo's raster
/// (`PNGEncoding`), JPEG by GDAL's JPEG driver (Debian's cairo 1.16 writes no JPEG).
public enum MapImageFormat: String, CaseIterable, Sendable {
    case png, jpeg, pdf

    public var mediaType: String {
        switch self {
        case .png: "image/png"
        case .jpeg: "image/jpeg"
        case .pdf: "application/pdf"
        }
    }

    /// The format of a media type (`image/png`, `image/jpeg`, `application/pdf`; parameters such
    /// as `; mode=8bit` are ignored), nil for another one.
    public init?(mediaType: String) {
        // Every rendered tile names its format: the plain type needs no trimming or lowercasing.
        let base = mediaType == "image/png" ? mediaType
            : mediaType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        switch base {
        case "image/png", "png": self = .png
        case "image/jpeg", "image/jpg", "jpeg", "jpg": self = .jpeg
        case "application/pdf", "pdf": self = .pdf
        default: return nil
        }
    }

    /// The canvas's picture in this format (a PDF canvas for `.pdf`, a raster one otherwise).
    public func encode(_ canvas: MapCanvas) throws -> [UInt8] {
        switch self {
        case .png: try canvas.png()
        case .pdf: try canvas.pdf()
        case .jpeg: try Self.jpeg(rgba: try canvas.rgba(), width: canvas.width, height: canvas.height)
        }
    }

    /// JPEG (quality 85) of straight RGBA pixels, composited on white, through GDAL's MEM and
    /// JPEG drivers and a /vsimem/ file.
    static func jpeg(rgba: [UInt8], width: Int, height: Int, quality: Int = 85) throws -> [UInt8] {
        GDALLibrary.setUp()
        guard let mem = GDALGetDriverByName("MEM"), let jpegDriver = GDALGetDriverByName("JPEG") else {
            throw MapRenderingError(.drawing, "GDAL has no MEM or JPEG driver")
        }
        guard let dataset = GDALCreate(mem, "", Int32(width), Int32(height), 3, GDT_Byte, nil) else {
            throw MapRenderingError(.drawing, "GDAL could not make a \(width)×\(height) image in memory")
        }
        defer { GDALClose(dataset) }
        for band in 0..<3 {
            var plane = [UInt8](repeating: 0, count: width * height)
            for i in 0..<(width * height) {
                let a = Int(rgba[i * 4 + 3])
                plane[i] = UInt8((Int(rgba[i * 4 + band]) * a + 255 * (255 - a) + 127) / 255)
            }
            let error = plane.withUnsafeMutableBytes { buffer in
                GDALRasterIO(GDALGetRasterBand(dataset, Int32(band + 1)), GF_Write, 0, 0, Int32(width), Int32(height),
                             buffer.baseAddress, Int32(width), Int32(height), GDT_Byte, 0, 0)
            }
            guard error == CE_None else { throw MapRenderingError(.drawing, "GDAL could not write band \(band + 1) of the JPEG") }
        }
        let path = "/vsimem/citytwin-map-\(UUID().uuidString).jpg"
        let options = CSLAddString(nil, "QUALITY=\(quality)")
        defer { CSLDestroy(options); VSIUnlink(path) }
        guard let copy = GDALCreateCopy(jpegDriver, path, dataset, 0, options, nil, nil) else {
            throw MapRenderingError(.drawing, "GDAL's JPEG driver could not write the image")
        }
        GDALClose(copy)
        var length: vsi_l_offset = 0
        guard let data = VSIGetMemFileBuffer(path, &length, 0) else { throw MapRenderingError(.drawing, "GDAL wrote no JPEG") }
        return Array(UnsafeBufferPointer(start: data, count: Int(length)))
    }
}
