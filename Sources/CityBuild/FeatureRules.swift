import Foundation
import GeoCore

/// How tagged OpenStreetMap objects become the city's other layers (issue 52 §3): the one table of
/// rules beside `RoadRules` (docs/capabilities/city-build.md shows both). Each rule names the layer,
/// the tags that select an object, the geometry the layer takes, the properties read from tags and
/// the properties a layer built from OpenStreetMap requires (what OpenStreetMap can say; the rest
/// stay empty until the department that owns the layer fills them — never invented).
public struct FeatureRule: Sendable {
    /// The geometry a layer takes.
    public enum Shape: Sendable, Hashable {
        /// A point: a tagged node as it is, a tagged area by its point on surface (GEOS).
        case point
        /// A polygon: tagged areas only; a tagged node is dropped (it has no footprint).
        case polygon
        /// A line: tagged ways that are not areas (a river's centreline).
        case line
    }

    public var layer: String
    /// What the selecting tags are, as the docs show it (`amenity=fire_station`).
    public var selects: String
    public var shape: Shape
    /// The properties a layer built from OpenStreetMap requires.
    public var required: [String]
    let matches: @Sendable (OSMTags) -> Bool
    /// The properties read from the tags, and the names of those derived by a rule (not tagged).
    let properties: @Sendable (OSMTags, _ osmID: String) -> (values: [String: JSONValue], derived: [String])

    /// Every rule, in build order.
    public static let all: [FeatureRule] = [fireStations, hydrants, hospitals, shelters, parkingLots, buildings, rivers, lakes, reservoirs]

    /// `amenity=fire_station`: `name`.
    static let fireStations = FeatureRule(layer: "fire_stations", selects: "amenity=fire_station", shape: .point, required: ["name"],
                                          matches: { $0["amenity"] == "fire_station" }) { tags, id in
        named(tags, id, fallback: "fire station")
    }

    /// `emergency=fire_hydrant`: `kind` from `fire_hydrant:type` (pillar 地上式, underground 地下式),
    /// `outlet_mm` from `fire_hydrant:diameter` (mm), `road` from `addr:street`.
    static let hydrants = FeatureRule(layer: "hydrants", selects: "emergency=fire_hydrant", shape: .point, required: [],
                                      matches: { $0["emergency"] == "fire_hydrant" }) { tags, id in
        var values: [String: JSONValue] = [:]
        switch tags["fire_hydrant:type"] {
        case "pillar": values["kind"] = "地上式"
        case "underground": values["kind"] = "地下式"
        default: break
        }
        if let d = integer(tags["fire_hydrant:diameter"], in: 25...1000) { values["outlet_mm"] = .integer(Int64(d)) }
        if let street = tags["addr:street"] { values["road"] = .string(street) }
        return (values, [])
    }

    /// `amenity=hospital`: `name`, `beds` from `beds`, `emergency_department` from `emergency=yes|no`.
    static let hospitals = FeatureRule(layer: "hospitals", selects: "amenity=hospital", shape: .point, required: ["name"],
                                       matches: { $0["amenity"] == "hospital" }) { tags, id in
        var (values, derived) = named(tags, id, fallback: "hospital")
        if let beds = integer(tags["beds"], in: 0...20_000) { values["beds"] = .integer(Int64(beds)) }
        switch tags["emergency"] {
        case "yes": values["emergency_department"] = true
        case "no": values["emergency_department"] = false
        default: break
        }
        return (values, derived)
    }

    /// `emergency=assembly_point` (an emergency assembly point, not a weather shelter): `name`,
    /// `capacity` from `capacity` (persons).
    static let shelters = FeatureRule(layer: "shelters", selects: "emergency=assembly_point", shape: .point, required: ["name"],
                                      matches: { $0["emergency"] == "assembly_point" }) { tags, id in
        var (values, derived) = named(tags, id, fallback: "assembly point")
        if let c = integer(tags["capacity"], in: 0...1_000_000) { values["capacity"] = .integer(Int64(c)) }
        return (values, derived)
    }

    /// `amenity=parking` areas: `name`, `capacity` from `capacity`, `kind` 道路泊位 for
    /// `parking=street_side|lane|on_street`, 营业性 for `fee=yes`, otherwise 公共.
    static let parkingLots = FeatureRule(layer: "parking_lots", selects: "amenity=parking (areas)", shape: .polygon, required: [],
                                         matches: { $0["amenity"] == "parking" }) { tags, id in
        var values: [String: JSONValue] = [:]
        var derived: [String] = []
        if let name = tags["name"] { values["name"] = .string(name) }
        if let c = integer(tags["capacity"], in: 0...100_000) { values["capacity"] = .integer(Int64(c)) }
        if ["street_side", "lane", "on_street"].contains(tags["parking"] ?? "") {
            values["kind"] = "道路泊位"
        } else if tags["fee"] == "yes" {
            values["kind"] = "营业性"
        } else {
            values["kind"] = "公共"
            derived.append("kind")
        }
        return (values, derived)
    }

    /// `waterway=*` centrelines: `kind` 河流 for river, stream and tidal_channel, 港渠 for canal, drain
    /// and ditch; `width_m` from `width` (m); `name`. (A flood run takes 20 m for a river without a width.)
    static let rivers = FeatureRule(layer: "rivers", selects: "waterway=river|stream|tidal_channel|canal|drain|ditch (lines)", shape: .line,
                                    required: [], matches: { waterwayKinds[$0["waterway"] ?? ""] != nil }) { tags, id in
        var values: [String: JSONValue] = [:]
        if let name = tags["name"] { values["name"] = .string(name) }
        if let kind = waterwayKinds[tags["waterway"] ?? ""] { values["kind"] = .string(kind) }
        if let w = metres(tags["width"]) { values["width_m"] = .number(w) }
        return (values, [])
    }

