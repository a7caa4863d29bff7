import Foundation
import GeoCore

/// A raster the store manages (issue 58 §1): a DEM, or any grid a run reads, imported by the
/// platform administrator, listed, referenced by its id and served under the rasters' access
/// rule. No request names a file on the server: a run reads `dem` as the id of a managed raster,
/// and the grid travels inside the store (so a copied SpatiaLite file keeps its DEM, and every
/// server and worker on a PostGIS store reads the same one).
///
/// Today's format is the ESRI ASCII grid the flood engine reads, in a projected metric CRS.
public struct ManagedRaster: Codable, Sendable, Hashable {
    /// What a raster is for.
    public enum Kind: String, Codable, Sendable, Hashable, CaseIterable {
        /// A digital elevation model: ground heights in metres.
        case dem
    }

    /// The id runs name it by: `[a-z0-9][a-z0-9_-]*`, at most 64 characters.
    public var id: String
    public var title: String
    public var kind: Kind
    /// `esri-ascii`.
    public var format: String
    /// The grid's CRS, `EPSG:<code>`.
    public var crs: String
    public var width: Int
    public var height: Int
    /// Cell width and height in the CRS's units.
    public var cellSize: [Double]
    /// The grid's extent in its CRS: min x, min y, max x, max y.
    public var bbox: [Double]
    /// Size of the stored grid in bytes, and its SHA-256 (hex).
    public var bytes: Int
    public var sha256: String
    /// Who imported it (`Caller.author`) and when (RFC 3339).
    public var createdBy: String
    public var createdAt: String

    /// The format of every managed raster so far.
    public static let esriASCII = "esri-ascii"
    /// The media type a managed ESRI ASCII grid downloads as.
    public static let esriASCIIMediaType = "text/plain; charset=us-ascii; application=esri-asciigrid"
    /// The id `citytwin district build` gives the sample district's DEM, and the one a flood run
    /// reads when it names none.
    public static let defaultDEM = "dem"
    /// The largest grid the store takes, in bytes (an ESRI ASCII grid of ~20 M cells).
    public static let maximumBytes = 256 * 1024 * 1024

    /// Whether `id` is a managed raster's id: `[a-z0-9][a-z0-9_-]*`, at most 64 bytes.
    public static func isValidID(_ id: String) -> Bool {
        let u = Array(id.utf8)
        guard let first = u.first, u.count <= 64, isLowerAlphanumeric(first) else { return false }
        return u.allSatisfy { isLowerAlphanumeric($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
    }

    private static func isLowerAlphanumeric(_ c: UInt8) -> Bool { (48...57).contains(c) || (97...122).contains(c) }

    /// The description of `grid` (read from `data`) as raster `id`, imported by `caller` at `now`.
    /// - Throws: `StoreError` `.invalidFeature` naming `id` or `crs` when either is not acceptable.
    public static func describe(_ grid: Grid, data: Data, id: String, title: String?, kind: Kind, crs: Int,
                                by caller: Caller, now: Date = TwinClock.current.now) throws -> ManagedRaster {
        guard isValidID(id) else {
            throw StoreError(.invalidFeature, "a raster id is 1–64 lower-case letters, digits, '-' and '_', starting with a letter or digit",
                             field: "id")
        }
        let transform = grid.geoTransform
        let e = grid.envelope
        return ManagedRaster(id: id, title: title ?? id, kind: kind, format: esriASCII, crs: "EPSG:\(crs)", width: grid.width,
                             height: grid.height, cellSize: [abs(transform.pixelWidth), abs(transform.pixelHeight)],
                             bbox: [e.minX, e.minY, e.maxX, e.maxY], bytes: data.count, sha256: SHA256.hex(Array(data)),
                             createdBy: caller.author, createdAt: RFC3339.format(now))
    }

    /// The EPSG code of `crs`, when it is `EPSG:<code>`.
    public var epsg: Int? {
        guard crs.hasPrefix("EPSG:") else { return nil }
        return Int(crs.dropFirst(5))
    }
}

/// The store's managed rasters: kept in the store itself (table `rasters`: id, description, grid),
/// written by the platform administrator only, every write an entry of the audit chain (layer
/// `rasters`, feature `raster:<id>`, the grid's SHA-256 as its content hash).
public protocol ManagedRasters: Sendable {
    /// Stores `data` (described by `raster`) as raster `raster.id`.
    /// - Parameter replace: whether an existing raster of that id may be replaced; without it an
    ///   existing id is refused (`.duplicateFeature`), so nothing is overwritten unasked.
    /// - Throws: `StoreError` `.forbidden` for any caller but the admin.
    func putRaster(_ raster: ManagedRaster, data: Data, replace: Bool, by caller: Caller) async throws
    /// Every managed raster's description, by id.
    func managedRasters() async throws -> [ManagedRaster]
    /// The description of raster `id`, nil when there is none.
    func managedRaster(_ id: String) async throws -> ManagedRaster?
    /// The grid of raster `id` as stored, nil when there is none.
    func managedRasterData(_ id: String) async throws -> Data?
    /// Deletes raster `id`; false when there was none.
    /// - Throws: `StoreError` `.forbidden` for any caller but the admin.
    func deleteRaster(_ id: String, by caller: Caller) async throws -> Bool
}

/// What both backends share of the `rasters` table.
enum RasterSQL {
    /// The audit log's layer name for raster writes (not a layer of the catalogue).
    static let auditLayer = "rasters"

    static func featureID(_ id: String) -> String { "raster:\(id)" }

    /// Refuses every caller but the admin.
    static func checkWriter(_ caller: Caller, _ what: String) throws {
        guard caller == .admin else {
            throw StoreError(.forbidden, "only the platform administrator may \(what) a managed raster (rasters are the city's shared base data)",
                             field: "raster")
        }
    }

    static func encode(_ raster: ManagedRaster) throws -> String {
        let encoder = JSONOutput.encoder(.canonical)
        return String(decoding: try encoder.encode(raster), as: UTF8.self)
    }

    static func decode(_ text: String) throws -> ManagedRaster {
        do { return try JSONDecoder().decode(ManagedRaster.self, from: Data(text.utf8)) } catch {
            throw StoreError(.backend, "a managed raster's description in the store cannot be read")
        }
    }

    static func duplicate(_ id: String) -> StoreError {
        StoreError(.duplicateFeature, "the store already has a raster '\(id)'; replace it explicitly (citytwin raster import --replace)",
                   field: "id")
    }
}
