import Foundation
import SWMMFormat

extension SWMMModel {
    /// The model's drainage network in SI units for the hydraulic engine (`HydraulicNetwork`):
    /// nodes, links with cross sections and losses, external and dry-weather inflows, and the
    /// routing options, and the RDII of `[RDII]` nodes. Runoff is not included; `DrainageRun` adds
    /// it as lateral inflow.
    /// - Parameter baseDirectory: where FILE time series are read from.
    /// - Throws: `SWMMInputError` for a reference the engine cannot use (a missing curve, an
    ///   unsupported storage shape, an unreadable time-series file).
    public func hydraulicNetwork(baseDirectory: URL? = nil) throws -> HydraulicNetwork {
        let u = units
        let L = u.length, Q = u.flowRate
        var nodeIndex: [String: Int] = [:]
        var nodes: [HydraulicNode] = []
        func add(_ n: HydraulicNode) { nodeIndex[n.id] = nodes.count; nodes.append(n) }

        for j in junctions {
            add(HydraulicNode(id: j.name, invertElevation: j.elevation * L, maxDepth: j.maxDepth * L, initialDepth: j.initialDepth * L,
                              surchargeDepth: j.surchargeDepth * L, pondedArea: j.pondedArea * u.area))
        }
        for o in outfalls {
            let stage: OutfallBoundary.Stage
            switch o.boundary {
            case .free: stage = .free
            case .normal: stage = .normal
            case .fixed(let s): stage = .fixed(s * L)
            case .tidal(let c):
                let curve = try requireCurve(c, section: "OUTFALLS", field: "Curve")
                stage = .tidal(Curve(x: curve.points.map(\.x), y: curve.points.map { $0.y * L }))
            case .timeseries(let t):
                let s = try seriesSeconds(t, baseDirectory: baseDirectory, section: "OUTFALLS")
                stage = .timeSeries(TimeSeries(times: s.times, values: s.values.map { $0 * L }))
            }
            add(HydraulicNode(id: o.name, invertElevation: o.elevation * L, kind: .outfall(OutfallBoundary(stage: stage, flapGate: o.gated))))
        }
        for s in storage {
            let shape: StorageUnit.Shape
            switch s.shape {
            case .functional(let a, let b, let c):
                // area_ft² = a·d_ft^b + c  ⇒  area_m² = a·L^(2−b)·d_m^b + c·L²
                shape = .functional(coefficient: a * pow(L, 2 - b), exponent: b, constant: c * L * L)
            case .tabular(let name):
                let curve = try requireCurve(name, section: "STORAGE", field: "Curve")
                shape = .tabular(Curve(x: curve.points.map { $0.x * L }, y: curve.points.map { $0.y * L * L }))
            case .shaped(let kind, let l, let w, let z):
                shape = try analyticalShape(kind, length: l, width: w, z: z, storage: s.name, units: u)
            }
            add(HydraulicNode(id: s.name, invertElevation: s.elevation * L, maxDepth: s.maxDepth * L, initialDepth: s.initialDepth * L,
                              surchargeDepth: (s.surchargeDepth ?? 0) * L, pondedArea: 0,
                              kind: .storage(StorageUnit(shape: shape, evaporationFactor: s.evaporationFactor ?? 0,
                                                         seepage: try storageSeepage(s, units: u)))))
        }
        // Dividers need link indices: add them as placeholders, fix after links exist.
        for d in dividers {
            add(HydraulicNode(id: d.name, invertElevation: d.elevation * L, maxDepth: d.maxDepth * L, initialDepth: d.initialDepth * L,
                              surchargeDepth: d.surchargeDepth * L, pondedArea: d.pondedArea * u.area,
                              kind: .divider(FlowDivider(divertedLink: -1, rule: .overflow))))
        }

        let xsect = Dictionary(crossSections.map { ($0.link, $0) }, uniquingKeysWith: { a, _ in a })
        let loss = Dictionary(losses.map { ($0.link, $0) }, uniquingKeysWith: { a, _ in a })
        let invert = { (name: String) -> Double in nodes[nodeIndex[name] ?? 0].invertElevation / L }
        let elevations = offsetsAreElevations   // an option lookup: once, not per link end
        func offset(_ value: Double, at node: String) -> Double {
            elevations ? max(0, value - invert(node)) * L : value * L
        }
        func ends(_ name: String, _ from: String, _ to: String, _ section: String) throws -> (Int, Int) {
            guard let a = nodeIndex[from] else { throw SWMMInputError(line: nil, section: section, field: "FromNode", reason: "link \(name): no node \(from)") }
            guard let b = nodeIndex[to] else { throw SWMMInputError(line: nil, section: section, field: "ToNode", reason: "link \(name): no node \(to)") }
            return (a, b)
        }

        var links: [HydraulicLink] = []
        let transectTable = try Dictionary(transects().map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for c in conduits {
            let (a, b) = try ends(c.name, c.fromNode, c.toNode, "CONDUITS")
            guard let x = xsect[c.name] else { throw SWMMInputError(line: nil, section: "XSECTIONS", field: "Link", reason: "conduit \(c.name) has no cross section") }
            let section = try crossSection(x, units: u, transects: transectTable)
            let l = loss[c.name]
            let channel = channelMeanderAndRoughness(c, x, transects: transectTable)
            var conduit = Conduit(length: c.length * L, roughness: channel.roughness, crossSection: section, barrels: x.barrels,
                                  entryLoss: l?.inlet ?? 0, exitLoss: l?.outlet ?? 0, averageLoss: l?.average ?? 0,
                                  seepageRate: (l?.seepage ?? 0) * u.rainRate, culvertCode: try culvertCode(x))
            conduit.meander = channel.meander
            links.append(HydraulicLink(id: c.name, fromNode: a, toNode: b, inletOffset: offset(c.inletOffset, at: c.fromNode),
                                       outletOffset: offset(c.outletOffset, at: c.toNode), initialFlow: c.initialFlow * Q,
                                       maxFlow: c.maxFlow * Q, flapGate: l?.flapGate ?? false, kind: .conduit(conduit)))
        }
        for p in pumps {
            let (a, b) = try ends(p.name, p.fromNode, p.toNode, "PUMPS")
            var pump = Pump(curveKind: .ideal, initiallyOn: p.initiallyOn, startupDepth: p.startupDepth * L, shutoffDepth: p.shutoffDepth * L)
            if p.curve != "*" {
                let curve = try requireCurve(p.curve, section: "PUMPS", field: "PumpCurve")
                let xScale: Double
                switch curve.kind {
                case "PUMP1": pump.curveKind = .type1; xScale = u.volume
                case "PUMP2": pump.curveKind = .type2; xScale = L
                case "PUMP3": pump.curveKind = .type3; xScale = L
                case "PUMP4": pump.curveKind = .type4; xScale = L
                case "PUMP5": pump.curveKind = .type5; xScale = L
                default: throw SWMMInputError(line: nil, section: "PUMPS", field: "PumpCurve", reason: "pump \(p.name): curve \(p.curve) is a \(curve.kind) curve, not a pump curve")
                }
                pump.curve = Curve(x: curve.points.map { $0.x * xScale }, y: curve.points.map { $0.y * Q })
            }
            links.append(HydraulicLink(id: p.name, fromNode: a, toNode: b, kind: .pump(pump)))
        }
        for o in orifices {
            let (a, b) = try ends(o.name, o.fromNode, o.toNode, "ORIFICES")
            guard let x = xsect[o.name] else { throw SWMMInputError(line: nil, section: "XSECTIONS", field: "Link", reason: "orifice \(o.name) has no cross section") }
            let orifice = Orifice(orientation: o.kind == .side ? .side : .bottom, opening: try crossSection(x, units: u),
                                  dischargeCoefficient: o.dischargeCoefficient, openCloseTime: o.closeTime * 3600)
            links.append(HydraulicLink(id: o.name, fromNode: a, toNode: b, inletOffset: offset(o.offset, at: o.fromNode), flapGate: o.gated,
                                       kind: .orifice(orifice)))
        }
        for w in weirs {
            let (a, b) = try ends(w.name, w.fromNode, w.toNode, "WEIRS")
            guard let x = xsect[w.name] else { throw SWMMInputError(line: nil, section: "XSECTIONS", field: "Link", reason: "weir \(w.name) has no cross section") }
            let form: Weir.Form
            switch w.kind {
            case .transverse: form = .transverse
            case .sideflow: form = .sideFlow
            case .vNotch: form = .vNotch
            case .trapezoidal: form = .trapezoidal
            case .roadway: form = .roadway
            }
            // Weir coefficients carry flow/length^2.5 (Q = C·L·h^1.5 or C·S·h^2.5).
            let cScale = Q / pow(L, 2.5)
            let endCoeff = w.options.count > 2 ? Double(w.options[2]) ?? 0 : 0
            let surcharge = w.options.count > 3 ? w.options[3].uppercased() != "NO" : true
            // Side slope (run/rise) as SWMM's xsect sBot: a V-notch's TRIANGULAR section gives it by
            // its top width over twice its height, a TRAPEZOIDAL one as the mean of its two slopes.
            let g = x.geometry + Array(repeating: 0, count: max(0, 4 - x.geometry.count))
            let sideSlope = form == .vNotch ? (g[0] > 0 ? g[1] / g[0] / 2 : 0) : (g[2] + g[3]) / 2
            var weir = Weir(form: form, height: x.depth * L, length: (x.geometry.count > 1 ? x.geometry[1] : 0) * L, sideSlope: sideSlope,
                            dischargeCoefficient: w.dischargeCoefficient * cScale, endCoefficient: endCoeff * cScale,
                            endContractions: Int(w.endContractions), canSurcharge: surcharge)
            if form == .roadway { (weir.roadWidth, weir.roadSurface) = try roadway(w, units: u) }
            // A coefficient curve: head (model length) → coefficient (model units), SWMM's
            // weir_getFlow; a roadway weir keeps its own coefficients (roadway.c).
            if form != .roadway, w.options.count > 6, !Self.isBlank(w.options[6]) {
                let curve = try requireCurve(w.options[6], section: "WEIRS", field: "CoeffCurve")
                weir.coefficientCurve = Curve(x: curve.points.map { $0.x * L }, y: curve.points.map { $0.y * cScale })
            }
            links.append(HydraulicLink(id: w.name, fromNode: a, toNode: b, inletOffset: offset(w.crestHeight, at: w.fromNode), flapGate: w.gated,
                                       kind: .weir(weir)))
        }
        for o in outlets {
            let (a, b) = try ends(o.name, o.fromNode, o.toNode, "OUTLETS")
            let rating: Outlet.Rating
            let head: Bool
            switch o.rating {
            case .functional(let c, let e, let h):
                rating = .functional(coefficient: c * Q / pow(L, e), exponent: e); head = h
            case .tabular(let name, let h):
                let curve = try requireCurve(name, section: "OUTLETS", field: "Curve")
                rating = .tabular(Curve(x: curve.points.map { $0.x * L }, y: curve.points.map { $0.y * Q })); head = h
            }
            links.append(HydraulicLink(id: o.name, fromNode: a, toNode: b, inletOffset: offset(o.offset, at: o.fromNode), flapGate: o.gated,
                                       kind: .outlet(Outlet(rating: rating, usesHeadDifference: head))))
        }
        let linkIndex = Dictionary(links.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
        for d in dividers {
            guard let k = nodeIndex[d.name] else { continue }
            guard let diverted = linkIndex[d.divertedLink] else {
                throw SWMMInputError(line: nil, section: "DIVIDERS", field: "DivertedLink", reason: "divider \(d.name): no link \(d.divertedLink)")
            }
            let rule: FlowDivider.Rule
            switch d.kind {
            case .cutoff(let q): rule = .cutoff(q * Q)
            case .overflow: rule = .overflow
            case .tabular(let name):
                let curve = try requireCurve(name, section: "DIVIDERS", field: "Curve")
                rule = .tabular(Curve(x: curve.points.map { $0.x * Q }, y: curve.points.map { $0.y * Q }))
            case .weir(let qmin, let h, let c): rule = .weir(minFlow: qmin * Q, maxDepth: h * L, coefficient: c * Q / pow(L, 1.5))
            }
            nodes[k].kind = .divider(FlowDivider(divertedLink: diverted, rule: rule))
        }

        var inflowList: [NodeInflow] = []
        for i in effectiveInflows where i.constituent.uppercased() == "FLOW" {
            guard let k = nodeIndex[i.node] else { continue }
            var series: TimeSeries?
            if !i.timeseries.isEmpty { series = try seriesSeconds(i.timeseries, baseDirectory: baseDirectory, section: "INFLOWS") }
            if Self.isBlank(i.baselinePattern) {
                inflowList.append(NodeInflow(node: k, series: series, scale: i.scaleFactor * Q, baseline: i.baseline * Q))
            } else {
                // SWMM's inflow_getExtInflow: the baseline times the pattern's factor at the
                // current month, weekday or hour (a weekend pattern scales weekends only).
                let name = i.baselinePattern ?? ""
                guard let p = pattern(named: name) else {
                    throw SWMMInputError(line: nil, section: "INFLOWS", field: "Pattern", reason: "node \(i.node): no pattern \(name) (SWMM's ERROR 209)")
                }
                inflowList.append(NodeInflow(node: k, series: series, scale: i.scaleFactor * Q,
                                             patternedBaseline: Self.patterned(i.baseline * Q, by: p)))
            }
        }
        for d in effectiveDryWeatherFlows where d.constituent.uppercased() == "FLOW" {
            guard let k = nodeIndex[d.node] else { continue }
            var dwf = DryWeatherFlow(average: d.average * Q)
            for name in d.patterns where !name.isEmpty {
                guard let p = pattern(named: name) else {
                    throw SWMMInputError(line: nil, section: "DWF", field: "Patterns", reason: "node \(d.node): no pattern \(name)")
                }
                Self.setPattern(p, on: &dwf)
            }
            inflowList.append(NodeInflow(node: k, dryWeather: dwf))
        }
        var options = routingOptions()
        // Storage units and open conduits evaporate at the subcatchments' potential rate: a time
        // series' as the runoff steps it, and the months' adjustments.
        if let e = evaporation, case .timeseries(let name) = e.source {
            let series = try seriesSeconds(name, baseDirectory: baseDirectory, section: "EVAPORATION")
            options.evaporationSchedule = Self.evaporationSchedule(series, toMetresPerSecond: units.evaporationRate, duration: durationSeconds)
        }
        if let a = try monthlyAdjustments(), a.evaporation.contains(where: { $0 != 0 }) { options.evaporationAdjustments = a.evaporation }
        var network = HydraulicNetwork(nodes: nodes, links: links, inflows: inflowList, options: options)
        // RDII is computed ahead of routing from the gauges' rain, as SWMM writes its RDII file.
        network.rdii = try rdii(network: network, baseDirectory: baseDirectory)?.inflows ?? []
        return network
    }

    /// A SWMM 5.2 analytical storage shape as the engine's area polynomial a0 + a1·d + a2·d² (SI),
    /// from its length L, width W and Z in the model's length unit (node.c storage_readParams):
    /// CYLINDRICAL an elliptical cylinder L × W; CONICAL an elliptical cone frustum on an L × W
    /// base with side slope Z (run/rise); PARABOLIC a paraboloid L × W across at height Z;
    /// PYRAMIDAL a rectangular frustum on an L × W base with side slope Z.
    /// - Throws: `SWMMInputError` for what SWMM refuses (L or W ≤ 0, Z < 0, a paraboloid of height 0).
    func analyticalShape(_ kind: String, length l: Double, width w: Double, z: Double, storage name: String,
                         units u: SWMMUnits) throws -> StorageUnit.Shape {
        func refuse(_ field: String, _ value: Double, _ why: String) -> SWMMInputError {
            SWMMInputError(line: nil, section: "STORAGE", field: field, reason: "storage \(name): \(kind) \(field) \(value) \(why) (SWMM's ERROR 211)")
        }
        guard l > 0 else { throw refuse("L", l, "must be > 0") }
        guard w > 0 else { throw refuse("W", w, "must be > 0") }
        guard z >= 0 else { throw refuse("Z", z, "must be ≥ 0") }
        let L = u.length
        // Coefficients in model units (area ft² or m² against depth ft or m), then SI:
        // a0·L², a1·L, a2 unchanged.
        let a = l / 2, b = w / 2
        let a0: Double, a1: Double, a2: Double
        switch kind {
        case "CYLINDRICAL": (a0, a1, a2) = (Double.pi * a * b, 0, 0)
        case "CONICAL": (a0, a1, a2) = (Double.pi * a * b, 2 * Double.pi * b * z, Double.pi * b / a * z * z)
        case "PARABOLIC":
            guard z > 0 else { throw refuse("Z", z, "(the paraboloid's height) must be > 0") }
            (a0, a1, a2) = (0, Double.pi * a * b / z, 0)
        case "PYRAMIDAL": (a0, a1, a2) = (l * w, 2 * (l + w) * z, 4 * z * z)
        default: throw SWMMInputError(line: nil, section: "STORAGE", field: "Shape", reason: "storage \(name): unknown shape \(kind)")
        }
        return .polynomial(constant: a0 * L * L, linear: a1 * L, quadratic: a2)
    }

    /// A storage unit's seepage (SWMM's exfiltration) in SI, or nil without one: a lone Ksat, or
    /// suction, Ksat and initial deficit (node.c, exfil.c exfil_readStorageParams); Ksat 0 means
    /// none.
    /// - Throws: `SWMMInputError` where SWMM refuses the values (two of the three, a negative
    ///   suction, a deficit outside 0–1, a negative Ksat), or for a PARABOLIC unit, whose seepage
    ///   areas SWMM 5.2.4 leaves unset (exfil_initState has no case for it).
    func storageSeepage(_ s: SWMMStorage, units u: SWMMUnits) throws -> StorageSeepage? {
        let p = s.seepage
        guard !p.isEmpty else { return nil }
        func refuse(_ field: String, _ why: String) -> SWMMInputError {
            SWMMInputError(line: nil, section: "STORAGE", field: field, reason: "storage \(s.name): \(why)")
        }
        if p.count == 2 { throw refuse("Ksat", "seepage needs Ksat alone or suction, Ksat and initial deficit, not two values (SWMM's ERROR 203)") }
        if p.count > 3 { throw refuse("IMD", "\(p.count) seepage values: only suction, Ksat and initial deficit are read") }
        let (suction, ksat, deficit) = p.count == 1 ? (0, p[0], 0) : (p[0], p[1], p[2])
        if ksat == 0 { return nil }
        if ksat < 0 { throw refuse("Ksat", "seepage conductivity \(ksat) must be ≥ 0 (SWMM's ERROR 211)") }
        if suction < 0 { throw refuse("Psi", "suction head \(suction) must be ≥ 0 (SWMM's ERROR 211)") }
        if deficit < 0 || deficit > 1 { throw refuse("IMD", "initial moisture deficit \(deficit) must be from 0 to 1 (SWMM's ERROR 211)") }
        if case .shaped("PARABOLIC", _, _, _) = s.shape {
            throw refuse("Ksat", "seepage from a PARABOLIC unit is not simulated: SWMM 5.2.4 leaves its seepage areas unset (exfil.c), so its result is undefined")
        }
        // SWMM 5.2.4 reads a functional or analytical unit's bottom area in the model's units as
        // square feet (exfil_initState); a tabular curve's it converts.
        var bottomFactor = 1.0
        if !u.flow.isUS, case .tabular = s.shape {} else if !u.flow.isUS { bottomFactor = 0.3048 * 0.3048 }
        return StorageSeepage(suction: suction * u.rainDepth, conductivity: ksat * u.rainRate, initialDeficit: deficit,
                              bottomAreaFactor: bottomFactor)
    }

    /// The `[INFLOWS]` lines SWMM 5.2.4 keeps: one external inflow per node and constituent, a
    /// later line replacing an earlier one (`inflow_setExtInflow`); in the order of the lines kept.
    var effectiveInflows: [SWMMInflow] { Self.lastPerNode(inflows, node: \.node, constituent: \.constituent) }

    /// The `[DWF]` lines SWMM 5.2.4 keeps: a later line for the same node and constituent replaces
    /// an earlier one (`inflow_readDwfInflow`).
    var effectiveDryWeatherFlows: [SWMMDryWeatherFlow] { Self.lastPerNode(dryWeatherFlows, node: \.node, constituent: \.constituent) }

    static func lastPerNode<T>(_ lines: [T], node: (T) -> String, constituent: (T) -> String) -> [T] {
        var last: [String: Int] = [:]
        for (k, l) in lines.enumerated() { last[node(l) + "\u{0}" + constituent(l).uppercased()] = k }
        return lines.enumerated().filter { last[node($1) + "\u{0}" + constituent($1).uppercased()] == $0 }.map(\.element)
    }

    /// A flow scaled by one time pattern (its factors by month, weekday or hour), as a
    /// `DryWeatherFlow` with that pattern alone.
    static func patterned(_ flow: Double, by p: SWMMPattern) -> DryWeatherFlow {
        var f = DryWeatherFlow(average: flow)
        setPattern(p, on: &f)
        return f
    }

    static func setPattern(_ p: SWMMPattern, on f: inout DryWeatherFlow) {
        switch p.kind {
        case "MONTHLY": f.monthly = p.factors
        case "DAILY": f.daily = p.factors
        case "HOURLY": f.hourly = p.factors
        default: f.weekendHourly = p.factors
        }
    }

    /// `[OPTIONS]` as the engine's routing options (SI).
    public func routingOptions() -> RoutingOptions {
        let u = units
        var o = RoutingOptions()
        switch flowRouting {
        case "DYNWAVE": o.method = .dynamicWave
        case "STEADY": o.method = .steady
        default: o.method = .kinematicWave
        }
        o.duration = durationSeconds
        o.routingStep = stepSeconds("ROUTING_STEP", default: 20)
        if let v = option("VARIABLE_STEP").flatMap(Double.init) { o.variableStepFactor = v }
        if let v = option("MINIMUM_STEP").flatMap(Double.init), v > 0 { o.minimumStep = v }
        if let v = option("LENGTHENING_STEP").flatMap(Double.init) { o.lengtheningStep = v }
        if let v = option("MIN_SURFAREA").flatMap(Double.init), v > 0 { o.minSurfaceArea = v * u.area }
        if let v = option("INERTIAL_DAMPING").flatMap({ RoutingOptions.InertialDamping(rawValue: $0.uppercased()) }) { o.inertialDamping = v }
        if let v = option("NORMAL_FLOW_LIMITED").flatMap({ RoutingOptions.NormalFlowLimit(rawValue: $0.uppercased()) }) { o.normalFlowLimit = v }
        if let v = option("FORCE_MAIN_EQUATION").flatMap({ RoutingOptions.ForceMainEquation(rawValue: $0.uppercased()) }) { o.forceMainEquation = v }
        if let v = option("SURCHARGE_METHOD").flatMap({ RoutingOptions.SurchargeMethod(rawValue: $0.uppercased()) }) { o.surchargeMethod = v }
        o.allowPonding = allowPonding
        if let v = option("HEAD_TOLERANCE").flatMap(Double.init), v > 0 { o.headTolerance = v * u.length }
        if let v = option("MAX_TRIALS").flatMap(Int.init), v > 0 { o.maxTrials = v }
        if let v = option("MIN_SLOPE").flatMap(Double.init) { o.minSlope = v / 100 }
        if let start = startEpochSeconds {
            let days = (start / 86_400).rounded(.down)
            let date = Date(timeIntervalSince1970: days * 86_400)
            var cal = Calendar(identifier: .gregorian)
            cal.timeZone = TimeZone(identifier: "UTC") ?? .current
            let c = cal.dateComponents([.year, .month, .day], from: date)
            o.start = SimulationClock(year: c.year ?? 2000, month: c.month ?? 1, day: c.day ?? 1, secondOfDay: start - days * 86_400)
        }
        o.reportStep = stepSeconds("REPORT_STEP", default: 0)
        // Storage units and open conduits evaporate at the model's potential rate (a time series and
        // the months' adjustments are added in `hydraulicNetwork`).
        switch evaporation?.source {
        case .constant(let r)?: o.evaporationRate = r * u.evaporationRate
        case .monthly(let m)?: o.monthlyEvaporationRates = (0..<12).map { $0 < m.count ? m[$0] * u.evaporationRate : 0 }
        default: break
        }
        return o
    }

    func requireCurve(_ name: String, section: String, field: String) throws -> SWMMCurve {
        guard let c = curve(named: name) else { throw SWMMInputError(line: nil, section: section, field: field, reason: "curve \(name) is not defined") }
        return c
    }

    /// A cross section in metres for the engine (force-main C factors and side slopes stay as they are).
    func crossSection(_ x: SWMMCrossSection, units u: SWMMUnits, transects: [String: SWMMTransect] = [:]) throws -> CrossSection {
        guard let shape = CrossSection.Shape(rawValue: x.shape) else {
            throw SWMMInputError(line: nil, section: "XSECTIONS", field: "Shape", reason: "link \(x.link): unknown shape \(x.shape)")
        }
        if let p = try sectionProfile(x, units: u, transects: transects) { return CrossSection(shape: shape, geometry1: p.yFull, profile: p) }
        let g = x.geometry + Array(repeating: 0, count: max(0, 4 - x.geometry.count))
        let L = u.length
        var g2 = g[1] * L, g3 = g[2]
        switch shape {
        case .forceMain: g2 = option("FORCE_MAIN_EQUATION")?.uppercased() == "D-W" ? g[1] * L : g[1]
        case .rectangularTriangular, .rectangularRound, .modifiedBaskethandle: g3 = g[2] * L
        default: break
        }
        return CrossSection(shape: shape, geometry1: g[0] * L, geometry2: g2, geometry3: g3, geometry4: g[3])
    }

    /// A time series as seconds from the simulation start and values in file units.
    func seriesSeconds(_ name: String, baseDirectory: URL?, section: String) throws -> TimeSeries {
        let points = try timeseriesPoints(named: name, baseDirectory: baseDirectory)
        let start = startEpochSeconds ?? 0
        let times = points.map { p -> Double in
            if let d = p.date, let t = Self.epochSeconds(date: d, time: nil) { return t + p.hours * 3600 - start }
            return p.hours * 3600
        }
        return TimeSeries(times: times, values: points.map(\.value))
    }

    /// The points of a time series, reading its FILE (relative to `baseDirectory`) when it has one.
    /// A data file holds `[date] time value` lines; `;` starts a comment.
    public func timeseriesPoints(named name: String, baseDirectory: URL?) throws -> [SWMMTimeseries.Point] {
        guard let ts = timeseries(named: name) else {
            throw SWMMInputError(line: nil, section: "TIMESERIES", field: "Name", reason: "time series \(name) is not defined")
        }
        guard let file = ts.file else { return ts.points }
        let url = file.hasPrefix("/") ? URL(fileURLWithPath: file) : (baseDirectory ?? URL(fileURLWithPath: ".")).appendingPathComponent(file)
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            throw SWMMInputError(line: nil, section: "TIMESERIES", field: "FileName", reason: "time series \(name): cannot read \(url.path)")
        }
        var points: [SWMMTimeseries.Point] = []
        for (k, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let tokens = SWMMLine.tokenize(raw)
            if tokens.isEmpty { continue }
            let line = SWMMLine(number: k + 1, section: "TIMESERIES", tokens: tokens)
            if tokens.count >= 3, tokens[0].contains("/") {
                points.append(.init(date: tokens[0], hours: try line.clockHours(1, "Time"), value: try line.number(2, "Value")))
            } else {
                try line.require(2, ["Time", "Value"])
                points.append(.init(hours: try line.clockHours(0, "Time"), value: try line.number(1, "Value")))
            }
        }
        return points
    }
}
