import Foundation

extension RunoffSimulation {
    /// The runoff's pollutant loads and the groundwater's (at each pollutant's groundwater
    /// concentration) as inflows to the network's nodes: the loads linear between runoff steps,
    /// as SWMM interpolates washoff for routing.
    static func qualityInflows(_ r: Result, _ sim: RunoffSimulation, network: HydraulicNetwork) -> [QualityInflow] {
        guard let q = r.quality, !r.times.isEmpty else { return [] }
        var list: [QualityInflow] = []
        var sums: [Int: [[Double]]] = [:]
        for (j, s) in sim.subcatchments.enumerated() where j < q.loads.count {
            guard case .node(let name) = s.outlet, let k = network.nodeIndex(name) else { continue }
            var v = sums[k] ?? Array(repeating: Array(repeating: 0, count: r.times.count), count: q.pollutants.count)
            for p in v.indices { for t in v[p].indices { v[p][t] += q.loads[j][p][t] } }
            sums[k] = v
        }
        for (k, perPollutant) in sums.sorted(by: { $0.key < $1.key }) {
            for (p, values) in perPollutant.enumerated() {
                list.append(QualityInflow(node: k, pollutant: p, kind: .wetWeather, value: .mass(TimeSeries(times: r.times, values: values))))
            }
        }
        for (name, flow) in sim.groundwaterInflows(r).sorted(by: { $0.key < $1.key }) {
            guard let k = network.nodeIndex(name) else { continue }
            for (p, pol) in q.pollutants.enumerated() where pol.groundwaterConcentration > 0 {
                list.append(QualityInflow(node: k, pollutant: p, kind: .groundwater,
                                          value: .flowConcentration(flow: flow, concentration: pol.groundwaterConcentration)))
            }
        }
        return list
    }
}

extension DrainageRun.Result {
    /// SWMM's quality tables in SI: masses in kg (counts for #/L pollutants, `mass_unit` says which).
    func qualityJSON() -> [String: Any]? {
        guard let routing = routingQuality else { return nil }
        let names = routing.pollutants.map(\.name)
        var pollutantsJSON: [[String: Any]] = []
        for p in routing.pollutants {
            pollutantsJSON.append(["name": p.name, "units": p.units.rawValue, "mass_unit": p.units == .countPerLitre ? "count" : "kg"])
        }
        var json: [String: Any] = ["pollutants": pollutantsJSON]
        var routingJSON: [String: Any] = [:]
        for (p, c) in routing.continuity.enumerated() {
            routingJSON[names[p]] = ["dry_weather_inflow": c.dryWeatherInflow, "wet_weather_inflow": c.wetWeatherInflow,
                                     "groundwater_inflow": c.groundwaterInflow, "external_inflow": c.externalInflow, "rdii_inflow": c.rdiiInflow,
                                     "external_outflow": c.externalOutflow, "flooding_loss": c.flooding, "exfiltration_loss": c.seepageLoss,
                                     "mass_reacted": c.reacted, "initial_stored": c.initialStorage, "final_stored": c.finalStorage,
                                     "error_pct": c.errorPercent]
        }
        json["routing_continuity"] = routingJSON
        var outfalls: [String: Any] = [:]
        for (i, name) in nodeNames.enumerated() where i < routing.isOutfall.count && routing.isOutfall[i] {
            outfalls[name] = Dictionary(uniqueKeysWithValues: names.indices.map { (names[$0], routing.outfallLoad[$0][i]) })
        }
        json["outfall_loads"] = outfalls
        var links: [String: Any] = [:]
        for (j, name) in linkNames.enumerated() {
            links[name] = Dictionary(uniqueKeysWithValues: names.indices.map { (names[$0], routing.linkLoad[$0][j]) })
        }
        json["link_loads"] = links
        if let surface = surfaceQuality {
            var runoffJSON: [String: Any] = [:]
            for (p, c) in surface.continuity.enumerated() {
                runoffJSON[names[p]] = ["initial_buildup": c.initialBuildup, "surface_buildup": c.surfaceBuildup, "wet_deposition": c.wetDeposition,
                                        "sweeping_removal": c.sweepingRemoval, "infiltration_loss": c.infiltrationLoss, "bmp_removal": c.bmpRemoval,
                                        "surface_runoff": c.surfaceRunoff, "remaining_buildup": c.remainingBuildup, "error_pct": c.errorPercent]
            }
            json["runoff_continuity"] = runoffJSON
            var washoff: [String: Any] = [:]
            for (j, name) in subcatchmentNames.enumerated() where j < surface.washoff.count {
                washoff[name] = Dictionary(uniqueKeysWithValues: names.indices.map { (names[$0], surface.washoff[j][$0]) })
            }
            json["subcatchment_washoff"] = washoff
        }
        return json
    }
}
