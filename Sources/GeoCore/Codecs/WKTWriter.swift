extension Geometry {
    /// Well-Known Text, e.g. `POLYGON ((0 0, 10 0, 10 10, 0 0))`.
    ///
    /// - Parameter precision: decimals to round each coordinate to (trailing zeros dropped);
    ///   `nil` writes the shortest text that reads back to the same `Double`, in plain notation
    ///   for ordinary magnitudes (`0.00001`, not `1e-05`).
    ///
    /// When every position has a height the keywords carry the `Z` tag (`POINT Z (1 2 3)`); when
    /// only some do, each position is written with the numbers it has and no tag.
    public func wkt(precision: Int? = nil) -> String {
        var writer = WKTWriter(precision: precision, zTag: uniformZ)
        writer.write(self)
        return String(decoding: writer.out, as: UTF8.self)
    }

    /// Extended WKT as PostGIS reads it: `SRID=4490;POINT (114.3 30.6)`. `srid` is an EPSG code;
    /// `nil` writes plain WKT.
    public func ewkt(srid: Int32?, precision: Int? = nil) -> String {
        guard let srid else { return wkt(precision: precision) }
        return "SRID=\(srid);" + wkt(precision: precision)
    }

    /// Whether there is at least one position and every position has a height.
    var uniformZ: Bool {
        var any = false
        var all = true
        forEachPosition { q in
            any = true
            if q.z == nil { all = false }
        }
        return any && all
    }
}

struct WKTWriter {
    let precision: Int?
    let zTag: Bool
    var out: [UInt8] = []

    init(precision: Int?, zTag: Bool) {
        self.precision = precision
        self.zTag = zTag
        out.reserveCapacity(64)
    }

    mutating func ascii(_ s: StaticString) {
        out.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    mutating func keyword(_ type: GeometryType) {
        switch type {
        case .point: ascii("POINT")
        case .lineString: ascii("LINESTRING")
        case .polygon: ascii("POLYGON")
        case .multiPoint: ascii("MULTIPOINT")
        case .multiLineString: ascii("MULTILINESTRING")
        case .multiPolygon: ascii("MULTIPOLYGON")
        case .geometryCollection: ascii("GEOMETRYCOLLECTION")
        }
        if zTag { ascii(" Z") }
    }

    @inline(__always)
    mutating func position(_ q: Position) {
        NumberText.append(q.x, precision: precision, to: &out)
        out.append(UInt8(ascii: " "))
        NumberText.append(q.y, precision: precision, to: &out)
        if let z = q.z {
            out.append(UInt8(ascii: " "))
            NumberText.append(z, precision: precision, to: &out)
        }
    }

    mutating func positions(_ list: [Position]) {
        if list.isEmpty { ascii("EMPTY"); return }
        out.reserveCapacity(out.count + list.count * 24)
        out.append(UInt8(ascii: "("))
        for (k, q) in list.enumerated() {
            if k > 0 { ascii(", ") }
            position(q)
        }
        out.append(UInt8(ascii: ")"))
    }

    mutating func polygonBody(_ p: Polygon) {
        if p.exterior.isEmpty { ascii("EMPTY"); return }
        out.append(UInt8(ascii: "("))
        positions(p.exterior)
        for hole in p.interiors {
            ascii(", ")
            positions(hole)
        }
        out.append(UInt8(ascii: ")"))
    }

    mutating func list<T>(_ items: [T], _ body: (inout WKTWriter, T) -> Void) {
        if items.isEmpty { ascii("EMPTY"); return }
        out.append(UInt8(ascii: "("))
        for (k, item) in items.enumerated() {
            if k > 0 { ascii(", ") }
            body(&self, item)
        }
        out.append(UInt8(ascii: ")"))
    }

    mutating func write(_ g: Geometry) {
        keyword(g.type)
        out.append(UInt8(ascii: " "))
        switch g {
        case .point(let p):
            if let q = p.position {
                out.append(UInt8(ascii: "("))
                position(q)
                out.append(UInt8(ascii: ")"))
            } else {
                ascii("EMPTY")
            }
        case .lineString(let l):
            positions(l.positions)
        case .polygon(let p):
            polygonBody(p)
        case .multiPoint(let m):
            list(m.points) { w, p in
                if let q = p.position {
                    w.out.append(UInt8(ascii: "("))
                    w.position(q)
                    w.out.append(UInt8(ascii: ")"))
                } else {
                    w.ascii("EMPTY")
                }
            }
        case .multiLineString(let m):
            list(m.lineStrings) { w, l in w.positions(l.positions) }
        case .multiPolygon(let m):
            list(m.polygons) { w, p in w.polygonBody(p) }
        case .geometryCollection(let c):
            list(c.geometries) { w, member in w.write(member) }
        }
    }
}
