import Foundation
import GeoCore
import TwinStore

/// The `bbox` parameter: 4 numbers (or 6 with heights, which are ignored) in `bbox-crs`
/// (CRS84 by default), in that CRS's AUTHORITY axis order (lat,lon for EPSG:4490/4326,
/// northing,easting for EPSG:4547), returned as an EPSG:4490 lon/lat box for the store.
enum BBoxParameter {
    static func parse(_ text: String, crs: CoordinateReferenceSystem) throws -> BoundingBox {
        let name = "bbox"
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 4 || parts.count == 6 else {
            throw Problem.invalid(name, "expected 4 or 6 comma-separated numbers, got \(parts.count)")
        }
        var numbers = [Double]()
        for (i, p) in parts.enumerated() {
            guard let x = Double(p.trimmingCharacters(in: .whitespaces)), x.isFinite else {
                throw Problem.invalid(name, "value \(i + 1) ('\(p)') is not a finite number")
            }
            numbers.append(x)
        }
        let (a1, a2, b1, b2) = parts.count == 4
            ? (numbers[0], numbers[1], numbers[2], numbers[3])
            : (numbers[0], numbers[1], numbers[3], numbers[4])
        if parts.count == 6, numbers[2] > numbers[5] {
            throw Problem.invalid(name, "the lower height \(numbers[2]) is above the upper height \(numbers[5])")
        }
        let metadata: CoordinateReferenceSystem.Metadata
        do { metadata = try crs.metadata } catch {
            throw Problem(.invalidCRS, "parameter 'bbox-crs': \(crs) is unknown", parameter: "bbox-crs")
        }
        // Authority order → internal order (x = longitude/easting).
        let raw = Envelope(minX: a1, minY: a2, maxX: b1, maxY: b2)
        let box = metadata.axisOrder.isSwapped ? Envelope(minX: a2, minY: a1, maxX: b2, maxY: b1) : raw
        let (xName, yName) = metadata.isGeographic ? ("longitude", "latitude") : ("easting", "northing")
        guard box.minX <= box.maxX else {
            throw Problem.invalid(name, "the lower \(xName) \(box.minX) is greater than the upper \(xName) \(box.maxX)")
        }
        guard box.minY <= box.maxY else {
            throw Problem.invalid(name, "the lower \(yName) \(box.minY) is greater than the upper \(yName) \(box.maxY)")
        }
        if metadata.isGeographic {
            guard box.minX >= -180, box.maxX <= 180 else { throw Problem.invalid(name, "longitudes must lie in [-180, 180]") }
            guard box.minY >= -90, box.maxY <= 90 else { throw Problem.invalid(name, "latitudes must lie in [-90, 90]") }
        }
        let storage: Envelope
        do {
            storage = try CoordinateTransformer.shared(from: crs, to: CRSParameter.storage).transform(box)
        } catch let e as GeometryError {
            throw Problem.invalid(name, "cannot transform the box from \(crs) to \(CRSParameter.storage): \(e.message)")
        }
        return BoundingBox(storage, crs: LayerDefinition.storageCRS)
    }
}
