import Foundation

extension SWMMModel {
    /// The model as `.inp` text. Reading it back gives a model equal to this one (numbers are
    /// written in Swift's shortest round-trip form; times as decimal hours; tokens quoted where
    /// SWMM's tokenizer needs it, `SWMMLine.quoted`).
    public func inpText() -> String {
        var out = ""
        func section(_ name: String, _ rows: [[String]]) {
            guard !rows.isEmpty else { return }
            out += "[\(name)]\n"
            for r in rows { out += SWMMLine.line(r) + "\n" }
            out += "\n"
        }
        let n = SWMMLine.number
        let yn = { (b: Bool) in b ? "YES" : "NO" }

        if !title.isEmpty { out += "[TITLE]\n" + title.joined(separator: "\n") + "\n\n" }
        section("OPTIONS", options.map { [$0.key] + $0.value.unicodeScalars.split(whereSeparator: SWMMLine.isSeparator).map(String.init) })
        if let e = evaporation {
            var rows: [[String]] = []
            switch e.source {
            case .constant(let r): rows.append(["CONSTANT", n(r)])
            case .monthly(let v): rows.append(["MONTHLY"] + v.map(n))
            case .timeseries(let t): rows.append(["TIMESERIES", t])
            case .temperature: rows.append(["TEMPERATURE"])
            case .file(let v): rows.append(["FILE"] + v.map(n))
            }
            if let d = e.dryOnly { rows.append(["DRY_ONLY", yn(d)]) }
            if let r = e.recoveryPattern { rows.append(["RECOVERY", r]) }
            section("EVAPORATION", rows)
        }
        section("RAINGAGES", rainGages.map { g in
            let src: [String]
            switch g.source {
            case .timeseries(let t): src = ["TIMESERIES", t]
            case .file(let p, let s, let u): src = ["FILE", p, s, u]
            }
            return [g.name, g.format.rawValue, n(g.intervalHours), n(g.snowCatchFactor)] + src
        })
        section("SUBCATCHMENTS", subcatchments.map {
            [$0.name, $0.rainGage, $0.outlet, n($0.area), n($0.percentImpervious), n($0.width), n($0.percentSlope), n($0.curbLength)]
                + ($0.snowPack.map { [$0] } ?? [])
        })
        section("SUBAREAS", subareas.map {
            [$0.subcatchment, n($0.nImpervious), n($0.nPervious), n($0.storageImpervious), n($0.storagePervious), n($0.percentZero),
             $0.routeTo.rawValue] + ($0.percentRouted.map { [n($0)] } ?? [])
        })
        section("INFILTRATION", infiltration.map { i in
            var row = [i.subcatchment]
            switch i.parameters {
            case .horton(let a, let b, let c, let d, let e): row += [a, b, c, d, e].map(n)
            case .greenAmpt(let a, let b, let c): row += [a, b, c].map(n)
            case .curveNumber(let a, let b, let c): row += [a, b, c].map(n)
            }
            return row + (i.method.map { [$0.rawValue] } ?? [])
        })
        section("JUNCTIONS", junctions.map {
            [$0.name, n($0.elevation), n($0.maxDepth), n($0.initialDepth), n($0.surchargeDepth), n($0.pondedArea)]
        })
        section("OUTFALLS", outfalls.map { o in
            var row = [o.name, n(o.elevation), o.boundary.keyword]
            switch o.boundary {
            case .free, .normal: break
            case .fixed(let s): row.append(n(s))
            case .tidal(let c): row.append(c)
            case .timeseries(let t): row.append(t)
            }
            return row + [yn(o.gated)] + (o.routeTo.map { [$0] } ?? [])
        })
        section("STORAGE", storage.map { s in
            var row = [s.name, n(s.elevation), n(s.maxDepth), n(s.initialDepth)]
            switch s.shape {
            case .functional(let a, let b, let c): row += ["FUNCTIONAL", n(a), n(b), n(c)]
            case .tabular(let c): row += ["TABULAR", c]
            case .shaped(let k, let a, let b, let c): row += [k, n(a), n(b), n(c)]
            }
            var tail: [Double?] = [s.surchargeDepth, s.evaporationFactor] + s.seepage.map { $0 }
            while let last = tail.last, last == nil { tail.removeLast() }
            return row + tail.map { n($0 ?? 0) }
        })
        section("DIVIDERS", dividers.map { d in
            var row = [d.name, n(d.elevation), d.divertedLink]
            switch d.kind {
            case .cutoff(let q): row += ["CUTOFF", n(q)]
            case .overflow: row += ["OVERFLOW"]
            case .tabular(let c): row += ["TABULAR", c]
            case .weir(let a, let b, let c): row += ["WEIR", n(a), n(b), n(c)]
            }
            return row + [d.maxDepth, d.initialDepth, d.surchargeDepth, d.pondedArea].map(n)
        })
        section("CONDUITS", conduits.map {
            [$0.name, $0.fromNode, $0.toNode, n($0.length), n($0.roughness), n($0.inletOffset), n($0.outletOffset), n($0.initialFlow), n($0.maxFlow)]
        })
        section("PUMPS", pumps.map {
            [$0.name, $0.fromNode, $0.toNode, $0.curve, $0.initiallyOn ? "ON" : "OFF", n($0.startupDepth), n($0.shutoffDepth)]
        })
        section("ORIFICES", orifices.map {
            [$0.name, $0.fromNode, $0.toNode, $0.kind.rawValue, n($0.offset), n($0.dischargeCoefficient), yn($0.gated), n($0.closeTime)]
        })
        section("WEIRS", weirs.map {
            [$0.name, $0.fromNode, $0.toNode, $0.kind.rawValue, n($0.crestHeight), n($0.dischargeCoefficient)] + $0.options
        })
        section("OUTLETS", outlets.map { o in
            var row = [o.name, o.fromNode, o.toNode, n(o.offset)]
            switch o.rating {
            case .functional(let c, let e, let head): row += [head ? "FUNCTIONAL/HEAD" : "FUNCTIONAL/DEPTH", n(c), n(e)]
            case .tabular(let c, let head): row += [head ? "TABULAR/HEAD" : "TABULAR/DEPTH", c]
            }
            return row + [yn(o.gated)]
        })
        section("XSECTIONS", crossSections.map { x in
            switch x.shape {
            case "IRREGULAR", "STREET": return [x.link, x.shape, x.curve ?? "", "0", "0", "0", String(x.barrels)]
            case "CUSTOM": return [x.link, x.shape, n(x.depth), x.curve ?? "", "0", "0", String(x.barrels)]
            default: return [x.link, x.shape] + x.geometry.map(n) + [String(x.barrels)] + (x.culvertCode.map { [$0] } ?? [])
            }
        })
        section("LOSSES", losses.map {
            [$0.link, n($0.inlet), n($0.outlet), n($0.average), yn($0.flapGate)] + ($0.seepage.map { [n($0)] } ?? [])
        })
        section("INFLOWS", inflows.map {
            [$0.node, $0.constituent, $0.timeseries, $0.kind, n($0.unitsFactor), n($0.scaleFactor), n($0.baseline)]
                + ($0.baselinePattern.map { [$0] } ?? [])
        })
        section("DWF", dryWeatherFlows.map { [$0.node, $0.constituent, n($0.average)] + $0.patterns })
        section("PATTERNS", patterns.flatMap { p -> [[String]] in
            let chunks = stride(from: 0, to: max(p.factors.count, 1), by: 6).map { Array(p.factors[$0..<min($0 + 6, p.factors.count)]) }
            return chunks.enumerated().map { k, c in [p.name] + (k == 0 ? [p.kind] : []) + c.map(n) }
        })
        section("CURVES", curves.flatMap { c -> [[String]] in
            if c.points.isEmpty { return [] }
            return c.points.enumerated().map { k, p in [c.name] + (k == 0 ? [c.kind] : []) + [n(p.x), n(p.y)] }
        })
        section("TIMESERIES", timeseries.flatMap { t -> [[String]] in
            if let f = t.file { return [[t.name, "FILE", f]] }
            return t.points.map { p in [t.name] + (p.date.map { [$0] } ?? []) + [n(p.hours), n(p.value)] }
        })
        section("REPORT", report)
        for raw in rawSections {
            out += "[\(raw.name)]\n"
            for r in raw.lines { out += SWMMLine.line(r) + "\n" }
            out += "\n"
        }
        section("COORDINATES", coordinates.map { [$0.name, n($0.x), n($0.y)] })
        section("VERTICES", vertices.map { [$0.name, n($0.x), n($0.y)] })
        section("POLYGONS", polygons.map { [$0.name, n($0.x), n($0.y)] })
        return out
    }
}
