import Foundation

/// Operations over many geometries at once, spread over the machine's cores (`parallelMap`: each
/// worker thread uses its own `GEOSContext`); results keep the input order.
extension Array where Element == Geometry {
    /// Every geometry buffered by `distance` (units of the CRS: metres in EPSG:4547).
    /// - Throws: the error of the lowest failing index, with `position` naming it (`[i]`).
    public func buffered(distance: Double, parameters: BufferParameters = .init()) throws -> [Geometry] {
        try parallelMap { try $0.buffer(distance: distance, parameters: parameters) }
    }
}
