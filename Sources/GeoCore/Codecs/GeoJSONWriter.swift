/// Writes GeoJSON bytes directly (no `JSONEncoder`): big layers are written in one pass into
/// one growing buffer. Property keys are written in sorted order so output is deterministic.
struct GeoJSONWriter {
    let precision: Int?
    let rightHandRule: Bool
    var out: [UInt8] = []

    init(options: GeoJSONWriteOptions) {
        precision = options.precision
        rightHandRule = options.rightHandRule
        out.reserveCapacity(256)
    }

    @inline(__always)
    mutating func ascii(_ s: StaticString) {
        out.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    /// A coordinate; JSON has no NaN or infinity, so a non-finite one is written as `null`.
    @inline(__always)
    mutating func number(_ v: Double) {
        if v.isFinite { NumberText.append(v, precision: precision, to: &out) } else { ascii("null") }
    }

    @inline(__always)
    mutating func position(_ q: Position) {
        out.append(UInt8(ascii: "["))
        number(q.x)
        out.append(UInt8(ascii: ","))
        number(q.y)
        if let z = q.z {
            out.append(UInt8(ascii: ","))
            number(z)
        }
        out.append(UInt8(ascii: "]"))
    }

    mutating func positions(_ list: [Position], reversed: Bool = false) {
        out.reserveCapacity(out.count + list.count * 40)
        out.append(UInt8(ascii: "["))
        let n = list.count
        for k in 0..<n {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            position(list[reversed ? n - 1 - k : k])
        }
        out.append(UInt8(ascii: "]"))
    }


    mutating func polygonRings(_ p: Polygon) {
        out.append(UInt8(ascii: "["))
        if !p.exterior.isEmpty {
            let reverseExterior = rightHandRule && Polygon.doubledSignedArea(ofRing: p.exterior) < 0
            positions(p.exterior, reversed: reverseExterior)
            for hole in p.interiors {
                out.append(UInt8(ascii: ","))
                positions(hole, reversed: rightHandRule && Polygon.doubledSignedArea(ofRing: hole) > 0)
            }
        }
        out.append(UInt8(ascii: "]"))
    }

    mutating func geometry(_ g: Geometry) {
        ascii("{\"type\":\"")
        out.append(contentsOf: g.type.rawValue.utf8)
        if case .geometryCollection(let c) = g {
            ascii("\",\"geometries\":[")
            for (k, member) in c.geometries.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                geometry(member)
            }
            ascii("]}")
            return
        }
        ascii("\",\"coordinates\":")
        switch g {
        case .point(let p):
            if let q = p.position { position(q) } else { ascii("[]") }
        case .lineString(let l):
            positions(l.positions)
        case .polygon(let p):
            polygonRings(p)
        case .multiPoint(let m):
            out.append(UInt8(ascii: "["))
            for (k, p) in m.points.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                if let q = p.position { position(q) } else { ascii("[]") }
            }
            out.append(UInt8(ascii: "]"))
        case .multiLineString(let m):
            out.append(UInt8(ascii: "["))
            for (k, l) in m.lineStrings.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                positions(l.positions)
            }
            out.append(UInt8(ascii: "]"))
        case .multiPolygon(let m):
            out.append(UInt8(ascii: "["))
            for (k, p) in m.polygons.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                polygonRings(p)
            }
            out.append(UInt8(ascii: "]"))
        case .geometryCollection:
            break
        }
        out.append(UInt8(ascii: "}"))
    }

    mutating func feature(_ f: Feature) {
        ascii("{\"type\":\"Feature\"")
        if let id = f.id {
            ascii(",\"id\":")
            switch id {
            case .string(let s): string(s)
            case .integer(let m): out.append(contentsOf: String(m).utf8)
            }
        }
        ascii(",\"geometry\":")
        if let g = f.geometry { geometry(g) } else { ascii("null") }
        ascii(",\"properties\":")
        object(f.properties)
        out.append(UInt8(ascii: "}"))
    }

    mutating func featureCollection(_ c: FeatureCollection) {
        ascii("{\"type\":\"FeatureCollection\",\"features\":[")
        for (k, f) in c.features.enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            feature(f)
        }
        ascii("]}")
    }

    // MARK: JSON values

    mutating func value(_ v: JSONValue) {
        switch v {
        case .null: ascii("null")
        case .bool(let b): if b { ascii("true") } else { ascii("false") }
        case .integer(let m): out.append(contentsOf: String(m).utf8)
        case .number(let d):
            // A whole number keeps a ".0" so that it reads back as a number, not an integer.
            if !d.isFinite {
                ascii("null")
            } else if d == d.rounded(.towardZero) && abs(d) < 1.0e15 {
                if d == 0 && d.sign == .minus { out.append(UInt8(ascii: "-")) }
                NumberText.appendFixed(Int64(d), decimals: 0, to: &out)
                ascii(".0")
            } else {
                let start = out.count
                NumberText.appendShortest(d, to: &out)
                // The shortest text of a large whole number may be all digits (7011111111111111):
                // it too needs the ".0" to read back as a number.
                if !out[start...].contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }) { ascii(".0") }
            }
        case .string(let s): string(s)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (k, e) in a.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                value(e)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o): object(o)
        }
    }

    mutating func object(_ o: [String: JSONValue]) {
        out.append(UInt8(ascii: "{"))
        for (k, key) in o.keys.sorted().enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            string(key)
            out.append(UInt8(ascii: ":"))
            value(o[key] ?? .null)
        }
        out.append(UInt8(ascii: "}"))
    }

    static let hexDigits = Array("0123456789abcdef".utf8)

    mutating func string(_ s: String) {
        out.append(UInt8(ascii: "\""))
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): ascii("\\\"")
            case UInt8(ascii: "\\"): ascii("\\\\")
            case 0x0A: ascii("\\n")
            case 0x0D: ascii("\\r")
            case 0x09: ascii("\\t")
            case 0..<0x20:
                ascii("\\u00")
                out.append(GeoJSONWriter.hexDigits[Int(b >> 4)])
                out.append(GeoJSONWriter.hexDigits[Int(b & 0xF)])
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
