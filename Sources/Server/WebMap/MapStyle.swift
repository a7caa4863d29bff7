import Foundation
import GeoCore
import TwinStore

/// Who the web map is drawn for (issue 77 §8): the layers shown by default follow what the
/// caller's department does — the public; an emergency duty officer (应急值守); a fire-rescue
/// officer (消防救援: stations, hydrants, water sources, key units, fire lanes); traffic
/// management (交通管理: signals, parking); the water authority (水务: pipes, pumps, gauges); a
/// planner. Every role that works an incident sees the published flood run. The rest of the
/// catalogue the caller may read is in the layer tree, off.
enum MapAudience: String, Sendable, CaseIterable {
    case `public`, emergency, fire, traffic, water, planner

    /// The role of each department whose work has one (others, and the administrator, plan).
    static let departments: [String: MapAudience] = [
        "应急管理局": .emergency, "卫生健康局": .emergency, "民政局": .emergency, "城市管理执法委员会": .emergency,
        "消防救援大队": .fire,
        "公安局": .traffic, "交通运输局": .traffic,
        "水务和湖泊局": .water,
    ]

    /// The anonymous caller is the public; a department its role; the administrator and
    /// departments that plan (自然资源和规划局, 住房和城市更新局, 发展和改革局, …) are planners.
    static func of(_ caller: Caller) -> MapAudience {
        switch caller {
        case .anonymous: .public
        case .admin: .planner
        case .department(let name, _, _): departments[name] ?? .planner
        }
    }

    var title: String {
        switch self {
        case .public: "公众"
        case .emergency: "应急值守"
        case .fire: "消防救援"
        case .traffic: "交通管理"
        case .water: "水务"
        case .planner: "规划"
        }
    }

    /// Every role that works an incident (all but the public).
    static let staff: [MapAudience] = [.emergency, .fire, .traffic, .water, .planner]
}

/// The web map's MapLibre style (v8): a designed cartography per layer, following Chinese
/// planning map conventions (land use after GB/T 21010, water blue, green space green, roads by
/// CJJ 37 class with casings, pipes by system and diameter after CJJ 61's colours), labels in
/// Chinese from `/fonts/` (Scripts/make_glyphs.py; ideographs drawn by the browser), minimum
/// zooms, and the layers shown by default for the caller's role (`MapAudience`).
///
/// The legend of `/map` is read from this document (each style layer's paint colour, its `match`
/// values or `step` stops, and `metadata`), so map and legend never disagree. Each style layer's
/// `metadata` carries `citytwin:collection`, `citytwin:title` (the layer's Chinese title),
/// `citytwin:roles` (roles that show it by default), `citytwin:legend` (false for casings and
/// labels) and optionally `citytwin:labels` (legend text per value), `citytwin:unit` and
/// `citytwin:legendExtra` (entries drawn by other layers that the legend explains with this one,
/// e.g. permanent water beside the flood's depth classes).
/// Layers without a design here are drawn from their definition's `style` hints.
struct MapStyle {
    let layers: [LayerInfo]
    let audience: MapAudience
    /// The absolute URL of a server path.
    let url: (String) -> String
    /// The served font stack, or nil when no glyphs were generated (then no text layers).
    let fontstack: String?
    /// The stem of the flood run published as current (`FloodRunCatalog`): of the flood runs'
    /// layers, only its are shown by default (other runs are in the layer tree, off).
    var currentFloodRun: String? = nil
    /// The base layers drawn under the city's (`BaseMapStyle`: `serve --basemap`, `--tianditu-key`); nil: none.
    var baseMap: BaseMapStyle? = nil

    static let paper = "#f4f2ec"
    static let water = "#a9d3f2"
    static let waterLine = "#5b9fd6"
    static let waterText = "#1d5a94"