    /// `waterway=*` values kept as rivers, and their kind.
    public static let waterwayKinds: [String: String] = [
        "river": "河流", "stream": "河流", "tidal_channel": "河流", "canal": "港渠", "drain": "港渠", "ditch": "港渠",
    ]

    /// `natural=water` areas that are lakes (`water=lake|pond|oxbow|lagoon|…` or no `water`): `name`,
    /// `normal_level_m` from `ele`, `area_km2` measured by the builder. A river's own area
    /// (`water=river|canal|stream`) is left to its centreline.
    static let lakes = FeatureRule(layer: "lakes", selects: "natural=water (water=lake, pond, … or none; areas)", shape: .polygon,
                                   required: [], matches: { $0["natural"] == "water" && !isReservoir($0) && lakeWaters.contains($0["water"] ?? "") }) { tags, id in
        waterBody(tags)
    }

    /// `landuse=reservoir|basin` or `natural=water` with `water=reservoir|basin`: `name`,
    /// `normal_level_m` from `ele`.
    static let reservoirs = FeatureRule(layer: "reservoirs", selects: "landuse=reservoir|basin, water=reservoir|basin (areas)", shape: .polygon,
                                        required: [], matches: isReservoir) { tags, id in
        waterBody(tags)
    }

    /// `water=*` values of a lake; "" is `natural=water` without `water`.
    public static let lakeWaters: Set<String> = ["", "lake", "pond", "oxbow", "lagoon", "lock", "fishpond", "moat"]

    static func isReservoir(_ tags: OSMTags) -> Bool {
        ["reservoir", "basin"].contains(tags["landuse"] ?? "") || (tags["natural"] == "water" && ["reservoir", "basin"].contains(tags["water"] ?? ""))
    }

    static func waterBody(_ tags: OSMTags) -> (values: [String: JSONValue], derived: [String]) {
        var values: [String: JSONValue] = [:]
        if let name = tags["name"] { values["name"] = .string(name) }
        if let ele = metres(tags["ele"]) { values["normal_level_m"] = .number(ele) }
        return (values, [])
    }

    /// Storey height (m) a building's height is derived from when only `building:levels` is tagged.
    public static let storeyHeight = 3.0

    /// `building=*` areas: `name`; `height_m` from `height` (m), else `building:levels` ×
    /// ``storeyHeight`` (derived), else none; `floors` from `building:levels`; `use` by `building`'s
    /// value (`buildingUses`); `footprint_m2` measured in the city's metric CRS by the builder.
    static let buildings = FeatureRule(layer: "buildings", selects: "building=* (areas)", shape: .polygon, required: [],
                                       matches: { ($0["building"] ?? "no") != "no" }) { tags, id in
        var values: [String: JSONValue] = [:]
        var derived: [String] = []
        if let name = tags["name"] { values["name"] = .string(name) }
        let levels = integer(tags["building:levels"], in: 0...200)
        if let levels { values["floors"] = .integer(Int64(levels)) }
        if let h = metres(tags["height"]) {
            values["height_m"] = .number(h)
        } else if let levels, levels > 0 {
            values["height_m"] = .number(Double(levels) * storeyHeight)
            derived.append("height_m")
        }
        if let use = buildingUses[tags["building"] ?? ""] { values["use"] = .string(use) }
        return (values, derived)
    }

    /// `building=*` values and the buildings layer's `use` (others leave `use` empty).
    public static let buildingUses: [String: String] = [
        "residential": "住宅", "apartments": "住宅", "house": "住宅", "detached": "住宅", "terrace": "住宅", "dormitory": "住宅",
        "semidetached_house": "住宅",
        "commercial": "商业", "retail": "商业", "hotel": "商业", "supermarket": "商业", "kiosk": "商业",
        "office": "办公",
        "industrial": "工业", "warehouse": "工业", "manufacture": "工业",
        "public": "公共服务", "civic": "公共服务", "government": "公共服务", "school": "公共服务", "university": "公共服务",
        "college": "公共服务", "kindergarten": "公共服务", "hospital": "公共服务", "church": "公共服务", "cathedral": "公共服务",
        "train_station": "公共服务", "transportation": "公共服务", "fire_station": "公共服务", "museum": "公共服务",
    ]

    // MARK: - Reading tag values

    /// `name` (else `name:en`); when neither is tagged, `<fallback> <osm id>`, reported as derived.
    static func named(_ tags: OSMTags, _ id: String, fallback: String) -> (values: [String: JSONValue], derived: [String]) {
        if let name = tags["name"] ?? tags["name:en"] { return (["name": .string(name)], []) }
        return (["name": .string("\(fallback) \(id)")], ["name"])
    }

    /// A whole number in `range` (the first of `a;b` lists), else nil.
    static func integer(_ text: String?, in range: ClosedRange<Int>) -> Int? {
        guard let first = text?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces), let v = Int(first), range.contains(v) else {
            return nil
        }
        return v
    }

    /// A height in metres: `12`, `12.5`, `12 m` (feet and other units are not read), 0–1000.
    static func metres(_ text: String?) -> Double? {
        guard var t = text?.trimmingCharacters(in: .whitespaces).lowercased() else { return nil }
        if t.hasSuffix("m") { t = String(t.dropLast()).trimmingCharacters(in: .whitespaces) }
        guard let v = Double(t), v.isFinite, v >= 0, v <= 1000 else { return nil }
        return v
    }
}
