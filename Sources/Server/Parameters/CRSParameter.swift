import GeoCore
import TwinStore

/// The CRSs of OGC API Features Part 2 (`crs`, `bbox-crs`, the collection `crs` list).
enum CRSParameter {
    /// The CRSs every collection advertises: CRS84 (the default), CGCS2000 (storage), WGS 84,
    /// CGCS2000 / 3° Gauss-Krüger CM 114°E without and with zone prefix, Web Mercator.
    /// Any other EPSG CRS PROJ knows is accepted on request too.
    static let advertised: [CoordinateReferenceSystem] = [
        .crs84, .cgcs2000, .wgs84, .districtMetric, CoordinateReferenceSystem(epsg: 4526), .webMercator,
    ]

    /// The storage CRS of every layer (EPSG:4490, lon/lat internally).
    static let storage = CoordinateReferenceSystem.cgcs2000

    /// Parses a `crs`/`bbox-crs` value: OGC URIs, URNs, `EPSG:n`, `CRS84`. Only EPSG CRSs PROJ
    /// knows and CRS84 are accepted (the China display frames are not request CRSs).
    static func parse(_ text: String, parameter: String) throws -> CoordinateReferenceSystem {
        let crs: CoordinateReferenceSystem
        do {
            crs = try CoordinateReferenceSystem(parsing: text)
        } catch let e as GeometryError {
            throw Problem(.invalidCRS, "parameter '\(parameter)': \(e.message)", parameter: parameter)
        }
        guard crs == .crs84 || crs.epsgCode != nil else {
            throw Problem(.invalidCRS, "parameter '\(parameter)': \(crs) is not an EPSG CRS or CRS84", parameter: parameter)
        }
        do {
            _ = try CoordinateTransformer.shared(from: storage, to: crs)
        } catch let e as GeometryError {
            throw Problem(.invalidCRS, "parameter '\(parameter)': cannot transform from \(storage) to \(crs): \(e.message)",
                          parameter: parameter)
        }
        return crs
    }
}
