import CGDAL
import Foundation
import GeoCore

/// One layer of a `VectorDataset`: its fields, CRS and features, read in order in bounded batches.
/// Keeps its dataset open while it lives.
public final class VectorLayer {
    let dataset: VectorDataset
    let handle: OGRLayerH
    private var read = 0

    /// Whether a feature whose geometry cannot be read comes without one (counted in
    /// ``unreadableGeometries``) instead of failing the batch: for sources whose geometries are
    /// assembled by the driver and may be broken in the source itself (OpenStreetMap's areas, whose
    /// ways a cut extract leaves open). Off by default: an import refuses a broken file.
    public var skipsUnreadableGeometries = false
    /// Features read without their geometry because it could not be read.
    public private(set) var unreadableGeometries = 0

    init(dataset: VectorDataset, handle: OGRLayerH) {
        self.dataset = dataset
        self.handle = handle
        OGR_L_ResetReading(handle)
    }

    /// The layer's name in its file.
    public var name: String { String(cString: OGR_L_GetName(handle)) }

    /// The CRS of its geometries, when the file says and PROJ knows it (see `SpatialReference`).
    public var crs: CoordinateReferenceSystem? { SpatialReference.crs(OGR_L_GetSpatialRef(handle)) }

    /// The CRS as the file defines it (WKT2), for a report when `crs` is `nil`.
    public var crsDefinition: String? { SpatialReference.wkt(OGR_L_GetSpatialRef(handle)) }

    /// The number of features when the format knows it without reading them all; `nil` otherwise.
    public var featureCount: Int? {
        let n = OGR_L_GetFeatureCount(handle, 0)
        return n >= 0 ? Int(n) : nil
    }

    /// The attribute fields, in order.
    public var fields: [VectorField] {
        guard let definition = OGR_L_GetLayerDefn(handle) else { return [] }
        return (0..<OGR_FD_GetFieldCount(definition)).compactMap { i in
            guard let field = OGR_FD_GetFieldDefn(definition, i) else { return nil }
            return VectorField(name: String(cString: OGR_Fld_GetNameRef(field)), type: VectorField.Kind(OGR_Fld_GetType(field)))
        }
    }

    /// The layer's declared geometry type as GDAL names it (`Point`, `Multi Line String`, `3D Polygon`, `Unknown (any)`).
    public var geometryType: String { String(cString: OGRGeometryTypeToName(OGR_L_GetGeomType(handle))) }

    /// Starts reading again from the first feature.
    public func rewind() {
        OGR_L_ResetReading(handle)
        read = 0
    }

    /// The next at most `limit` features; empty at the end. A feature's `id` is its GDAL feature
    /// id (FID) when the format has one; geometries are in the layer's CRS, curves (arcs of a
    /// FileGDB or DXF) stroked into lines, measures (M) dropped; a feature without geometry has `nil`.
    /// - Throws: `DataSourceError.malformed` naming the feature GDAL could not read.
    public func next(upTo limit: Int) throws -> [Feature] {
        var batch = [Feature]()
        batch.reserveCapacity(min(limit, 4_096))
        let fields = self.fields
        while batch.count < limit {
            CPLErrorReset()
            let feature = OGR_L_GetNextFeature(handle)
            // A driver that could not read part of a feature (a truncated record) says so as an
            // error and may still hand out what it read: that feature is refused, not imported half.
            if CPLGetLastErrorType().rawValue >= CE_Failure.rawValue {
                if let feature { OGR_F_Destroy(feature) }
                throw DataSourceError(.malformed, file: dataset.file.lastPathComponent, location: "feature \(read + 1)",
                                      GDALLibrary.takeLastError() ?? "could not be read")
            }
            guard let feature else { break }
            defer { OGR_F_Destroy(feature) }
            read += 1
            batch.append(try decode(feature, fields: fields))
        }
        return batch
    }

    private func decode(_ feature: OGRFeatureH, fields: [VectorField]) throws -> Feature {
        let fid = OGR_F_GetFID(feature)
        var properties = [String: JSONValue]()
        for (i, field) in fields.enumerated() {
            guard let value = Self.value(feature, Int32(i), field.type) else {
                throw DataSourceError(.malformed, file: dataset.file.lastPathComponent, location: "feature \(read)", field: field.name,
                                      "the text is not valid UTF-8 (give the file's encoding)")
            }
            properties[field.name] = value
        }
        var geometry: Geometry?
        if let g = OGR_F_GetGeometryRef(feature) {
            do {
                geometry = try Self.geometry(g)
            } catch where skipsUnreadableGeometries {
                unreadableGeometries += 1
            } catch {
                throw DataSourceError(.malformed, file: dataset.file.lastPathComponent, location: "feature \(read)",
                                      "its geometry cannot be read: \((error as? DataSourceError)?.reason ?? "\(error)")")
            }
        }
        return Feature(id: fid == Int64(OGRNullFID) ? nil : .integer(fid), geometry: geometry, properties: properties)
    }

