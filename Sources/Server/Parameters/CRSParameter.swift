import GeoCore
import TwinStore

/// The CRSs of OGC API Features Part 2 (`crs`, `bbox-crs`, the collection `crs` list).
enum CRSParameter {
    /// The CRSs every collection advertises: CRS84 (the default), CGCS2000 (storage), WGS 84, the
    /// city's metric CRS (`CityRecord`; for a CGCS2000 3° Gauss-Krüger zone, without and with its
    /// zone prefix: EPSG:4547 and 4526 for the sample district), Web Mercator. Any other EPSG CRS
    /// PROJ knows is accepted on request too.
    static func advertised(cityMetric: CoordinateReferenceSystem?) -> [CoordinateReferenceSystem] {
        let metric = cityMetric ?? .districtMetric
        var list: [CoordinateReferenceSystem] = [.crs84, .cgcs2000, .wgs84, metric]
        // EPSG:4534–4554 (by central meridian) and EPSG:4513–4533 (with zone prefix) are the same zones.
        if let code = metric.epsgCode, (4534...4554).contains(code) { list.append(CoordinateReferenceSystem(epsg: code - 21)) }
        return list + [.webMercator]
    }

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
