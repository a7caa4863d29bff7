import Foundation
import GeoCore

/// The web map's base layers, drawn under the city's layers (`MapStyle`): the city's own vector
/// base map (OpenMapTiles schema, `serve --basemap`) in a restrained style on the map's paper
/// colour — land cover and use, parks, water in the CIM layers' blue, roads by class with casings,
/// buildings, boundaries, and labels from `name` in the served font stack (ideographs drawn by
/// the browser) — and, with a Tianditu key, Tianditu's WMTS layers on the Web Mercator matrix set
/// (`_w`): vector (vec + cva labels) and imagery (img + cia labels), as raster layers.
///
/// Each base layer's `metadata` has `citytwin:basemap` (its group: `osm`, `tianditu-vec`,
/// `tianditu-img`), `citytwin:basemapTitle`/`citytwin:basemapTitleEn` (the group's title) and
/// `citytwin:legend` false; it has no `citytwin:collection`, so the layer tree and legend leave it
/// out. One group is visible: the city's base map when there is one, else Tianditu's vector map;
/// `/static/basemap.js` switches between them.
struct BaseMapStyle {
    /// The TileJSON URL of the city's base map, and the layers its archive holds; nil without one.
    var vector: (tileJSON: String, layers: Set<String>)?
    var tianditu: TiandituKey?
    /// The served font stack, or nil (then no labels).
    var fontstack: String?
    /// Whether the city's own roads are labelled (its `roads` layer): then the base map's street
    /// names are not drawn too, which would write each street's name twice.
    var cityNamesRoads = false

    static let sourceName = "basemap"

    /// The group shown when the map opens.
    var initialGroup: String? { vector != nil ? "osm" : tianditu != nil ? "tianditu-vec" : nil }

    static let titles: [String: (zh: String, en: String)] = [
        "osm": ("城市底图（OpenStreetMap）", "City base map (OpenStreetMap)"),
        "tianditu-vec": ("天地图矢量", "Tianditu vector"),
        "tianditu-img": ("天地图影像", "Tianditu imagery"),
    ]

    var sources: [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        if let vector {
            out[Self.sourceName] = ["type": "vector", "url": .string(vector.tileJSON), "attribution": "© OpenStreetMap contributors"]
        }
        if let tianditu {
            for layer in ["vec", "cva", "img", "cia"] {
                out["tianditu-\(layer)"] = [
                    "type": "raster", "tileSize": 256, "minzoom": 1, "maxzoom": 18,
                    "tiles": .array((0...7).map { .string(Self.tiandituURL(layer, server: $0, key: tianditu)) }),
                    "attribution": "天地图 © 国家地理信息公共服务平台",
                ]
            }
        }
        return out
    }

    /// A Tianditu WMTS GetTile URL (KVP) of `layer` on the Web Mercator matrix set `w`.
    static func tiandituURL(_ layer: String, server: Int, key: TiandituKey) -> String {
        "https://t\(server).tianditu.gov.cn/\(layer)_w/wmts?SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=\(layer)&STYLE=default"
            + "&TILEMATRIXSET=w&FORMAT=tiles&TILEMATRIX={z}&TILEROW={y}&TILECOL={x}&tk=\(key.value)"
    }

