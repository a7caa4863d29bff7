import CGDAL
import Foundation

extension VectorLayer {
    /// Keeps only the features `clause` selects — an attribute filter in GDAL's SQL dialect, the
    /// `WHERE` part of a query (`kind = 'fire_station' AND status <> 'closed'`, GDAL's `-where`);
    /// `nil` reads every feature again. Reading starts over from the first feature.
    /// - Throws: `DataSourceError.malformed` naming the clause and GDAL's reason when it does not parse
    ///   or names a field the layer does not have.
    public func setAttributeFilter(_ clause: String?) throws {
        CPLErrorReset()
        let status = clause.map { OGR_L_SetAttributeFilter(handle, $0) } ?? OGR_L_SetAttributeFilter(handle, nil)
        guard status == OGRERR_NONE else {
            throw DataSourceError(.malformed, file: dataset.file.lastPathComponent, field: "where",
                                  "the filter '\(clause ?? "")' is not a GDAL SQL condition on this layer: \(GDALLibrary.takeLastError() ?? "error \(status)")")
        }
        rewind()
    }
}
