import CPROJ

extension CoordinateReferenceSystem {
    /// The order of the first two axes as the authority defines them. CityTwin stores and
    /// computes in the "x first" order (`.lonLat` / `.eastNorth`) whatever this says.
    public enum AxisOrder: String, Hashable, Sendable {
        /// Latitude first (EPSG:4326, EPSG:4490).
        case latLon
        /// Longitude first (OGC:CRS84, GCJ02, BD09).
        case lonLat
        /// Northing first (EPSG:4547 and the other Chinese Gauss-Krüger CRSs).
        case northEast
        /// Easting first (EPSG:3857, UTM). Also used for CRSs whose first axis is neither
        /// north- nor south-pointing (geocentric, engineering).
        case eastNorth

        /// Whether the authority's first axis is latitude or northing, i.e. whether x and y
        /// swap between CityTwin's internal order and the authority's.
        public var isSwapped: Bool { self == .latLon || self == .northEast }
    }

    /// What PROJ's database says about a CRS, looked up once and cached.
    public struct Metadata: Hashable, Sendable {
        /// The CRS name, e.g. `"China Geodetic Coordinate System 2000"`.
        public var name: String
        /// Whether coordinates are angles (longitude/latitude in degrees).
        public var isGeographic: Bool
        /// The authority's axis order.
        public var axisOrder: AxisOrder
        /// Where the CRS is meant to be used, as longitude/latitude degrees (minX = west,
        /// minY = south); `nil` when PROJ has none. West may exceed east across the antimeridian.
        public var areaOfUse: Envelope?
        /// The name of the area of use, e.g. `"China - onshore and offshore."`.
        public var areaName: String?
        /// The unit of the first axis as PROJ names it: `"degree"`, `"metre"`.
        public var unitName: String
        /// The factor converting the first axis unit to SI (radians or metres).
        public var unitToSI: Double
    }

    /// The CRS's metadata from PROJ (cached process-wide after the first lookup).
    /// - Throws: `GeometryError` `.crs` "unknown CRS EPSG:999999" when PROJ does not know it.
    public var metadata: Metadata {
        get throws {
            if let m = PROJCatalog.shared.metadata(self) { return m }
            let m = try lookUpMetadata()
            PROJCatalog.shared.remember(m, for: self)
            return m
        }
    }

    /// Swaps x and y when the authority's first axis is latitude or northing, turning
    /// CityTwin's internal order into the order the CRS definition prescribes (for OGC API
    /// responses with a `crs` parameter, WMS 1.3 bboxes, GML).
    public func toAuthorityOrder(_ p: Position) throws -> Position {
        try metadata.axisOrder.isSwapped ? Position(x: p.y, y: p.x, z: p.z) : p
    }

    /// The inverse of `toAuthorityOrder(_:)`: from the authority's order to CityTwin's.
    /// The swap is its own inverse; the two names say which way the data flows.
    public func fromAuthorityOrder(_ p: Position) throws -> Position {
        try toAuthorityOrder(p)
    }

    /// `toAuthorityOrder(_:)` for every position of a geometry.
    public func toAuthorityOrder(_ g: Geometry) throws -> Geometry {
        guard try metadata.axisOrder.isSwapped else { return g }
        return g.mapPositions { Position(x: $0.y, y: $0.x, z: $0.z) }
    }

    /// `fromAuthorityOrder(_:)` for every position of a geometry.
    public func fromAuthorityOrder(_ g: Geometry) throws -> Geometry {
        try toAuthorityOrder(g)
    }

    /// `toAuthorityOrder(_:)` for a bounding box (e.g. a `bbox` in a `bbox-crs` with lat,lon order).
    public func toAuthorityOrder(_ e: Envelope) throws -> Envelope {
        guard try metadata.axisOrder.isSwapped else { return e }
        return Envelope(minX: e.minY, minY: e.minX, maxX: e.maxY, maxY: e.maxX)
    }

    /// `fromAuthorityOrder(_:)` for a bounding box.
    public func fromAuthorityOrder(_ e: Envelope) throws -> Envelope {
        try toAuthorityOrder(e)
    }

    private func lookUpMetadata() throws -> Metadata {
        if let frame = chinaDisplayFrame {
            return Metadata(
                name: frame.name, isGeographic: true, axisOrder: .lonLat,
                areaOfUse: ChinaDisplayOffset.coverage, areaName: "China (crude box of the public GCJ-02 algorithm)",
                unitName: "degree", unitToSI: .pi / 180)
        }
        let ctx = PROJContext.current
        guard let crs = proj_create_from_database(ctx.handle, authority, code, PJ_CATEGORY_CRS, 0, nil) else {
            _ = ctx.failureReason(nil)
            throw GeometryError(.crs, "unknown CRS \(self)")
        }
        defer { proj_destroy(crs) }
        let name = proj_get_name(crs).map { String(cString: $0) } ?? description

        // The horizontal part decides the axis order: the first component of a compound CRS,
        // the source of a bound CRS.
        var horizontal = crs
        var owned: [OpaquePointer] = []
        defer { owned.forEach { proj_destroy($0) } }
        while true {
            let type = proj_get_type(horizontal)
            let inner: OpaquePointer?
            if type == PJ_TYPE_COMPOUND_CRS {
                inner = proj_crs_get_sub_crs(ctx.handle, horizontal, 0)
            } else if type == PJ_TYPE_BOUND_CRS {
                inner = proj_get_source_crs(ctx.handle, horizontal)
            } else {
                break
            }
            guard let inner else { break }
            owned.append(inner)
            horizontal = inner
        }
        let type = proj_get_type(horizontal)
        let isGeographic = type == PJ_TYPE_GEOGRAPHIC_2D_CRS || type == PJ_TYPE_GEOGRAPHIC_3D_CRS

        var direction = "east", unitName = isGeographic ? "degree" : "metre", unitToSI = 1.0
        if let cs = proj_crs_get_coordinate_system(ctx.handle, horizontal) {
            defer { proj_destroy(cs) }
            var dir: UnsafePointer<CChar>?
            var unit: UnsafePointer<CChar>?
            var factor = 0.0
            if proj_cs_get_axis_info(ctx.handle, cs, 0, nil, nil, &dir, &factor, &unit, nil, nil) != 0 {
                if let dir { direction = String(cString: dir).lowercased() }
                if let unit { unitName = String(cString: unit) }
                unitToSI = factor
            }
        }
        let northFirst = direction == "north" || direction == "south"
        let axisOrder: AxisOrder = isGeographic ? (northFirst ? .latLon : .lonLat) : (northFirst ? .northEast : .eastNorth)

        var west = -1000.0, south = -1000.0, east = -1000.0, north = -1000.0
        var area: UnsafePointer<CChar>?
        var areaOfUse: Envelope?
        var areaName: String?
        if proj_get_area_of_use(ctx.handle, crs, &west, &south, &east, &north, &area) != 0, west > -1000 {
            areaOfUse = Envelope(minX: west, minY: south, maxX: east, maxY: north)
            areaName = area.map { String(cString: $0) }
        }
        _ = ctx.failureReason(nil)
        return Metadata(name: name, isGeographic: isGeographic, axisOrder: axisOrder, areaOfUse: areaOfUse,
                        areaName: areaName, unitName: unitName, unitToSI: unitToSI)
    }
}
