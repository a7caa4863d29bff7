import FloodSim
import Foundation
import GeoCore
import ProcessRuntime
import SWMMFormat
import TwinStore

/// The district's rainwater network as an EPA SWMM 5 model (SI: `FLOW_UNITS CMS`, metres,
/// hectares, mm/h), built from the store's drainage layers and a scenario: the same model feeds the
/// coupled run (through `SWMMModel.hydraulicNetwork()` and `runoffSimulation()`) and the `.inp`
/// export engineers open in SWMM.
///
/// Mapping: drainage_manholes → `[JUNCTIONS]` (max depth = rim − invert); drainage_outfalls →
/// `[OUTFALLS]` (FREE, or FIXED/TIMESERIES at the scenario's river stage); drainage_pipes →
/// `[CONDUITS]` + `[XSECTIONS]` (CIRCULAR / RECT_CLOSED, Manning n, offsets; `flow_dir` "-" reverses);
/// drainage_storage and the scenario's storage upgrades → `[STORAGE]` tanks (constant plan area =
/// volume ÷ depth) fed by a 3 m transverse overflow weir (`[WEIRS]`, C 1.84) from their manhole,
/// its crest at the crown of the manhole's outgoing pipe, so a tank fills only when the manhole surcharges;
/// drainage_pumps → `[PUMPS]` (PUMP2 curve at the station capacity, start and stop levels), and a
/// station with a `wet_well_area_m2` draws from a wet well: its inlet manhole becomes a `[STORAGE]`
/// unit of that constant plan area from the manhole's invert to its rim (same name, still linked to
/// the street);
/// subcatchments → `[SUBCATCHMENTS]` with `[SUBAREAS]` (n 0.013 / 0.15, depression storage 2 / 5 mm,
/// 25 % without storage) and Horton `[INFILTRATION]` (76.2 → 3.18 mm/h, decay 4 /h, 7 days dry)
/// — SWMM manual defaults, as the layers do not carry them; rain gauge RG1 reads the design storm.
struct DistrictDrainageModel {
    /// How the dynamic-wave routing treats surcharged closed conduits (SWMM 5.2 `SURCHARGE_METHOD`).
    enum SurchargeMethod: String, Sendable {
        /// SWMM's default: a surcharged node's head is iterated from the continuity of its links.
        case extran = "EXTRAN"
        /// The Preissmann slot: a narrow slot above the crown of closed conduits (SWMM 5.2).
        case slot = "SLOT"
    }

    /// The surcharge method of the district's model, written as `SURCHARGE_METHOD` into its options
    /// (the coupled run and the `.inp` export alike) when it is not EXTRAN: the Preissmann slot. On
    /// the exported p50 model with the GB 50014 manhole spacing and the wet wells, SWMM 5.2.4 leaves
    /// 2.76 % of the routing steps non-converging with SLOT against 17.23 % with EXTRAN (issue 53 §3
    /// asks below 5 %; Benchmarks/swmm/README.md); the engine simulates the slot since branch slot53.
    static let districtSurchargeMethod = SurchargeMethod.slot

    var swmm: SWMMModel
    /// Metric position of every node (junctions, outfalls, storage), by name.
    var nodePositions: [String: Position]
    /// Rim (ground) elevation of every junction, metres.
    var rimElevation: [String: Double]
    /// Simulated seconds: the storm plus half its length for the network to drain.
    var duration: Double
    /// Whether the store holds no drainage model at all (no drainage layer and no subcatchment has a
    /// feature): the run is then the street surface alone, taking all the rain (issue 52 §8: a city
    /// that has a DEM and no drainage model yet). A partial network is still refused.
    var surfaceOnly = false