    /// GB/T 21010 (and the 国土空间 land-use survey) colours, lightened for a base map.
    static let landUse: [(String, String)] = [
        ("居住用地", "#fde9a6"), ("商业服务业用地", "#f6b7ad"), ("公共管理与公共服务用地", "#f3c3dc"),
        ("工业用地", "#d9c0a3"), ("绿地与广场用地", "#b9e0a5"), ("交通运输用地", "#dedbd5"),
        ("陆地水域", "#a9d3f2"), ("耕地", "#eef2bd"), ("林地", "#94c98b"),
    ]
    /// Maximum flood depth classes (labels as the flood result layers write them). The shallowest
    /// is teal, not the light blue of lakes and rivers (`water`): standing water on a street must
    /// never read as a lake, nor a lake as a flood.
    static let depthClasses: [(String, String)] = [
        ("0.05–0.15 m", "#7fcdbb"), ("0.15–0.3 m", "#6baed6"), ("0.3–0.5 m", "#2171b5"), ("0.5–1 m", "#6a3d9a"), ("> 1 m", "#3f007d"),
    ]
    /// Road classes (CJJ 37): fill, casing, width at zoom 16, minimum zoom.
    static let roadClasses: [(name: String, fill: String, casing: String, width: Double, minzoom: Double)] = [
        ("快速路", "#f6a25b", "#b5651d", 9, 10), ("主干路", "#ffd66b", "#c49a2c", 8, 10),
        ("次干路", "#ffffff", "#a8a29a", 6, 12), ("支路", "#ffffff", "#c4bdb4", 4, 13),
    ]
    static let los: [(String, String)] = [("A", "#1a9850"), ("B", "#66bd63"), ("C", "#a6d96a"), ("D", "#fdae61"), ("E", "#f46d43"), ("F", "#d73027")]

    static func losLabels(_ pairs: [(String, String)]) -> JSONValue {
        var o: [String: JSONValue] = [:]
        for (grade, _) in pairs { o[grade] = JSONValue.string("服务水平 \(grade)") }
        return .object(o)
    }

    var document: JSONValue {
        var out: [JSONValue] = [["id": "background", "type": "background", "paint": ["background-color": .string(Self.paper)],
                                 "metadata": ["citytwin:legend": false]]]
        var labels: [JSONValue] = []
        let ordered = layers.sorted { Self.order($0.definition) < Self.order($1.definition) }
        for info in ordered {
            let (drawn, text) = styleLayers(info.definition)
            out += drawn
            labels += text
        }
        // The base map under everything of the city's, its labels under the city's labels.
        var baseMap = self.baseMap
        baseMap?.cityNamesRoads = layers.contains { $0.definition.id == "roads" && $0.definition.schema.properties["name"] != nil }
        let base: (drawn: [JSONValue], text: [JSONValue]) = baseMap?.layers ?? ([], [])
        out.insert(contentsOf: base.drawn, at: 1)
        var sources: [String: JSONValue] = baseMap?.sources ?? [:]
        sources["citytwin"] = ["type": "vector", "url": .string(url("/tiles/WebMercatorQuad/tilejson.json"))]
        var doc: [String: JSONValue] = [
            "version": 8, "name": "CityTwin 一张图",
            "metadata": ["citytwin:audience": .string(audience.rawValue), "citytwin:audienceTitle": .string(audience.title)],
            "sources": .object(sources),
            "layers": .array(out + (fontstack == nil ? [] : base.text + labels)),
        ]
        if fontstack != nil { doc["glyphs"] = .string(url("/fonts/{fontstack}/{range}.pbf")) }
        return .object(doc)
    }

    /// Drawing order: areas, then water, results on the ground, buildings, pipes, roads, flooded
    /// roads, lines, points, results as symbols.
    static func order(_ d: LayerDefinition) -> Int {
        let id = d.id
        if id == "land_use" { return 0 }
        if id == "subcatchments" { return 5 }
        // Flood depth under the permanent water, so lakes and rivers stay blue.
        if Self.isFloodResult(id) && id.hasSuffix("_depth") { return 8 }
        if ["lakes", "reservoirs", "drainage_storage"].contains(id) { return 10 }
        if id == "rivers" { return 11 }
        if id == "parking_lots" { return 25 }
        if id == "parking_availability" { return 26 }
        if id == "buildings" { return 30 }
        if Self.isFloodResult(id) && id.hasSuffix("_buildings") { return 31 }
        if id == "admin_divisions" { return 35 }
        if ["drainage_pipes", "water_mains"].contains(id) { return 40 }
        if id == "roads" { return 50 }
        if Self.isFloodResult(id) && id.hasSuffix("_roads") { return 55 }
        if id == "signal_corridors" { return 58 }
        if Self.isFloodResult(id) && id.hasSuffix("_cutoff") { return 90 }
        switch d.geometryType {
        case .polygon?, .multiPolygon?: return 32
        case .lineString?, .multiLineString?: return 57
        default: return 70
        }
    }

