import DataSources
import Foundation
import GeoCore

/// Any vector file GDAL reads — GeoPackage, Shapefile (its `.cpg`, or `--encoding`), FileGDB, DXF,
/// MapInfo, KML, GML, FlatGeobuf, OpenStreetMap — as a `FeatureSource`: one layer of it, in the
/// file's own CRS, `feature N` counted from 1 in the file's order, polygons wound by the
/// right-hand rule as every CityTwin layer holds them (a Shapefile's are clockwise).
public struct GDALSource: FeatureSource {
    public let file: URL
    public let crs: CoordinateReferenceSystem?
    public let expectedCount: Int?
    /// The GDAL driver that read the file (`GPKG`, `ESRI Shapefile`, `OpenFileGDB`, …).
    public let driver: String
    private let layer: VectorLayer
    private var index = 0

    /// Opens `layer` of `file` (the only layer when `nil`).
    /// - Parameter encoding: the attributes' encoding where the format leaves it to the reader
    ///   (a Shapefile's `.dbf`: overrides its `.cpg`).
    /// - Throws: `ImportError` naming the file: `.unreadable` (missing, not a format GDAL reads),
    ///   `.unsupported` (no such layer, or several and none named).
    public init(file: URL, layer name: String? = nil, encoding: TextEncoding? = nil) throws {
        self.file = file
        var encoding = encoding
        if encoding == nil, file.pathExtension.lowercased() == "shp" { encoding = try Self.shapefileEncoding(file) }
        do {
            let dataset = try VectorDataset(file: file, encoding: encoding.map(\.gdalName))
            layer = try dataset.layer(named: name)
            driver = dataset.driver
        } catch let e as DataSourceError {
            throw ImportError(e.code == .unreadable ? .unreadable : .unsupported, file: file.lastPathComponent, location: e.location, e.reason)
        }
        crs = layer.crs
        expectedCount = layer.featureCount
    }

    public mutating func next(upTo limit: Int) throws -> [SourceRecord] {
        let features: [Feature]
        do {
            features = try layer.next(upTo: limit)
        } catch let e as DataSourceError {
            throw error(.malformed, e.location ?? "feature \(index + 1)", field: e.field, e.reason)
        }
        return features.map { feature in
            index += 1
            return SourceRecord(location: "feature \(index)", feature: Feature(geometry: feature.geometry?.rightHandOriented, properties: feature.properties))
        }
    }
}

extension GDALSource {
    /// A Shapefile's text encoding as CityTwin has always read it: its `.cpg` (UTF-8 or a Chinese
    /// code page, anything else refused), else the `.dbf` header's language driver (the Chinese ones
    /// mean GBK), else UTF-8 — never GDAL's ISO-8859-1 default, which turns GBK names into
    /// plausible-looking wrong text instead of an error.
    public static func shapefileEncoding(_ file: URL) throws -> TextEncoding {
        let base = file.deletingPathExtension()
        func sidecar(_ ext: String) -> URL? {
            [ext, ext.uppercased()].map { base.appendingPathExtension($0) }.first { FileManager.default.fileExists(atPath: $0.path) }
        }
        if let cpg = sidecar("cpg") {
            let text = (try? String(contentsOf: cpg, encoding: .utf8)) ?? ""
            guard let encoding = TextEncoding(name: text) else {
                throw ImportError(.unsupported, file: cpg.lastPathComponent,
                                  "encoding \"\(text.trimmingCharacters(in: .whitespacesAndNewlines))\" is not supported (UTF-8, GBK, GB2312, CP936, GB18030)")
            }
            return encoding
        }
        guard let dbf = sidecar("dbf"), let handle = try? FileHandle(forReadingFrom: dbf) else { return .utf8 }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 32)) ?? Data()
        return header.count > 29 && chineseLanguageDrivers.contains(header[header.startIndex + 29]) ? .gb18030 : .utf8
    }

    /// dBASE language driver ids of the Chinese code pages (936 GBK / GB2312).
    static let chineseLanguageDrivers: Set<UInt8> = [0x4D, 0x7A]
}

extension TextEncoding {
    /// The name GDAL's drivers take for it (`ENCODING=`).
    public var gdalName: String {
        switch self {
        case .utf8: "UTF-8"
        case .gb18030: "GB18030"
        }
    }
}
