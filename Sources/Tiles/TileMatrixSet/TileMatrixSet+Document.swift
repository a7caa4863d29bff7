import GeoCore

extension TileMatrixSet {
    /// The OGC TMS 2.0 JSON definition of the set (the content of `/tileMatrixSets/{id}`):
    /// `pointOfOrigin` and `boundingBox` corners in the CRS's authority axis order (lat,lon for
    /// EPSG:4490), OGC 0.28 mm scale denominators, `cellSize` in CRS units.
    public var document: JSONValue {
        func ordered(_ x: Double, _ y: Double) -> JSONValue {
            isYFirst ? [.number(y), .number(x)] : [.number(x), .number(y)]
        }
        var o: [String: JSONValue] = [
            "id": .string(id),
            "title": .string(title),
            "crs": .string(crsURI),
            "orderedAxes": .array(orderedAxes.map(JSONValue.string)),
            "boundingBox": [
                "crs": .string(crsURI),
                "orderedAxes": .array(orderedAxes.map(JSONValue.string)),
                "lowerLeft": ordered(domain.minX, domain.minY),
                "upperRight": ordered(domain.maxX, domain.maxY),
            ],
            "tileMatrices": .array(tileMatrices.map { m in
                [
                    "id": .string(String(m.id)),
                    "scaleDenominator": .number(m.scaleDenominator),
                    "cellSize": .number(m.cellSize),
                    "cornerOfOrigin": "topLeft",
                    "pointOfOrigin": ordered(origin.x, origin.y),
                    "tileWidth": .integer(Int64(TileMatrix.tileSize)),
                    "tileHeight": .integer(Int64(TileMatrix.tileSize)),
                    "matrixWidth": .integer(Int64(m.matrixWidth)),
                    "matrixHeight": .integer(Int64(m.matrixHeight)),
                ]
            }),
        ]
        if let uri { o["uri"] = .string(uri) }
        if let wellKnownScaleSet { o["wellKnownScaleSet"] = .string(wellKnownScaleSet) }
        if self == .cgcs2000Quad {
            o["description"] = .string(
                "CGCS2000 geographic tiles compatible with Tianditu's 'c' matrix set: level ids 1-18, level n = WorldCRS84Quad level n-1 "
                + "(clients use zoomOffset 1). Scale denominators use the OGC 0.28 mm pixel; Tianditu publishes 96-DPI values "
                + "(295829355.45 at level 1). Derive resolution from cellSize, never from the scale denominator.")
        }
        return .object(o)
    }
}