    /// A flood run's result layer: `flood_<scenario>_…` (flood-scenario) or `scenario_<id>_…` (a scenario's run).
    static func isFloodResult(_ id: String) -> Bool {
        (id.hasPrefix("flood_") || id.hasPrefix("scenario_")) && FloodSuffix.allCases.contains { id.hasSuffix("_" + $0.rawValue) }
    }
    enum FloodSuffix: String, CaseIterable { case depth, roads, buildings, cutoff }

    /// Roles that show a collection by default.
    static func roles(_ id: String) -> [MapAudience] {
        if isFloodResult(id) { return MapAudience.staff }
        switch id {
        case "land_use", "lakes", "reservoirs", "rivers", "admin_divisions", "roads", "buildings":
            return MapAudience.allCases
        case "hospitals", "shelters":
            return [.public, .emergency, .fire, .planner]
        case "parking_lots", "parking_availability":
            return [.public, .traffic, .planner]
        case "fire_stations":
            return [.emergency, .fire]
        case "rescue_teams", "warehouses":
            return [.emergency]
        case "hydrants":
            return [.emergency, .fire]
        case "fire_water_sources", "fire_key_units", "fire_lanes", "high_rise_residences":
            return [.fire]
        case "drainage_pumps", "river_gauges", "drainage_storage":
            return [.emergency, .water]
        case "drainage_pipes", "subcatchments", "water_mains":
            return [.water, .planner]
        case "drainage_outfalls":
            return [.water]
        case "signal_corridors", "signal_plans":
            return [.traffic, .planner]
        case "signalized_intersections":
            return [.traffic]
        default:
            return []
        }
    }

    /// Roles that show layer `d` by default: none for a what-if (a scenario's results, shared
    /// or not, are in the layer tree, off, marked 情景（非实况）), else `roles(_:)` of its id.
    static func roles(_ d: LayerDefinition) -> [MapAudience] {
        d.isWhatIf ? [] : roles(d.id)
    }

    private func meta(_ d: LayerDefinition, legend: Bool = true, extra: [String: JSONValue] = [:]) -> JSONValue {
        var m: [String: JSONValue] = [
            "citytwin:collection": .string(d.id), "citytwin:title": .string(d.title.zh), "citytwin:titleEn": .string(d.title.en),
            "citytwin:category": .string(d.category.rawValue),
            "citytwin:roles": .array(Self.roles(d).map { .string($0.rawValue) }), "citytwin:legend": .bool(legend),
        ]
        // The what-if marking (the title carries it too): the tree, legend and popups show it.
        if d.isWhatIf {
            m["citytwin:whatIf"] = true
            m["citytwin:whatIfLabel"] = .string(LayerConditions.whatIfLabel.zh)
        }
        for (k, v) in extra { m[k] = v }
        return .object(m)
    }

    private func visibility(_ d: LayerDefinition) -> JSONValue {
        guard Self.roles(d).contains(audience) else { return "none" }
        if let stem = Self.floodRunStem(d.id), stem != currentFloodRun { return "none" }
        return "visible"
    }

    /// The stem of a flood run's result layer (`flood_<scenario>_<n>_depth` → `flood_<scenario>_<n>`), nil for other layers.
    static func floodRunStem(_ id: String) -> String? {
        guard id.hasPrefix("flood_"), let suffix = FloodSuffix.allCases.first(where: { id.hasSuffix("_" + $0.rawValue) }) else { return nil }
        let stem = id.dropLast(suffix.rawValue.count + 1)
        guard let last = stem.split(separator: "_").last, last.allSatisfy(\.isNumber) else { return nil }
        return String(stem)
    }

    private func layer(_ d: LayerDefinition, _ suffix: String, _ type: String, paint: [String: JSONValue], layout: [String: JSONValue] = [:],
                       filter: JSONValue? = nil, minzoom: Double? = nil, legend: Bool = true, extra: [String: JSONValue] = [:]) -> JSONValue {
        var l = layout
        l["visibility"] = visibility(d)
        var o: [String: JSONValue] = [
            "id": .string("\(d.id)-\(suffix)"), "type": .string(type), "source": "citytwin", "source-layer": .string(d.id),
            "paint": .object(paint), "layout": .object(l), "metadata": meta(d, legend: legend, extra: extra),
        ]
        if let filter { o["filter"] = filter }
        // Never below the zooms whose tiles carry the layer (its definition's `tiles` range).
        let from = max(minzoom ?? 0, Double(d.tileZooms?.lowerBound ?? 0))
        if from > 0 { o["minzoom"] = .number(from) }
        if let zooms = d.tileZooms, zooms.upperBound < LayerDefinition.tileZoomLimits.upperBound {
            o["maxzoom"] = .number(Double(zooms.upperBound + 1))  // MapLibre's maxzoom is exclusive
        }
        return .object(o)
    }

