import Foundation
import FloodSim
import GeoCore
import ProcessRuntime
import TwinStore

/// The result layers of a flood scenario run, named `flood_<scenario>_…` (公共专题, owner
/// 水务和湖泊局 as the drainage layers, shared with every department), defined by the templates
/// `Layers/results/flood_scenario_<suffix>.json`:
///
/// - `_depth`: polygons of the maximum depth by class (0.05–0.15, 0.15–0.3, 0.3–0.5, 0.5–1, > 1 m),
///   cell unions dissolved with GEOS and simplified by half a cell, outside permanent water
///   (`DistrictSurface.permanentWater`: rivers, lakes and reservoirs are not a flood);
/// - `_roads`: every road segment with the maximum depth sampled along it (every half cell) and
///   the hours it stood above 15 cm (flood.md §1.1);
/// - `_buildings`: buildings whose ground floor takes water: on the cells around the footprint (a
///   one-cell ring) the water stands higher than the sill above both the footprint's ground and the
///   cell's own ground (`water_level_m` = ground + that height), with the address;
/// - `_cutoff`: emergency resources whose access road the flood (or the scenario's sandbox)
///   closes, or that the closures isolate from the network, and those roads (`markCutOff`): those
///   with `reason` `flooded` are the `accessClosed` resources of `HazardOverlay` on the depth
///   classes ≥ 0.15 m, so the hazard overlay on this run's depth layer answers with the same resources.
package struct FloodResultLayers {
    package static let owner = "水务和湖泊局"
    /// The four layers a run writes, `<stem>_<suffix>`.
    package static let suffixes = ["depth", "roads", "buildings", "cutoff"]
    static let classes: [(lower: Double, upper: Double, label: String)] = [
        (0.05, 0.15, "0.05–0.15 m"), (0.15, 0.3, "0.15–0.3 m"), (0.3, 0.5, "0.3–0.5 m"), (0.5, 1, "0.5–1 m"), (1, .infinity, "> 1 m"),
    ]
    package static let roadThreshold = 0.15

    let stem: String
    let title: String
    /// The sharing the layers are written with, when not the templates' (a draft flood run's
    /// layers are its owner's alone until it is published: `FloodRunCatalog`).
    var sharing: SharingPolicy?
    /// What the layers describe when not the city as it stands (a scenario's what-if): their
    /// definitions carry it and their titles the marking (`LayerConditions.marked`).
    var conditions: LayerConditions?
    var depth: [Feature] = []
    var roads: [Feature] = []
    var buildings: [Feature] = []
    var cutoff: [Feature] = []
    var floodedRoadLength = 0.0
    var floodedRoads = 0
    var buildingCount: Int { buildings.count }
    var cutOffCount = 0
    /// Per road id: the maximum depth along it (m) and the hours above 15 cm.
    var roadDepth: [String: (depth: Double, hours: Double)] = [:]
    /// Per road id: where along it the water is deepest, in the storage CRS.
    var roadDeepest: [String: Position] = [:]
    /// Road centre lines in the metric CRS, with their names.
    var roadLines: [(id: String, geometry: Geometry, name: String)] = []
    let toStorage: CoordinateTransformer

    init(scenario: FloodScenario, result: CoupledFloodResult, layers: FloodDistrictLayers, surface: SurfaceDomain,
         permanentWater: Grid? = nil) throws {
        stem = scenario.layerStem
        title = scenario.title
        // Rivers, lakes and reservoirs are not a flood: classes, roads and buildings read the depth
        // outside permanent water, so a bridge over the river or a lakeside house is not "flooded".
        let maxDepth = try Self.flood(result.surface.maxDepth, outside: permanentWater)
        let hours = try Self.flood(result.hoursAboveThreshold, outside: permanentWater)
        let g = surface.elevation
        let size = surface.cellSize
        let toStorage = layers.toStorage
        self.toStorage = toStorage
        for (k, cls, geometry, area) in try Self.classPolygons(maxDepth, classes: Self.classes, toStorage: toStorage) {
            depth.append(Feature(id: .string("class-\(k + 1)"), geometry: geometry, properties: [
                "depth_class": .string(cls.label), "min_depth_m": .number(cls.lower),
                "max_depth_m": cls.upper.isFinite ? .number(cls.upper) : .null, "area_m2": .number(area.rounded()),
            ]))
        }
        // Roads: sample along each segment.
        for f in layers["roads"] {
            guard let geometry = f.geometry else { continue }
            var dMax = 0.0, hMax = 0.0
            var deepest: Position?
            var parts: [[Position]] = []
            switch geometry {
            case .lineString(let l): parts = [l.positions]
            case .multiLineString(let m): parts = m.lineStrings.map(\.positions)
            default: continue
            }
            for line in parts {
                for (a, b) in zip(line, line.dropFirst()) {
                    let n = Swift.max(1, Int((hypot(b.x - a.x, b.y - a.y) / (size / 2)).rounded(.up)))
                    for i in 0...n {
                        let t = Double(i) / Double(n)
                        let p = Position(x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t)
                        if let v = maxDepth.value(at: p), v.isFinite, deepest == nil || Double(v) > dMax {
                            dMax = Swift.max(dMax, Double(v))
                            deepest = p
                        }
                        if let v = hours.value(at: p), v.isFinite { hMax = Swift.max(hMax, Double(v)) }
                    }
                }
            }
            // Decide and report on the same millimetres: a road written as 0.15 m is not "over 15 cm".
            dMax = (dMax * 1000).rounded() / 1000
            let id = f.idText
            roadDepth[id] = (dMax, hMax)
            if let deepest { roadDeepest[id] = try toStorage.transform(deepest) }
            roadLines.append((id, geometry, f.text("name") ?? ""))
            let flooded = dMax > Self.roadThreshold
            if flooded {
                floodedRoads += 1
                floodedRoadLength += try geometry.length
            }
            roads.append(Feature(id: .string(id), geometry: try toStorage.transform(geometry), properties: [
                "road_id": .string(id), "name": .string(f.text("name") ?? ""), "class": .string(f.text("class") ?? ""),
                "max_depth_m": .number(dMax), "hours_above_15cm": .number((hMax * 100).rounded() / 100),
                "flooded": .bool(flooded),
            ]))
        }
        // Buildings: water in the one-cell ring around the footprint vs ground + sill.
        for f in layers["buildings"] {
            guard let footprint = f.geometry, let ground = f.number("ground_elevation_m"), let env = footprint.envelope else { continue }
            var level = -Double.infinity, deepest = 0.0
            var y = env.minY - size
            while y <= env.maxY + size {
                var x = env.minX - size
                while x <= env.maxX + size {
                    let p = Position(x: x, y: y)
                    if let (c, r) = g.cell(containing: p), !surface.isBlocked(SurfaceCell(column: c, row: r)) {
                        // Height of the water above the higher of the footprint's ground and the
                        // cell's: a cell lower than the building needs the extra depth to reach it,
                        // and a cell higher than the recorded ground (a coarse or smoothed DEM) must
                        // not turn a film of water into a flooded floor.
                        let d = Double(maxDepth[column: c, row: r])
                        let z = Double(g[column: c, row: r])
                        if d > 0.01 {
                            level = Swift.max(level, ground + (z + d - Swift.max(ground, z)))
                            deepest = Swift.max(deepest, d)
                        }
                    }
                    x += size / 2
                }
                y += size / 2
            }
            guard level > ground + scenario.groundFloorSill else { continue }
            buildings.append(Feature(id: .string(f.idText), geometry: try toStorage.transform(footprint), properties: [
                "building_id": .string(f.idText), "name": .string(f.text("name") ?? ""), "use": .string(f.text("use") ?? ""),
                "address_code": f.properties["address_code"] ?? .null, "address": .null,
                "ground_elevation_m": .number(ground), "water_level_m": .number((level * 1000).rounded() / 1000),
                "water_above_floor_m": .number(((level - ground - scenario.groundFloorSill) * 1000).rounded() / 1000),
                "max_depth_m": .number((deepest * 1000).rounded() / 1000),
            ]))
        }
    }

    /// Fills building addresses from the address layer (by `address_code`).
    mutating func attachAddresses(from store: any FeatureStore, by caller: Caller) async throws {
        let wanted = Set(buildings.compactMap { $0.properties["address_code"]?.stringValue })
        guard !wanted.isEmpty, try await store.layerDefinition("addresses", for: caller) != nil else { return }
        var found: [String: String] = [:]
        for try await f in store.stream(layer: "addresses", FeatureQuery(properties: ["address_code", "full_address"], limit: 5000), by: caller) {
            if let code = f.text("address_code"), wanted.contains(code) { found[code] = f.text("full_address") }
            if found.count == wanted.count { break }
        }
        for k in buildings.indices {
            if let code = buildings[k].properties["address_code"]?.stringValue, let a = found[code] {
                buildings[k].properties["address"] = .string(a)
            }
        }
    }

    /// Creates (or updates the definitions of) the four layers and replaces their features, each
    /// layer in one transaction (`FeatureStore.replace`): a reader sees a previous run's result
    /// or this one, never an emptied layer. The definitions come from the templates in
    /// `templates` (`Layers/results/flood_scenario_<suffix>.json`, `definitions(from:)`).
    /// Returns the layer ids.
    func write(to store: any FeatureStore, by caller: Caller, templates: URL) async throws -> [String] {
        var copy = self
        try await copy.attachAddresses(from: store, by: caller)
        let definitions = try definitions(from: templates)
        let features: [String: [Feature]] = [
            "depth": copy.depth.map { var f = $0; f.geometry = f.geometry.map(Self.multi); return f },
            "roads": copy.roads, "buildings": copy.buildings, "cutoff": copy.cutoff,
        ]
        var ids: [String] = []
        for (suffix, definition) in zip(Self.suffixes, definitions) {
            try await store.createLayer(definition)
            try await store.replace(layer: definition.id, with: features[suffix] ?? [], by: caller, at: nil)
            ids.append(definition.id)
        }
        return ids
    }

    /// The four layer definitions of this run, in `suffixes` order: each template
    /// `flood_scenario_<suffix>.json` of `templates` (a layer definition like every file of
    /// `Layers/`) with the run's id `<stem>_<suffix>` and the scenario's title before its own.
    /// - Throws: `ScenarioError` `.invalidDistrict` (no input field: the server's files are at
    ///   fault, not the caller's input) naming a template that is missing, unreadable or owned by
    ///   another department than `owner` (whose editors the process lets run it).
    func definitions(from templates: URL) throws -> [LayerDefinition] {
        try Self.suffixes.map { try definition(suffix: $0, from: templates) }
    }

    /// The layer `<stem>_<suffix>` from its template `flood_scenario_<suffix>.json` in `templates`,
    /// which must be owned by `owner`; titled after this run.
    func definition(suffix: String, from templates: URL) throws -> LayerDefinition {
        try Self.definition(suffix: suffix, stem: stem, title: title, sharing: sharing, conditions: conditions, from: templates)
    }

    /// The layer `<stem>_<suffix>` from its template `flood_scenario_<suffix>.json` in `templates`,
    /// which must be owned by `owner`, titled after `title`, with `sharing` when given; with
    /// `conditions` (a what-if) marked as such in its definition and title.
    static func definition(suffix: String, stem: String, title: String, sharing: SharingPolicy?, conditions: LayerConditions? = nil,
                           from templates: URL) throws -> LayerDefinition {
        let name = "flood_scenario_\(suffix).json"
        let url = templates.appendingPathComponent(name)
        var definition: LayerDefinition
        do {
            definition = try LayerDefinition(json: try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: url)))
        } catch {
            throw ScenarioError(.invalidDistrict, "cannot read the result layer template \(url.path): \(error)")
        }
        guard definition.owner == Self.owner else {
            throw ScenarioError(.invalidDistrict, "\(name): a flood result layer is owned by \(Self.owner), not \(definition.owner)")
        }
        definition.id = "\(stem)_\(suffix)"
        definition.title = LayerTitle(zh: "\(title)：\(definition.title.zh)", en: "\(stem): \(definition.title.en)")
        if let sharing { definition.sharing = sharing }
        if let conditions {
            definition.conditions = conditions
            definition.title = conditions.marked(definition.title)
        }
        return definition
    }

    /// The classes of the depth per time step (`<stem>_depth_steps`): < 0.15 (from 0.05), 0.15–0.3,
    /// 0.3–0.5 and > 0.5 m, as the depth map tiles draw them.
    static let stepClasses: [(lower: Double, upper: Double, label: String)] = [
        (0.05, 0.15, "< 0.15 m"), (0.15, 0.3, "0.15–0.3 m"), (0.3, 0.5, "0.3–0.5 m"), (0.5, .infinity, "> 0.5 m"),
    ]

    /// Polygons of the cells of `depth` in each class (row runs of cells → rectangles → dissolved
    /// with GEOS, simplified by half a cell), in storage coordinates, with their area in m²;
    /// classes without a cell are left out.
    static func classPolygons(_ depth: Grid, classes: [(lower: Double, upper: Double, label: String)],
                              toStorage: CoordinateTransformer) throws -> [(Int, (lower: Double, upper: Double, label: String), Geometry, Double)] {
        let size = depth.geoTransform.pixelWidth
        var out: [(Int, (lower: Double, upper: Double, label: String), Geometry, Double)] = []
        for (k, cls) in classes.enumerated() {
            var rects: [Polygon] = []
            for r in 0..<depth.height {
                var c = 0
                while c < depth.width {
                    let d = Double(depth[column: c, row: r])
                    guard d >= cls.lower, d < cls.upper else { c += 1; continue }
                    let start = c
                    while c < depth.width, Double(depth[column: c, row: r]) >= cls.lower, Double(depth[column: c, row: r]) < cls.upper { c += 1 }
                    let a = depth.cellCenter(column: start, row: r), b = depth.cellCenter(column: c - 1, row: r)
                    let x0 = a.x - size / 2, x1 = b.x + size / 2, y0 = a.y - size / 2, y1 = a.y + size / 2
                    rects.append(Polygon(exterior: [Position(x: x0, y: y0), Position(x: x1, y: y0), Position(x: x1, y: y1),
                                                    Position(x: x0, y: y1), Position(x: x0, y: y0)]))
                }
            }
            guard !rects.isEmpty else { continue }
            let dissolved = try Geometry.multiPolygon(MultiPolygon(rects)).unaryUnion().simplifyPreservingTopology(tolerance: size / 2)
            out.append((k, cls, try toStorage.transform(dissolved), try dissolved.area))
        }
        return out
    }

    /// The depth classes of every time step (`stepClasses`), one feature per step and class with
    /// its `seconds` and `datetime` (the layer's temporal property), for `<stem>_depth_steps`:
    /// served as features (`?datetime=`) and as vector tiles, where a map filters on `seconds`.
    static func stepFeatures(_ snapshots: [FloodSnapshot], steps: FloodTimeSteps, toStorage: CoordinateTransformer,
                             permanentWater: Grid? = nil) throws -> [Feature] {
        var features: [Feature] = []
        for (snapshot, step) in zip(snapshots, steps.steps) {
            for (k, cls, geometry, area) in try classPolygons(flood(snapshot.depth, outside: permanentWater), classes: stepClasses, toStorage: toStorage) {
                features.append(Feature(id: .string("t\(Int(step.seconds))-class-\(k + 1)"), geometry: multi(geometry), properties: [
                    "depth_class": .string(cls.label), "min_depth_m": .number(cls.lower),
                    "max_depth_m": cls.upper.isFinite ? .number(cls.upper) : .null, "area_m2": .number(area.rounded()),
                    "seconds": .number(step.seconds), "datetime": .string(step.datetime),
                ]))
            }
        }
        return features
    }

    /// Writes `<stem>_depth_steps` from its template `flood_scenario_depth_steps.json` in one
    /// transaction and returns its id.
    func writeSteps(_ features: [Feature], to store: any FeatureStore, by caller: Caller, templates: URL) async throws -> String {
        let definition = try definition(suffix: "depth_steps", from: templates)
        try await store.createLayer(definition)
        try await store.replace(layer: definition.id, with: features, by: caller, at: nil)
        return definition.id
    }

    /// The flood depth: `depth` with the cells of permanent water (`mask` ≠ 0, same cells) dry.
    static func flood(_ depth: Grid, outside mask: Grid?) throws -> Grid {
        guard let mask, mask.width == depth.width, mask.height == depth.height else { return depth }
        var values = depth.values
        for (i, m) in mask.values.enumerated() where m != 0 && depth.isValid(values[i]) { values[i] = 0 }
        return try Grid(width: depth.width, height: depth.height, geoTransform: depth.geoTransform, noData: depth.noData, values: values)
    }

    static func multi(_ g: Geometry) -> Geometry {
        if case .polygon(let p) = g { return .multiPolygon(MultiPolygon([p])) }
        return g
    }
}
