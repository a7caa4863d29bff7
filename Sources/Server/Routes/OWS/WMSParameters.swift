import Foundation
import GeoCore
import MapRendering

/// The key-value parameters of a WMS 1.3.0 request (OGC 06-042 §6.8): names are
/// case-insensitive, values are not; each read names the parameter at fault in its exception.
struct WMSParameters: Sendable {
    private let values: [String: String]

    /// The largest map drawn, in pixels per side (also `MaxWidth`/`MaxHeight` in the capabilities).
    static let maximumSize = 4096

    init(_ query: QueryParameters) throws {
        var values: [String: String] = [:]
        for (name, value) in query.pairs {
            let key = name.uppercased()
            guard values[key] == nil else {
                throw WMSException(.invalidParameterValue, "parameter \(key) is given more than once", locator: key)
            }
            values[key] = value
        }
        self.values = values
    }

    subscript(_ name: String) -> String? { values[name.uppercased()] }

    func required(_ name: String) throws -> String {
        guard let v = self[name], !v.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw WMSException(.missingParameterValue, "parameter \(name) is required", locator: name)
        }
        return v
    }

    /// A pixel count or index in `range`.
    func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int {
        let raw = try required(name)
        guard let v = Int(raw.trimmingCharacters(in: .whitespaces)) else {
            throw WMSException(.invalidParameterValue, "parameter \(name): '\(raw)' is not an integer", locator: name)
        }
        guard range.contains(v) else {
            throw WMSException(.invalidParameterValue, "parameter \(name): \(v) is outside \(range.lowerBound)…\(range.upperBound)", locator: name)
        }
        return v
    }

    /// `WIDTH` and `HEIGHT`, each 1…`maximumSize`.
    func size() throws -> (width: Int, height: Int) {
        (try integer("WIDTH", in: 1...Self.maximumSize), try integer("HEIGHT", in: 1...Self.maximumSize))
    }

    /// The comma-separated names of `name` (LAYERS, QUERY_LAYERS), in order.
    func list(_ name: String) throws -> [String] {
        try required(name).split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// `STYLES`: empty or one entry per layer, each empty or `default` (each layer has its one
    /// style, the web map's).
    func checkStyles(layerCount: Int) throws {
        guard let raw = self["STYLES"], !raw.isEmpty else { return }
        let styles = raw.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard styles.count == layerCount else {
            throw WMSException(.invalidParameterValue, "STYLES has \(styles.count) entries for \(layerCount) layers: give one per layer, or none", locator: "STYLES")
        }
        if let unknown = styles.first(where: { !$0.isEmpty && $0.lowercased() != "default" }) {
            throw WMSException(.styleNotDefined, "style '\(unknown)' is not defined: each layer has the style 'default'", locator: "STYLES")
        }
    }

    /// `CRS`: `CRS:84` or an EPSG code PROJ relates to the storage CRS.
    func crs() throws -> CoordinateReferenceSystem {
        let raw = try required("CRS")
        let crs: CoordinateReferenceSystem
        do {
            crs = try CoordinateReferenceSystem(parsing: raw)
            guard crs == .crs84 || crs.epsgCode != nil else { throw WMSException(.invalidCRS, "CRS '\(raw)' is not CRS:84 or an EPSG code", locator: "CRS") }
            _ = try CoordinateTransformer.shared(from: MapView.storageCRS, to: crs)
        } catch let e as GeometryError {
            throw WMSException(.invalidCRS, "CRS '\(raw)': \(e.message)", locator: "CRS")
        }
        return crs
    }

    /// `BBOX` in the axis order of `crs` (WMS 1.3: latitude first for EPSG:4326 and 4490,
    /// northing first for the CGCS2000 Gauss-Krüger zones), as an envelope in CityTwin's
    /// internal order (x east).
    func bbox(_ crs: CoordinateReferenceSystem) throws -> Envelope {
        let raw = try required("BBOX")
        let numbers = raw.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard numbers.count == 4, let a = numbers[0], let b = numbers[1], let c = numbers[2], let d = numbers[3],
              [a, b, c, d].allSatisfy(\.isFinite) else {
            throw WMSException(.invalidParameterValue, "BBOX '\(raw)' is not four numbers minx,miny,maxx,maxy", locator: "BBOX")
        }
        guard a < c, b < d else {
            throw WMSException(.invalidParameterValue, "BBOX '\(raw)': each minimum must be below its maximum", locator: "BBOX")
        }
        do {
            return try crs.fromAuthorityOrder(Envelope(minX: a, minY: b, maxX: c, maxY: d))
        } catch let e as GeometryError {
            throw WMSException(.invalidCRS, "CRS \(WMSNames.crs(crs)): \(e.message)", locator: "CRS")
        }
    }

    /// `FORMAT` of a map or legend (PNG when absent and `optional`).
    func format(optional: Bool = false) throws -> MapImageFormat {
        guard let raw = self["FORMAT"], !raw.isEmpty else {
            if optional { return .png }
            throw WMSException(.missingParameterValue, "parameter FORMAT is required: image/png, image/jpeg or application/pdf", locator: "FORMAT")
        }
        guard let format = MapImageFormat(mediaType: raw) else {
            throw WMSException(.invalidFormat, "FORMAT '\(raw)' is not served: image/png, image/jpeg or application/pdf", locator: "FORMAT")
        }
        return format
    }

    /// The background: none for `TRANSPARENT=TRUE` (PNG and PDF), else `BGCOLOR` (0xRRGGBB,
    /// white by default).
    func background(_ format: MapImageFormat) throws -> MapColour? {
        let transparent = self["TRANSPARENT"]?.uppercased() ?? "FALSE"
        guard transparent == "TRUE" || transparent == "FALSE" else {
            throw WMSException(.invalidParameterValue, "TRANSPARENT '\(self["TRANSPARENT"] ?? "")' is not TRUE or FALSE", locator: "TRANSPARENT")
        }
        if transparent == "TRUE" && format != .jpeg { return nil }
        guard let raw = self["BGCOLOR"] else { return .white }
        let hex = raw.uppercased()
        guard hex.hasPrefix("0X"), hex.count == 8, UInt32(hex.dropFirst(2), radix: 16) != nil else {
            throw WMSException(.invalidParameterValue, "BGCOLOR '\(raw)' is not a colour 0xRRGGBB", locator: "BGCOLOR")
        }
        return try MapColour(parsing: "#" + hex.dropFirst(2))
    }
}

/// How WMS names things: CRSs (`CRS:84`, `EPSG:4490`) and the formats served.
enum WMSNames {
    static func crs(_ crs: CoordinateReferenceSystem) -> String {
        crs == .crs84 ? "CRS:84" : crs.epsgCode.map { "EPSG:\($0)" } ?? crs.description
    }

    static let mapFormats = MapImageFormat.allCases.map(\.mediaType)
    static let infoFormats = ["application/json", "text/html"]
}