    static func match(_ property: String, _ pairs: [(String, String)], otherwise: String) -> JSONValue {
        var e: [JSONValue] = ["match", ["get", .string(property)]]
        for (v, c) in pairs { e.append(.string(v)); e.append(.string(c)) }
        e.append(.string(otherwise))
        return .array(e)
    }

    /// A width growing with the zoom: `w` at zoom 16, a quarter at 12, doubled at 18.
    static func zoomWidth(_ w: Double) -> JSONValue {
        ["interpolate", ["exponential", 1.6], ["zoom"], 12, .number(w / 4), 16, .number(w), 18, .number(w * 2)]
    }

    /// The district's latitude (°), for widths in metres on Web Mercator.
    static let latitude = 30.84

    /// A line width of `property` metres on the ground (`fallback` when absent), at least `minimum` px:
    /// MapLibre's 512-pixel tiles measure 40,075,017 · cos φ / 2^(z+9) m per pixel.
    static func metresWide(_ property: String, fallback: Double, minimum: Double) -> JSONValue {
        let metresPerPixelAtZero = 40_075_016.686 * cos(latitude * .pi / 180) / 512
        var e: JSONValue = ["interpolate", ["exponential", 2], ["zoom"]]
        for z in [8.0, 12, 16, 20] {
            let scale = pow(2, z) / metresPerPixelAtZero
            e = .array((e.arrayValue ?? []) + [.number(z), ["max", .number(minimum), ["*", ["coalesce", ["get", .string(property)], .number(fallback)], .number(scale)]]])
        }
        return e
    }

    private func text(_ d: LayerDefinition, _ suffix: String, field: String, size: Double, color: String, minzoom: Double,
                      line: Bool = false, offset: Bool = false, filter: JSONValue? = nil, halo: String = "#ffffff") -> JSONValue {
        var layout: [String: JSONValue] = [
            "text-field": ["coalesce", ["get", .string(field)], ""], "text-font": [.string(fontstack ?? "")],
            "text-size": .number(size), "text-max-width": 8,
        ]
        if line {
            layout["symbol-placement"] = "line"
            layout["text-max-angle"] = 35
            layout["symbol-spacing"] = 260
        } else if offset {
            layout["text-offset"] = [0, 1.1]
            layout["text-anchor"] = "top"
            layout["text-optional"] = true
        }
        return layer(d, suffix, "symbol", paint: ["text-color": .string(color), "text-halo-color": .string(halo), "text-halo-width": 1.6],
                     layout: layout, filter: filter, minzoom: minzoom, legend: false)
    }

    /// A point resource: a coloured circle with a white ring, and its name from `nameZoom`.
    private func point(_ d: LayerDefinition, color: JSONValue, radius: Double, minzoom: Double? = nil, nameZoom: Double? = nil,
                       stroke: String = "#ffffff", extra: [String: JSONValue] = [:]) -> ([JSONValue], [JSONValue]) {
        let paint: [String: JSONValue] = [
            "circle-color": color, "circle-stroke-color": .string(stroke), "circle-stroke-width": radius >= 4 ? 1.5 : 0.8,
            "circle-radius": ["interpolate", ["linear"], ["zoom"], 12, .number(max(1.5, radius * 0.6)), 16, .number(radius), 18, .number(radius * 1.4)],
        ]
        let drawn = [layer(d, "circle", "circle", paint: paint, minzoom: minzoom, extra: extra)]
        guard let nameZoom, d.schema.properties["name"] != nil else { return (drawn, []) }
        let textColor = color.stringValue.map(Self.darker) ?? "#333333"
        return (drawn, [text(d, "label", field: "name", size: 12, color: textColor, minzoom: nameZoom, offset: true)])
    }

    /// A text colour of a fill colour with enough contrast on white halos (WCAG AA on the halo).
    static func darker(_ hex: String) -> String {
        guard hex.count == 7, let v = Int(hex.dropFirst(), radix: 16) else { return "#333333" }
        let r = Double((v >> 16) & 255), g = Double((v >> 8) & 255), b = Double(v & 255)
        let f = 0.55
        return String(format: "#%02x%02x%02x", Int(r * f), Int(g * f), Int(b * f))
    }