    /// - Throws: `ScenarioError` `.invalidDistrict` naming the layer and feature for a missing
    ///   attribute or a pipe whose end is no node; `.invalidScenario` for an upgrade naming no manhole or pipe.
    /// - Parameter surchargeMethod: the model's `SURCHARGE_METHOD` (written only when not EXTRAN).
    init(layers: FloodDistrictLayers, scenario: FloodScenario, storm: Hyetograph,
         surchargeMethod: SurchargeMethod = Self.districtSurchargeMethod) throws {
        func fail(_ layer: String, _ f: Feature, _ field: String) -> ScenarioError {
            ScenarioError(.invalidDistrict, "\(layer) feature \(f.idText): missing or invalid \(field)", field: layer)
        }
        var m = SWMMModel()
        let stormMinutes = storm.starts.isEmpty ? 0 : (storm.end(storm.starts.count - 1)) / 60
        let totalMinutes = (stormMinutes * 1.5).rounded(.up)
        duration = totalMinutes * 60
        func clock(_ minutes: Double) -> String {
            let s = Int(minutes * 60)
            return String(format: "%02d:%02d:%02d", s / 3600, (s / 60) % 60, s % 60)
        }
        let days = Int(totalMinutes) / 1440
        m.title = ["CityTwin flood scenario \(scenario.id): \(scenario.title)",
                   scenario.rainfall.map { "observed rain of Datastreams \($0.datastreams.map(String.init).joined(separator: ", ")) from \(SensingTime.format($0.from)) to \(SensingTime.format($0.to))"
                       + ($0.forecast.map { ", then \($0.depths.count) forecast intervals of \($0.interval) min" } ?? "") }
                       ?? "P = \(scenario.returnPeriod) a, T = \(scenario.duration) min, r = \(scenario.peakRatio), formula \(scenario.stormFormula)"]
        m.options = [
            .init(key: "FLOW_UNITS", value: "CMS"), .init(key: "INFILTRATION", value: "HORTON"),
            .init(key: "FLOW_ROUTING", value: "DYNWAVE"), .init(key: "LINK_OFFSETS", value: "DEPTH"),
            .init(key: "START_DATE", value: "07/01/2024"), .init(key: "START_TIME", value: "00:00:00"),
            .init(key: "REPORT_START_DATE", value: "07/01/2024"), .init(key: "REPORT_START_TIME", value: "00:00:00"),
            .init(key: "END_DATE", value: String(format: "07/%02d/2024", 1 + days)),
            .init(key: "END_TIME", value: clock(totalMinutes.truncatingRemainder(dividingBy: 1440))),
            .init(key: "WET_STEP", value: "00:01:00"), .init(key: "DRY_STEP", value: "00:05:00"),
            .init(key: "REPORT_STEP", value: "00:05:00"), .init(key: "ROUTING_STEP", value: "5"),
            .init(key: "ALLOW_PONDING", value: "NO"), .init(key: "INERTIAL_DAMPING", value: "PARTIAL"),
            .init(key: "NORMAL_FLOW_LIMITED", value: "BOTH"), .init(key: "VARIABLE_STEP", value: "0.75"),
            .init(key: "MIN_SURFAREA", value: "1.14"),
        ]
        if surchargeMethod != .extran { m.options.append(.init(key: "SURCHARGE_METHOD", value: surchargeMethod.rawValue)) }
        m.rainGages = [SWMMRainGage(name: "RG1", format: .intensity, intervalHours: (storm.lastInterval / 3600), snowCatchFactor: 1,
                                    source: .timeseries("STORM"))]
        m.timeseries = [SWMMTimeseries(name: "STORM", points: zip(storm.starts, storm.intensities).map {
            SWMMTimeseries.Point(hours: $0.0 / 3600, value: ($0.1 * 1000).rounded() / 1000)
        } + [SWMMTimeseries.Point(hours: stormMinutes / 60, value: 0)])]

        var positions: [String: Position] = [:]
        var rims: [String: Double] = [:]
        var invert: [String: Double] = [:]
        for f in layers["drainage_manholes"] {
            guard let p = f.pointPosition else { throw fail("drainage_manholes", f, "geometry (a point)") }
            guard let inv = f.number("invert_elevation_m") else { throw fail("drainage_manholes", f, "invert_elevation_m") }
            guard let rim = f.number("rim_elevation_m") ?? f.number("depth_m").map({ inv + $0 }) else {
                throw fail("drainage_manholes", f, "rim_elevation_m")
            }
            m.junctions.append(SWMMJunction(name: f.idText, elevation: inv, maxDepth: Swift.max(0.1, rim - inv)))
            positions[f.idText] = p
            rims[f.idText] = rim
            invert[f.idText] = inv
        }
        var stageSeries = false
        for f in layers["drainage_outfalls"] {
            guard let p = f.pointPosition else { throw fail("drainage_outfalls", f, "geometry (a point)") }
            guard let inv = f.number("invert_elevation_m") else { throw fail("drainage_outfalls", f, "invert_elevation_m") }
            var boundary = SWMMOutfall.Boundary.free
            let water = f.text("receiving_water") ?? ""
            if let stage = scenario.outfallStage, scenario.stageReceivingWaters.map({ $0.contains(water) }) ?? true {
                switch stage {
                case .fixed(let z): boundary = .fixed(z)
                case .series: boundary = .timeseries("RIVER_STAGE"); stageSeries = true
                }
            }
            m.outfalls.append(SWMMOutfall(name: f.idText, elevation: inv, boundary: boundary, gated: f.properties["flap_gate"] == .bool(true)))
            positions[f.idText] = p
            invert[f.idText] = inv
        }
        if stageSeries, case .series(let t, let s)? = scenario.outfallStage {
            m.timeseries.append(SWMMTimeseries(name: "RIVER_STAGE", points: zip(t, s).map { SWMMTimeseries.Point(hours: $0.0 / 60, value: $0.1) }))
        }
        var crown: [String: Double] = [:]   // manhole → height of its outgoing pipe
        var pipeIDs = Set<String>()
        for f in layers["drainage_pipes"] {
            let id = f.idText
            guard var from = f.text("upstream_node"), var to = f.text("downstream_node") else {
                throw fail("drainage_pipes", f, "upstream_node / downstream_node")
            }
            var inOff = f.number("inlet_offset_m") ?? 0, outOff = f.number("outlet_offset_m") ?? 0
            if f.text("flow_dir") == "-" { swap(&from, &to); swap(&inOff, &outOff) }
            guard positions[from] != nil, positions[to] != nil else {
                throw ScenarioError(.invalidDistrict, "drainage_pipes feature \(id) joins \(from) → \(to), which are not both drainage nodes",
                                         field: "drainage_pipes")
            }
            var length = f.number("length_m") ?? 0
            if length <= 0, case .lineString(let l)? = f.geometry, l.positions.count > 1 {
                length = zip(l.positions, l.positions.dropFirst()).reduce(0) { $0 + hypot($1.1.x - $1.0.x, $1.1.y - $1.0.y) }
            }
            let n = f.number("manning_n") ?? 0.013
            var section: SWMMCrossSection
            if let d = scenario.upgrades.pipes[id] {
                section = SWMMCrossSection(link: id, shape: "CIRCULAR", geometry: [d / 1000, 0, 0, 0])
            } else if f.text("shape") == "RECT_CLOSED", let w = f.number("width_mm"), let h = f.number("height_mm") {
                section = SWMMCrossSection(link: id, shape: "RECT_CLOSED", geometry: [h / 1000, w / 1000, 0, 0])
            } else if let d = f.number("diameter_mm") {
                section = SWMMCrossSection(link: id, shape: "CIRCULAR", geometry: [d / 1000, 0, 0, 0])
            } else {
                throw fail("drainage_pipes", f, "diameter_mm (or width_mm and height_mm)")
            }
            m.conduits.append(SWMMConduit(name: id, fromNode: from, toNode: to, length: Swift.max(1, length), roughness: n,
                                          inletOffset: Swift.max(0, inOff), outletOffset: Swift.max(0, outOff)))
            m.crossSections.append(section)
            crown[from] = Swift.max(crown[from] ?? 0, section.depth + Swift.max(0, inOff))
            pipeIDs.insert(id)
        }
        for pipe in scenario.upgrades.pipes.keys.sorted() where !pipeIDs.contains(pipe) {
            throw ScenarioError(.invalidScenario, "upgrades.pipes names \(pipe), which is not a drainage pipe", field: "upgrades.pipes")
        }
        /// A tank beside `node` of `volume` m³ over `depth` m, fed when the manhole surcharges.
        func addTank(name: String, node: String, volume: Double, depth: Double, bottom: Double?, at p: Position?) {
            let inv = invert[node] ?? 0
            let crest = inv + (crown[node] ?? 0.5)
            let floor = Swift.min(bottom ?? (crest - depth), crest - 0.5)
            let tankDepth = Swift.max(0.5, crest - floor)
            m.storage.append(SWMMStorage(name: name, elevation: floor, maxDepth: tankDepth + 0.5, initialDepth: 0,
                                         shape: .functional(a: 0, b: 0, c: volume / tankDepth)))
            // An overflow weir, not a short pipe: a 10 m conduit would set the Courant step of the
            // whole network (SWMM leaves regulators out of the variable time step).
            m.weirs.append(SWMMWeir(name: name + "-IN", fromNode: node, toNode: name, kind: .transverse, crestHeight: crest - inv,
                                    dischargeCoefficient: 1.84))
            m.crossSections.append(SWMMCrossSection(link: name + "-IN", shape: "RECT_OPEN", geometry: [1.0, 3.0, 0, 0]))
            positions[name] = p ?? positions[node]
        }
        for f in layers["drainage_storage"] {
            guard let node = f.text("node"), invert[node] != nil, let volume = f.number("volume_m3"), volume > 0 else {
                throw fail("drainage_storage", f, "node / volume_m3")
            }
            let centre = f.geometry?.envelope.map { Position(x: ($0.minX + $0.maxX) / 2, y: ($0.minY + $0.maxY) / 2) }
            addTank(name: f.idText, node: node, volume: volume, depth: 5, bottom: f.number("bottom_elevation_m"), at: centre)
        }
        for (k, up) in scenario.upgrades.storage.enumerated() {
            guard invert[up.node] != nil, rims[up.node] != nil else {
                throw ScenarioError(.invalidScenario, "upgrades.storage[\(k)] names \(up.node), which is not a drainage manhole",
                                         field: "upgrades.storage[\(k)].node")
            }
            addTank(name: "UP-ST-\(k + 1)", node: up.node, volume: up.volume, depth: up.depth, bottom: nil, at: nil)
        }
        for f in layers["drainage_pumps"] {
            guard let from = f.text("inlet_node"), let to = f.text("outfall"), invert[from] != nil, invert[to] != nil,
                  let capacity = f.number("capacity_m3s") else { throw fail("drainage_pumps", f, "inlet_node / outfall / capacity_m3s") }
            let inv = invert[from] ?? 0
            let start = Swift.max(0, (f.number("start_level_m") ?? inv + 1) - inv)
            let stop = Swift.max(0, Swift.min(start, (f.number("stop_level_m") ?? inv + 0.3) - inv))
            let curve = "PC-" + f.idText
            m.curves.append(SWMMCurve(name: curve, kind: "PUMP2", points: [SWMMPair(0, 0), SWMMPair(start, capacity)]))
            // SWMM allows one link per outfall (ERROR 141): a pump discharging to an outfall that a
            // pipe already reaches gets its own outfall at the same place, invert and boundary.
            var target = to
            if let k = m.outfalls.firstIndex(where: { $0.name == to }), m.conduits.contains(where: { $0.toNode == to || $0.fromNode == to })
                || m.pumps.contains(where: { $0.toNode == to }) {
                var own = m.outfalls[k]
                own.name = to + "-" + f.idText
                m.outfalls.append(own)
                positions[own.name] = positions[to]
                invert[own.name] = invert[to]
                target = own.name
            }
            m.pumps.append(SWMMPump(name: f.idText, fromNode: from, toNode: target, curve: curve, initiallyOn: false,
                                    startupDepth: start, shutoffDepth: stop))
            if let area = f.number("wet_well_area_m2") {
                guard area > 0, area.isFinite else { throw fail("drainage_pumps", f, "wet_well_area_m2 (a plan area > 0 m²)") }
                // The station's wet well: its inlet manhole, as wide as the chamber, same invert and rim.
                if let k = m.junctions.firstIndex(where: { $0.name == from }) {
                    let j = m.junctions.remove(at: k)
                    m.storage.append(SWMMStorage(name: j.name, elevation: j.elevation, maxDepth: j.maxDepth, initialDepth: 0,
                                                 shape: .functional(a: 0, b: 0, c: area)))
                }
            }
        }
        for f in layers["subcatchments"] {
            guard let outlet = f.text("outlet_node"), invert[outlet] != nil else { throw fail("subcatchments", f, "outlet_node") }
            guard let area = f.number("area_ha"), area > 0 else { throw fail("subcatchments", f, "area_ha") }
            let imp = Swift.min(100, Swift.max(0, f.number("imperviousness_pct") ?? 50))
            let width = f.number("width_m") ?? (area * 10_000).squareRoot()
            let slope = Swift.max(0.1, f.number("slope_pct") ?? 0.5)
            m.subcatchments.append(SWMMSubcatchment(name: f.idText, rainGage: "RG1", outlet: outlet, area: area, percentImpervious: imp,
                                                    width: width, percentSlope: slope))
            m.subareas.append(SWMMSubarea(subcatchment: f.idText, nImpervious: 0.013, nPervious: 0.15, storageImpervious: 2,
                                          storagePervious: 5, percentZero: 25))
            m.infiltration.append(SWMMInfiltration(subcatchment: f.idText,
                                                   parameters: .horton(maxRate: 76.2, minRate: 3.18, decay: 4, dryTimeDays: 7, maxVolume: 0)))
        }
        let drainageLayers = ["drainage_manholes", "drainage_outfalls", "drainage_pipes", "drainage_storage", "drainage_pumps", "subcatchments"]
        surfaceOnly = drainageLayers.allSatisfy { layers[$0].isEmpty }
        guard surfaceOnly || (!m.junctions.isEmpty && !m.outfalls.isEmpty) else {
            throw ScenarioError(.invalidDistrict, "the store has no drainage network (drainage_manholes and drainage_outfalls are empty)",
                                     field: "drainage_manholes")
        }
        m.report = [["INPUT", "NO"], ["CONTROLS", "NO"], ["SUBCATCHMENTS", "NONE"], ["NODES", "NONE"], ["LINKS", "NONE"]]
        m.coordinates = m.nodeNames.compactMap { name in positions[name].map { SWMMMapPoint(name: name, x: $0.x, y: $0.y) } }
        swmm = m
        nodePositions = positions
        rimElevation = rims
    }
}