    /// The base layers, bottom first; the text layers apart (drawn under the city's text).
    var layers: (drawn: [JSONValue], text: [JSONValue]) {
        var drawn: [JSONValue] = []
        if tianditu != nil {
            drawn += [raster("tianditu-img", "img"), raster("tianditu-img", "cia"), raster("tianditu-vec", "vec"), raster("tianditu-vec", "cva")]
        }
        guard let vector else { return (drawn, []) }
        let has = vector.layers
        func add(_ sourceLayer: String, _ suffix: String, _ type: String, paint: [String: JSONValue], layout: [String: JSONValue] = [:],
                 filter: JSONValue? = nil, minzoom: Double? = nil) -> JSONValue? {
            guard has.contains(sourceLayer) else { return nil }
            return osm(sourceLayer, suffix, type, paint: paint, layout: layout, filter: filter, minzoom: minzoom)
        }
        let line: [String: JSONValue] = ["line-cap": "round", "line-join": "round"]
        let landcover: [(String, String)] = [("wood", "#d6e6c6"), ("grass", "#e2ecd2"), ("farmland", "#eef0d6"), ("wetland", "#d9ebe4"),
                                             ("sand", "#f1e9d0"), ("ice", "#f2f6f9"), ("rock", "#e6e2dc")]
        let landuse: [(String, String)] = [("residential", "#ece7df"), ("commercial", "#efe2dc"), ("retail", "#efe2dc"), ("industrial", "#e7e1d6"),
                                           ("cemetery", "#dce5d4"), ("hospital", "#f1e4e8"), ("school", "#f1e9dc"), ("university", "#f1e9dc"),
                                           ("railway", "#e6e2dd"), ("stadium", "#e3ecd8"), ("pitch", "#e3ecd8")]
        drawn += [
            add("landcover", "landcover", "fill", paint: ["fill-color": MapStyle.match("class", landcover, otherwise: "#e4ead9"), "fill-opacity": 0.8]),
            add("landuse", "landuse", "fill", paint: ["fill-color": MapStyle.match("class", landuse, otherwise: "#ebe7df"), "fill-opacity": 0.7]),
            add("park", "park", "fill", paint: ["fill-color": "#d3e6c2", "fill-opacity": 0.75]),
            add("water", "water", "fill", paint: ["fill-color": .string(MapStyle.water)]),
            add("waterway", "waterway", "line", paint: [
                "line-color": .string(MapStyle.water),
                "line-width": ["interpolate", ["exponential", 1.4], ["zoom"], 10, ["match", ["get", "class"], "river", 1, 0.4], 16,
                               ["match", ["get", "class"], "river", 5, 1.5]],
            ], layout: line),
            add("aeroway", "aeroway", "fill", paint: ["fill-color": "#e4e1ea", "fill-opacity": 0.7], filter: ["==", ["geometry-type"], "Polygon"]),
            add("building", "building", "fill", paint: ["fill-color": "#e2dbd2", "fill-outline-color": "#d0c6ba"], minzoom: 13),
            add("boundary", "boundary", "line", paint: ["line-color": "#b9a9cc", "line-width": 1, "line-dasharray": [3, 2]],
                filter: ["<=", ["to-number", ["get", "admin_level"]], 8]),
        ].compactMap { $0 }
        // Roads: casings under fills, the larger classes on top; tunnels fainter.
        let classes: [(name: String, match: [String], fill: String, casing: String, width: Double, minzoom: Double)] = [
            ("minor", ["minor", "service", "track"], "#ffffff", "#d9d2c8", 3, 13),
            ("secondary", ["secondary", "tertiary"], "#ffffff", "#cbc2b5", 5, 10),
            ("primary", ["primary"], "#fbe7b5", "#d6bd83", 6, 8),
            ("motorway", ["motorway", "trunk"], "#f6cf9d", "#cf9e66", 7, 5),
        ]
        var casings: [JSONValue] = [], fills: [JSONValue] = []
        for c in classes {
            let filter: JSONValue = ["match", ["get", "class"], .array(c.match.map { .string($0) }), true, false]
            casings += [add("transportation", "casing-\(c.name)", "line", paint: ["line-color": .string(c.casing), "line-width": MapStyle.zoomWidth(c.width + 1.5)],
                            layout: line, filter: filter, minzoom: c.minzoom)].compactMap { $0 }
            fills += [add("transportation", "road-\(c.name)", "line", paint: ["line-color": .string(c.fill), "line-width": MapStyle.zoomWidth(c.width),
                                                                             "line-opacity": ["match", ["get", "brunnel"], "tunnel", 0.5, 1]],
                          layout: line, filter: filter, minzoom: c.minzoom)].compactMap { $0 }
        }
        drawn += [add("transportation", "path", "line", paint: ["line-color": "#c9bcad", "line-width": 1, "line-dasharray": [2, 1.5]],
                      filter: ["==", ["get", "class"], "path"], minzoom: 14),
                  add("transportation", "rail", "line", paint: ["line-color": "#b5aea5", "line-width": 1.2, "line-dasharray": [3, 2]],
                      filter: ["match", ["get", "class"], ["rail", "transit"], true, false], minzoom: 10)].compactMap { $0 }
        drawn += casings + fills
        guard let fontstack else { return (drawn, []) }
        func label(_ sourceLayer: String, _ suffix: String, size: JSONValue, color: String, line: Bool = false, filter: JSONValue? = nil,
                   minzoom: Double) -> JSONValue? {
            var layout: [String: JSONValue] = ["text-field": ["coalesce", ["get", "name"], ""], "text-font": [.string(fontstack)],
                                               "text-size": size, "text-max-width": 8]
            if line { layout["symbol-placement"] = "line"; layout["text-max-angle"] = 35; layout["symbol-spacing"] = 300 }
            return add(sourceLayer, suffix, "symbol", paint: ["text-color": .string(color), "text-halo-color": "#ffffff", "text-halo-width": 1.4],
                       layout: layout, filter: filter, minzoom: minzoom)
        }
        let text = [
            label("water_name", "water-label", size: 12, color: MapStyle.waterText, minzoom: 12),
            cityNamesRoads ? nil : label("transportation_name", "road-label", size: 11, color: "#6b6158", line: true, minzoom: 14),
            label("place", "place-label", size: ["match", ["get", "class"], ["city", "town"], 15, 12], color: "#4f463d",
                  filter: ["match", ["get", "class"], ["city", "town", "village", "suburb", "quarter", "neighbourhood"], true, false], minzoom: 10),
        ].compactMap { $0 }
        return (drawn, text)
    }

    private func metadata(_ group: String) -> JSONValue {
        let title = Self.titles[group] ?? (group, group)
        return ["citytwin:basemap": .string(group), "citytwin:basemapTitle": .string(title.zh), "citytwin:basemapTitleEn": .string(title.en),
                "citytwin:legend": false]
    }

    private func visibility(_ group: String) -> JSONValue { group == initialGroup ? "visible" : "none" }

    private func raster(_ group: String, _ layer: String) -> JSONValue {
        ["id": .string("basemap-tianditu-\(layer)"), "type": "raster", "source": .string("tianditu-\(layer)"),
         "layout": ["visibility": visibility(group)], "metadata": metadata(group)]
    }

    private func osm(_ sourceLayer: String, _ suffix: String, _ type: String, paint: [String: JSONValue], layout: [String: JSONValue],
                     filter: JSONValue?, minzoom: Double?) -> JSONValue {
        var l = layout
        l["visibility"] = visibility("osm")
        var o: [String: JSONValue] = [
            "id": .string("basemap-\(suffix)"), "type": .string(type), "source": .string(Self.sourceName), "source-layer": .string(sourceLayer),
            "paint": .object(paint), "layout": .object(l), "metadata": metadata("osm"),
        ]
        if let filter { o["filter"] = filter }
        if let minzoom { o["minzoom"] = .number(minzoom) }
        return .object(o)
    }
}