    /// The style layers drawing one collection, and its text layers (drawn above everything).
    func styleLayers(_ d: LayerDefinition) -> ([JSONValue], [JSONValue]) {
        let id = d.id
        if Self.isFloodResult(id) {
            if id.hasSuffix("_depth") {
                return ([layer(d, "fill", "fill", paint: ["fill-color": Self.match("depth_class", Self.depthClasses, otherwise: Self.depthClasses[0].1), "fill-opacity": 1],
                               extra: ["citytwin:legendExtra": [["label": "河湖常水面（非积水）", "labelEn": "Permanent water (not flood)",
                                                                      "color": .string(Self.water), "shape": "fill"]]])], [])
            }
            if id.hasSuffix("_roads") {
                let color: JSONValue = ["step", ["get", "max_depth_m"], .string(Self.depthClasses[1].1), 0.3, .string(Self.depthClasses[2].1),
                                        0.5, .string(Self.depthClasses[3].1), 1, .string(Self.depthClasses[4].1)]
                return ([
                    layer(d, "casing", "line", paint: ["line-color": "#ffffff", "line-width": Self.zoomWidth(12)], layout: ["line-cap": "round"],
                          filter: ["==", ["get", "flooded"], true], legend: false),
                    layer(d, "line", "line", paint: ["line-color": color, "line-width": Self.zoomWidth(8)], layout: ["line-cap": "round"],
                          filter: ["==", ["get", "flooded"], true], extra: ["citytwin:unit": "m", "citytwin:legendFrom": 0.15]),
                ], [])
            }
            if id.hasSuffix("_buildings") {
                return ([layer(d, "fill", "fill", paint: ["fill-color": "#fa8c16", "fill-outline-color": "#ad4e00", "fill-opacity": 0.9])], [])
            }
            if id.hasSuffix("_cutoff") {
                let resource: JSONValue = ["==", ["get", "kind"], "resource"]
                var text: [JSONValue] = []
                if fontstack != nil {
                    text.append(layer(d, "mark", "symbol", paint: ["text-color": "#ffffff"], layout: [
                        "text-field": "!", "text-font": [.string(fontstack ?? "")], "text-size": 14, "text-allow-overlap": true,
                        "text-ignore-placement": true], filter: resource, legend: false))
                    text.append(self.text(d, "label", field: "name", size: 12, color: "#a8071a", minzoom: 12, offset: true, filter: resource))
                }
                return ([
                    layer(d, "road", "line", paint: ["line-color": "#cf1322", "line-width": Self.zoomWidth(3), "line-dasharray": [1.5, 1]],
                          filter: ["==", ["get", "kind"], "road"], extra: ["citytwin:legendTitle": "受阻道路"]),
                    layer(d, "symbol", "circle", paint: ["circle-color": "#cf1322", "circle-radius": 9, "circle-stroke-color": "#ffffff", "circle-stroke-width": 2.5],
                          filter: resource, extra: ["citytwin:legendTitle": "受阻应急资源"]),
                ], text)
            }
        }
        switch id {
        case "land_use":
            return ([layer(d, "fill", "fill", paint: ["fill-color": Self.match("class", Self.landUse, otherwise: "#e8e4dc"), "fill-opacity": 0.85])], [])
        case "lakes", "reservoirs", "drainage_storage":
            let fill = id == "drainage_storage" ? "#9fe0d8" : Self.water
            return ([layer(d, "fill", "fill", paint: ["fill-color": .string(fill), "fill-outline-color": .string(Self.waterLine)])],
                    d.schema.properties["name"] == nil ? [] : [text(d, "label", field: "name", size: 13, color: Self.waterText, minzoom: 12)])
        case "rivers":
            // Drawn at the channel's own width (`width_m`), at least a visible line: the flood's
            // depth is not drawn on permanent water, so the river's blue shows where it runs.
            return ([layer(d, "line", "line", paint: ["line-color": .string(Self.waterLine), "line-width": Self.metresWide("width_m", fallback: 20, minimum: 1.5)],
                           layout: ["line-cap": "round", "line-join": "round"])],
                    [text(d, "label", field: "name", size: 12, color: Self.waterText, minzoom: 12, line: true)])
        case "subcatchments":
            return ([layer(d, "line", "line", paint: ["line-color": "#389e0d", "line-width": 1, "line-dasharray": [3, 2]])], [])
        case "admin_divisions":
            return ([layer(d, "line", "line", paint: ["line-color": "#8c6bb1", "line-width": 2, "line-dasharray": [4, 2, 1, 2]])],
                    // Only communities are labelled: a district's or street's polygon is cut by every
                    // tile, and its name would repeat in each.
                    [text(d, "label", field: "name", size: 13, color: "#54278f", minzoom: 12, filter: ["==", ["get", "level"], "社区/村"])])
        case "buildings":
            return ([layer(d, "fill", "fill", paint: ["fill-color": "#dcd4ca", "fill-outline-color": "#a99d8f"])],
                    [text(d, "label", field: "name", size: 11, color: "#5c5146", minzoom: 17)])
        case "parking_lots":
            return ([layer(d, "fill", "fill", paint: ["fill-color": "#c9d8ff", "fill-outline-color": "#2f54eb"])],
                    [text(d, "label", field: "name", size: 11, color: "#1d39c4", minzoom: 16)])
        case "water_mains":
            return ([layer(d, "line", "line", paint: [
                "line-color": "#0091d5",
                "line-width": ["interpolate", ["linear"], ["coalesce", ["get", "diameter_mm"], 100], 100, 1, 300, 2, 600, 3.5, 1200, 5],
            ], extra: ["citytwin:legendTitle": "给水管道（线宽示管径）"])], [])
        case "drainage_pipes":
            return ([layer(d, "line", "line", paint: [
                "line-color": Self.match("system", [("YS", "#2e7d32"), ("WS", "#8d5524"), ("HS", "#b8860b")], otherwise: "#8d5524"),
                "line-width": ["interpolate", ["linear"], ["coalesce", ["get", "diameter_mm"], 300], 300, 1, 800, 2.5, 2000, 5],
            ], extra: ["citytwin:labels": ["YS": "雨水", "WS": "污水", "HS": "合流"]])], [])
        case "roads":
            var drawn: [JSONValue] = [], fills: [JSONValue] = []
            for c in Self.roadClasses {
                let filter: JSONValue = ["==", ["get", "class"], .string(c.name)]
                drawn.append(layer(d, "casing-\(c.name)", "line", paint: ["line-color": .string(c.casing), "line-width": Self.zoomWidth(c.width + 2)],
                                   layout: ["line-cap": "round", "line-join": "round"], filter: filter, minzoom: c.minzoom, legend: false))
                fills.append(layer(d, "line-\(c.name)", "line", paint: ["line-color": .string(c.fill), "line-width": Self.zoomWidth(c.width)],
                                   layout: ["line-cap": "round", "line-join": "round"], filter: filter, minzoom: c.minzoom,
                                   extra: ["citytwin:legendTitle": .string(c.name), "citytwin:casing": .string(c.casing)]))
            }
            return (drawn + fills.reversed(), [text(d, "label", field: "name", size: 12, color: "#333333", minzoom: 14, line: true)])
        case "signal_corridors":
            return ([layer(d, "line", "line", paint: ["line-color": "#08979c", "line-width": 3, "line-dasharray": [2, 1], "line-opacity": 0.8])], [])
        case "hospitals": return point(d, color: "#c41d7f", radius: 7, nameZoom: 13)
        case "shelters": return point(d, color: "#389e0d", radius: 7, nameZoom: 14)
        case "fire_stations": return point(d, color: "#cf1322", radius: 7, nameZoom: 13)
        case "warehouses": return point(d, color: "#d46b08", radius: 6, nameZoom: 15)
        case "rescue_teams": return point(d, color: "#ad4e00", radius: 6, nameZoom: 15)
        case "drainage_pumps": return point(d, color: "#006d75", radius: 6, nameZoom: 15)
        case "river_gauges": return point(d, color: "#0050b3", radius: 5, nameZoom: 15)
        case "hydrants":   // working (完好) and out of service apart, by the definition's style colours and labels
            return point(d, color: Self.fillColor(d.style?["fill"]?.stringValue, d, default: "#8c8c8c", colors: d.style?["colors"]), radius: 3.5,
                         extra: d.style?["labels"].map { ["citytwin:labels": $0] } ?? [:])
        case "drainage_manholes": return point(d, color: Self.match("system", [("YS", "#2e7d32"), ("WS", "#8d5524"), ("HS", "#b8860b")], otherwise: "#8d5524"),
                                               radius: 2.5, minzoom: 16, extra: ["citytwin:labels": ["YS": "雨水", "WS": "污水", "HS": "合流"]])
        case "drainage_outfalls": return point(d, color: "#13a8a8", radius: 4)
        case "water_nodes", "water_valves": return point(d, color: id == "water_valves" ? "#531dab" : "#0091d5", radius: 2.5)
        case "water_connections": return point(d, color: "#69c0ff", radius: 1.5)
        case "addresses": return point(d, color: "#8c8c8c", radius: 2)
        case "intersections": return point(d, color: "#8c8c8c", radius: 2.5)
        case "turn_restrictions": return point(d, color: "#f5222d", radius: 3)
        case "iot_devices": return point(d, color: Self.match("status", [("在线", "#722ed1"), ("离线", "#8c8c8c")], otherwise: "#722ed1"), radius: 3.5)
        case "signal_plans":
            let colors = d.style?["colors"]?.objectValue?.sorted { $0.key < $1.key }.compactMap { k, v in v.stringValue.map { (k, $0) } }
            let (drawn, _) = point(d, color: Self.match("los", colors ?? Self.los, otherwise: "#8c8c8c"), radius: 7, stroke: "#262626",
                                   extra: ["citytwin:legendTitle": "服务水平（LOS）", "citytwin:labels": Self.losLabels(colors ?? Self.los)])
            // The grade's letter in the circle (glyphs from /fonts/).
            return (drawn, [text(d, "label", field: "los", size: 11, color: "#1f1f1f", minzoom: 14)])
        case "signalized_intersections": return point(d, color: "#faad14", radius: 5, stroke: "#614700")
        case "parking_berths":
            // Availability from the berth detectors: free, occupied, or unknown (no reading).
            return point(d, color: ["match", ["to-string", ["get", "occupied"]], "false", "#389e0d", "true", "#cf1322", "#8c8c8c"], radius: 3,
                         extra: ["citytwin:labels": ["false": "空闲", "true": "占用"], "citytwin:otherwise": "未知"])
        case "parking_guidance_signs": return point(d, color: "#fa8c16", radius: 4)
        case "parking_availability":
            // Lots by live availability (the view's own classes and colours); a stale or missing
            // reading is unknown, drawn grey, never as free. The free spaces as the label.
            let colors = d.style?["colors"]?.objectValue?.sorted { $0.key < $1.key }.compactMap { k, v in v.stringValue.map { (k, $0) } } ?? []
            let titles: [String: JSONValue] = ["available": "有空位", "few": "车位紧张", "full": "已满", "unknown": "未知"]
            return ([layer(d, "fill", "fill", paint: ["fill-color": Self.match("availability", colors, otherwise: "#8c8c8c"),
                                                      "fill-opacity": 0.8, "fill-outline-color": "#262626"],
                           extra: ["citytwin:legendTitle": "停车场实时空位", "citytwin:labels": .object(titles)])],
                    [text(d, "label", field: "free", size: 11, color: "#1f1f1f", minzoom: 16)])
        default:
            return generic(d)
        }
    }

    /// A collection without a design: from its definition's `style` hints (color, fill, width, radius).
    private func generic(_ d: LayerDefinition) -> ([JSONValue], [JSONValue]) {
        let s = d.style ?? [:]
        let color = s["color"]?.stringValue ?? "#595959"
        let fill = Self.fillColor(s["fill"]?.stringValue, d, default: color, colors: s["colors"])
        switch d.geometryType {
        case .point?, .multiPoint?:
            return point(d, color: fill, radius: s["radius"]?.doubleValue ?? 4, nameZoom: 15)
        case .lineString?, .multiLineString?:
            return ([layer(d, "line", "line", paint: ["line-color": .string(color), "line-width": .number(s["width"]?.doubleValue ?? 2)])], [])
        default:
            var drawn: [JSONValue] = []
            if s["fill"]?.stringValue != "none" {
                drawn.append(layer(d, "fill", "fill", paint: ["fill-color": fill, "fill-opacity": 0.5]))
            }
            drawn.append(layer(d, "outline", "line", paint: ["line-color": .string(color), "line-width": 1], legend: drawn.isEmpty))
            return (drawn, [])
        }
    }
}