    /// A GDAL geometry as a GeoCore one, through ISO WKB (linear, without M).
    static func geometry(_ g: OGRGeometryH) throws -> Geometry? {
        if OGR_G_IsEmpty(g) != 0 && OGR_GT_Flatten(OGR_G_GetGeometryType(g)) == wkbGeometryCollection { return nil }
        var owned: OGRGeometryH? = nil
        defer { if let owned { OGR_G_DestroyGeometry(owned) } }
        var linear = g
        if OGR_G_HasCurveGeometry(g, 0) != 0, let stroked = OGR_G_GetLinearGeometry(g, 0, nil) {
            owned = stroked
            linear = stroked
        }
        if OGR_G_IsMeasured(linear) != 0 {
            if owned == nil, let copy = OGR_G_Clone(linear) { owned = copy; linear = copy }
            OGR_G_SetMeasured(linear, 0)
        }
        let size = Int(OGR_G_WkbSize(linear))
        var bytes = [UInt8](repeating: 0, count: size)
        let status = bytes.withUnsafeMutableBufferPointer { OGR_G_ExportToIsoWkb(linear, wkbNDR, $0.baseAddress) }
        guard status == OGRERR_NONE else { throw DataSourceError(.malformed, file: "", "GDAL could not write it as WKB") }
        return try Geometry(wkb: bytes)
    }

    /// A field's value as JSON: integers, reals, text (UTF-8, recoded by GDAL), dates as ISO 8601
    /// (`2024-05-01`, `2024-05-01T08:30:00+08:00`), lists as arrays, binary as base64; unset or
    /// null as `null`; `nil` for text that is not valid UTF-8 (a file read in the wrong encoding).
    static func value(_ feature: OGRFeatureH, _ i: Int32, _ kind: VectorField.Kind) -> JSONValue? {
        guard OGR_F_IsFieldSetAndNotNull(feature, i) != 0 else { return .null }
        switch kind {
        case .integer, .integer64: return .integer(OGR_F_GetFieldAsInteger64(feature, i))
        case .real: return .number(OGR_F_GetFieldAsDouble(feature, i))
        case .date, .time, .dateTime: return dateValue(feature, i, kind)
        case .integerList:
            var n: Int32 = 0
            guard let p = OGR_F_GetFieldAsInteger64List(feature, i, &n) else { return .array([]) }
            return .array((0..<Int(n)).map { .integer(p[$0]) })
        case .realList:
            var n: Int32 = 0
            guard let p = OGR_F_GetFieldAsDoubleList(feature, i, &n) else { return .array([]) }
            return .array((0..<Int(n)).map { .number(p[$0]) })
        case .stringList:
            guard let list = OGR_F_GetFieldAsStringList(feature, i) else { return .array([]) }
            var items = [JSONValue]()
            var k = 0
            while let item = list[k] {
                guard let text = String(validatingCString: item) else { return nil }
                items.append(.string(text))
                k += 1
            }
            return .array(items)
        case .binary:
            var n: Int32 = 0
            guard let p = OGR_F_GetFieldAsBinary(feature, i, &n) else { return .null }
            return .string(Data(bytes: p, count: Int(n)).base64EncodedString())
        case .string, .other:
            return String(validatingCString: OGR_F_GetFieldAsString(feature, i)).map(JSONValue.string)
        }
    }

    private static func dateValue(_ feature: OGRFeatureH, _ i: Int32, _ kind: VectorField.Kind) -> JSONValue {
        var (year, month, day, hour, minute, tz): (Int32, Int32, Int32, Int32, Int32, Int32) = (0, 0, 0, 0, 0, 0)
        var second: Float = 0
        guard OGR_F_GetFieldAsDateTimeEx(feature, i, &year, &month, &day, &hour, &minute, &second, &tz) != 0 else {
            return .string(String(cString: OGR_F_GetFieldAsString(feature, i)))
        }
        let date = String(format: "%04d-%02d-%02d", year, month, day)
        let whole = second.rounded(.down)
        let seconds = whole == second ? String(format: "%02d", Int(whole)) : String(format: "%06.3f", second)
        let time = String(format: "%02d:%02d:", hour, minute) + seconds
        switch kind {
        case .date: return .string(date)
        case .time: return .string(time)
        default:
            // GDAL's TZ flag: 0 unknown, 1 local time, 100 UTC, 100 ± 4 per quarter hour.
            guard tz > 1 else { return .string("\(date)T\(time)") }
            let quarter = Int(tz) - 100
            if quarter == 0 { return .string("\(date)T\(time)Z") }
            let offset = abs(quarter) * 15
            return .string("\(date)T\(time)" + (quarter < 0 ? "-" : "+") + String(format: "%02d:%02d", offset / 60, offset % 60))
        }
    }
}

/// An attribute field of a vector layer.
public struct VectorField: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable {
        case integer, integer64, real, string, date, time, dateTime, binary, integerList, realList, stringList, other

        init(_ type: OGRFieldType) {
            switch type {
            case OFTInteger: self = .integer
            case OFTInteger64: self = .integer64
            case OFTReal: self = .real
            case OFTString: self = .string
            case OFTDate: self = .date
            case OFTTime: self = .time
            case OFTDateTime: self = .dateTime
            case OFTBinary: self = .binary
            case OFTIntegerList, OFTInteger64List: self = .integerList
            case OFTRealList: self = .realList
            case OFTStringList: self = .stringList
            default: self = .other
            }
        }
    }

    public var name: String
    public var type: Kind
}
