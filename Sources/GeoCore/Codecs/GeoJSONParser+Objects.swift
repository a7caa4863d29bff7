import Foundation

// The GeoJSON objects and coordinate arrays the parser builds from its lexer.
extension GeoJSONParser {
    // MARK: - GeoJSON objects

    /// A GeoJSON object at the cursor: geometry, feature or feature collection. `collections`
    /// counts enclosing geometry collections.
    mutating func object(depth: Int, collections: Int = 0) throws -> GeoJSONObject {
        skipSpace()
        guard peek(UInt8(ascii: "{")) else { throw structure("expected a GeoJSON object but found \(foundKind)") }
        if depth >= GeoJSONParser.maximumNesting { throw tooDeep() }
        var type: String?
        var coordinatesAt: Int?
        var geometriesAt: Int?
        var parsed: Geometry?
        var geometry: Geometry?
        var properties: [String: JSONValue]?
        var id: FeatureID?
        var features: [Feature]?
        try members { me, key in
            switch key {
            case "type":
                guard me.peek(UInt8(ascii: "\"")) else {
                    me.path.append(.key("type"))
                    throw me.structure("'type' must be a string but is \(me.foundKind)")
                }
                type = try me.string()
            case "coordinates":
                if let t = type.flatMap(GeometryType.init(rawValue:)), t != .geometryCollection {
                    me.path.append(.key("coordinates"))
                    parsed = try me.coordinates(t)
                    me.path.removeLast()
                } else {
                    coordinatesAt = me.i
                    try me.skipValue(depth: depth + 1)
                }
            case "geometries":
                if type == GeometryType.geometryCollection.rawValue {
                    me.path.append(.key("geometries"))
                    parsed = try me.geometries(depth: depth + 1, collections: collections + 1)
                    me.path.removeLast()
                } else {
                    geometriesAt = me.i
                    try me.skipValue(depth: depth + 1)
                }
            case "geometry":
                me.path.append(.key("geometry"))
                geometry = try me.optionalGeometry(depth: depth + 1)
                me.path.removeLast()
            case "properties":
                me.path.append(.key("properties"))
                if me.peek(UInt8(ascii: "n")) {
                    try me.literal("null")
                } else if me.peek(UInt8(ascii: "{")) {
                    properties = try me.objectValue(depth: depth + 1)
                } else {
                    throw me.structure("properties must be an object or null but is \(me.foundKind)")
                }
                me.path.removeLast()
            case "id":
                me.path.append(.key("id"))
                id = try me.featureID()
                me.path.removeLast()
            case "features":
                me.path.append(.key("features"))
                features = try me.features(depth: depth + 1)
                me.path.removeLast()
            default:
                // bbox, crs and foreign members: checked for syntax, then ignored.
                try me.skipValue(depth: depth + 1)
            }
        }
        guard let type else { throw structure("missing member 'type'") }
        switch type {
        case "Feature":
            return .feature(Feature(id: id, geometry: geometry, properties: properties ?? [:]))
        case "FeatureCollection":
            guard let features else { throw structure("missing member 'features'") }
            return .featureCollection(FeatureCollection(features))
        default:
            guard let t = GeometryType(rawValue: type) else {
                path.append(.key("type"))
                throw structure("unknown geometry type '\(type)'")
            }
            if let parsed {
                // Duplicate "type" members that disagree: the coordinates were read for another type.
                guard parsed.type == t else { throw structure("'type' is given twice with different values") }
                return .geometry(parsed)
            }
            // The type came after the coordinates: go back and read them now that it is known.
            let end = i
            defer { i = end }
            if t == .geometryCollection {
                if collections >= ShapeRule.maximumCollectionDepth { throw structure(ShapeRule.tooDeepMessage()) }
                guard let at = geometriesAt else { throw structure("missing member 'geometries'") }
                i = at
                path.append(.key("geometries"))
                let g = try geometries(depth: depth + 1, collections: collections + 1)
                path.removeLast()
                return .geometry(g)
            }
            guard let at = coordinatesAt else { throw structure("missing member 'coordinates'") }
            i = at
            path.append(.key("coordinates"))
            let g = try coordinates(t)
            path.removeLast()
            return .geometry(g)
        }
    }

    /// A feature's `geometry`: a geometry object or `null`.
    mutating func optionalGeometry(depth: Int) throws -> Geometry? {
        if peek(UInt8(ascii: "n")) {
            try literal("null")
            return nil
        }
        guard case .geometry(let g) = try object(depth: depth) else {
            throw structure("geometry must be a geometry object or null")
        }
        return g
    }

    mutating func featureID() throws -> FeatureID {
        if peek(UInt8(ascii: "\"")) { return .string(try string()) }
        let start = i
        guard let (_, end) = NumberText.scan(p, n, at: i, json: true) else {
            throw structure("id must be a string or a number but is \(foundKind)")
        }
        if case .integer(let m) = try numberValue() { return .integer(m) }
        // A fractional or huge numeric id: kept exactly as written.
        return .string(String(decoding: UnsafeBufferPointer(start: p + start, count: end - start), as: UTF8.self))
    }

    mutating func features(depth: Int) throws -> [Feature] {
        guard peek(UInt8(ascii: "[")) else { throw structure("features must be an array but is \(foundKind)") }
        var list: [Feature] = []
        try elements(tracking: true) { me, _ in
            guard case .feature(let f) = try me.object(depth: depth + 1) else {
                throw me.structure("features must contain only Feature objects")
            }
            list.append(f)
        }
        return list
    }

    mutating func geometries(depth: Int, collections: Int) throws -> Geometry {
        if collections > ShapeRule.maximumCollectionDepth { throw structure(ShapeRule.tooDeepMessage()) }
        guard peek(UInt8(ascii: "[")) else { throw structure("geometries must be an array but is \(foundKind)") }
        var members: [Geometry] = []
        try elements(tracking: true) { me, _ in
            guard case .geometry(let g) = try me.object(depth: depth + 1, collections: collections) else {
                throw me.structure("geometries must contain only geometry objects")
            }
            members.append(g)
        }
        return .geometryCollection(GeometryCollection(members))
    }

    // MARK: - Coordinates

    mutating func coordinates(_ type: GeometryType) throws -> Geometry {
        guard peek(UInt8(ascii: "[")) else { throw structure("coordinates must be an array but is \(foundKind)") }
        switch type {
        case .point:
            return .point(Point(try optionalPosition()))
        case .lineString:
            return .lineString(LineString(try lineString()))
        case .polygon:
            return .polygon(try polygon())
        case .multiPoint:
            var points: [Point] = []
            try elements(tracking: true) { me, _ in points.append(Point(try me.optionalPosition())) }
            return .multiPoint(MultiPoint(points))
        case .multiLineString:
            var lines: [LineString] = []
            try elements(tracking: true) { me, _ in lines.append(LineString(try me.lineString())) }
            return .multiLineString(MultiLineString(lines))
        case .multiPolygon:
            var polygons: [Polygon] = []
            try elements(tracking: true) { me, _ in polygons.append(try me.polygon()) }
            return .multiPolygon(MultiPolygon(polygons))
        case .geometryCollection:
            throw structure("a GeometryCollection has 'geometries', not 'coordinates'")
        }
    }

    /// `[x, y]` or `[x, y, z]`; `[]` is the empty point.
    mutating func optionalPosition() throws -> Position? {
        guard peek(UInt8(ascii: "[")) else {
            throw structure("expected a position (an array of 2 or 3 numbers) but found \(foundKind)")
        }
        var probe = i + 1
        while probe < n && (p[probe] == 0x20 || p[probe] == 0x0A || p[probe] == 0x0D || p[probe] == 0x09) { probe += 1 }
        if probe < n && p[probe] == UInt8(ascii: "]") {
            i = probe + 1
            return nil
        }
        return try position()
    }

    @inline(__always)
    mutating func position() throws -> Position {
        guard peek(UInt8(ascii: "[")) else {
            throw structure("expected a position (an array of 2 or 3 numbers) but found \(foundKind)")
        }
        i += 1
        var values = (0.0, 0.0, 0.0)
        var count = 0
        while true {
            skipSpace()
            if count == 0 && peek(UInt8(ascii: "]")) { break }
            let v = try coordinate()
            switch count {
            case 0: values.0 = v
            case 1: values.1 = v
            case 2: values.2 = v
            default: throw structure("position needs 2 or 3 numbers; found more")
            }
            count += 1
            skipSpace()
            guard i < n else { throw syntax("',' or ']'") }
            if p[i] == UInt8(ascii: ",") { i += 1; continue }
            if p[i] == UInt8(ascii: "]") { break }
            throw syntax("',' or ']'")
        }
        i += 1
        guard count >= 2 else { throw structure("position needs 2 or 3 numbers; found \(count)") }
        return Position(x: values.0, y: values.1, z: count == 3 ? values.2 : nil)
    }

    mutating func positions() throws -> [Position] {
        guard peek(UInt8(ascii: "[")) else {
            throw structure("expected an array of positions but found \(foundKind)")
        }
        var list: [Position] = []
        try elements(tracking: true) { me, _ in list.append(try me.position()) }
        return list
    }

    mutating func lineString() throws -> [Position] {
        let list = try positions()
        if let problem = ShapeRule.lineStringProblem(count: list.count) { throw invalid(problem) }
        return list
    }

    mutating func polygon() throws -> Polygon {
        guard peek(UInt8(ascii: "[")) else { throw structure("expected an array of rings but found \(foundKind)") }
        var rings: [[Position]] = []
        try elements(tracking: true) { me, k in
            let ring = try me.positions()
            if let problem = ShapeRule.ringProblem(ring, name: ShapeRule.ringName(k)) { throw me.invalid(problem) }
            rings.append(ring)
        }
        guard !rings.isEmpty else { return Polygon(exterior: []) }
        let exterior = rings.removeFirst()
        return Polygon(exterior: exterior, interiors: rings)
    }
}
