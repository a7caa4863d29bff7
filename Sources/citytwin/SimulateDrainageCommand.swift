import ArgumentParser
import FloodSim
import Foundation
import GeoCore
import SWMMFormat

/// `citytwin simulate drainage MODEL.inp [--json]`: runs a SWMM 5 model (runoff and 1D routing) and
/// prints its continuity, the routing's convergence (average Picard iterations per step, percent
/// of steps not converging), each LID usage's water balance (SWMM's LID Performance Summary) and
/// node/link summaries in SI units.
struct SimulateDrainageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drainage",
        abstract: "Runs a SWMM 5 model's 1D drainage simulation and prints one JSON summary (SI units).")

    @Argument(help: "The SWMM 5 input file (.inp).")
    var model: String

    @Flag(help: "Print one JSON document (SI units) instead of a short summary.")
    var json = false

    @Option(name: .customLong("repeat"), help: "Benchmarking: run the model this many times and print the best run time (s) to stderr.")
    var repetitions: Int = 1

    func validate() throws {
        guard (1...1000).contains(repetitions) else { throw ValidationError("--repeat must be 1…1000, got \(repetitions)") }
    }

    func run() async throws {
        let url = URL(fileURLWithPath: model)
        let swmm: SWMMModel, lines: SWMMSourceLines
        do {
            let data: Data
            do { data = try Data(contentsOf: url) } catch {
                throw SWMMInputError(line: nil, section: nil, field: nil, reason: "cannot read \(url.path): \(error.localizedDescription)")
            }
            // Read as SWMMModel(contentsOf:) reads, keeping where each object was defined.
            let text = String(data: data, encoding: .utf8) ?? String(decoding: data, as: UTF8.self)
            let parsed = try SWMMModel.parsing(text, baseDirectory: url.deletingLastPathComponent())
            swmm = parsed.model; lines = parsed.lines
        } catch let e as SWMMInputError {
            throw CommandFailure(presenting: e, in: url.lastPathComponent)
        }
        // The administrator gave this file: its [FILES] (hot start) are read and written beside it.
        let files = SWMMInterfaceFiles(directory: url.deletingLastPathComponent(), lines: lines)
        let bar = ProgressBar("simulating \(url.lastPathComponent)")
        var result: DrainageRun.Result
        var runs = 0
        do {
            var best = Double.infinity
            repeat {
                let start = ContinuousClock.now
                result = try DrainageRun.run(swmm, baseDirectory: url.deletingLastPathComponent(), interfaceFiles: files) { bar.update($0) }
                let elapsed = ContinuousClock.now - start
                best = min(best, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
                runs += 1
            } while runs < repetitions
            if repetitions > 1 {
                FileHandle.standardError.write(Data("best of \(repetitions) runs: \(best) s\n".utf8))
            }
        } catch let e as SWMMInputError {
            throw CommandFailure(presenting: e, in: url.lastPathComponent)
        } catch let e as HydraulicsError {
            throw CommandFailure(presenting: e, in: url.lastPathComponent)
        }
        bar.finish(.stage("done", fraction: 1))
        if json {
            var summary = result.summaryJSON()
            // The engine's convergence, like SWMM's "Average Iterations per Step" / "Percent Not Converging".
            summary["routing_convergence"] = ["steps": result.routingSteps, "average_iterations": result.averageIterations,
                                              "not_converging_pct": result.nonConvergingPercent]
            let data = try JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys, .prettyPrinted])
            print(String(decoding: data, as: UTF8.self))
            return
        }
        let r = result.runoff, q = result.routing
        print(String(format: "runoff:  rainfall %.1f m³, runoff %.1f m³, continuity error %.3f %%", r.rainfall, r.runoff, r.errorPercent))
        for p in result.lidPerformance {
            print(String(format: "LID %@ in %@: inflow %.2f mm, evaporation %.2f, infiltration %.2f, surface outflow %.2f, drain %.2f mm, continuity error %.2f %%",
                         p.control, p.subcatchment, p.inflow * 1000, p.evaporation * 1000, p.infiltration * 1000,
                         p.surfaceOutflow * 1000, p.drainOutflow * 1000, p.continuityErrorPercent))
        }
        print(String(format: "routing: inflow %.1f m³, flooding %.1f m³, outflow %.1f m³, continuity error %.3f %%",
                     q.totalInflow, q.flooding, q.externalOutflow, q.errorPercent))
        if q.evaporationLoss > 0 || q.seepageLoss > 0 {
            // Storage units' and conduits' losses (SWMM's Evaporation Loss and Exfiltration Loss rows).
            print(String(format: "routing: evaporation %.1f m³, seepage %.1f m³", q.evaporationLoss, q.seepageLoss))
        }
        if let d = result.rdii {
            // SWMM's Rainfall Dependent I/I table.
            print(String(format: "RDII:    sewershed rainfall %.1f m³, RDII produced %.1f m³ (ratio %.3f), RDII inflow %.1f m³",
                         d.sewershedRainfall, d.produced, d.ratio, q.rdiiInflow))
        }
        print(String(format: "routing: %d steps, average iterations per step %.2f, %.2f %% of steps not converging",
                     result.routingSteps, result.averageIterations, result.nonConvergingPercent))
        if let rq = result.routingQuality {
            // SWMM's Runoff Quality and Quality Routing Continuity, one line per pollutant (kg; counts for #/L).
            for (p, pollutant) in rq.pollutants.enumerated() {
                let unit = pollutant.units == .countPerLitre ? "" : " kg"
                let c = rq.continuity[p]
                if let s = result.surfaceQuality?.continuity[p] {
                    print(String(format: "quality %@: washoff %.3f%@, remaining buildup %.3f%@, runoff continuity error %.3f %%",
                                 pollutant.name, s.surfaceRunoff, unit, s.remainingBuildup, unit, s.errorPercent))
                }
                print(String(format: "quality %@: inflow %.3f%@, outflow %.3f%@, flooding %.3f%@, seepage %.3f%@, reacted %.3f%@, routing continuity error %.3f %%",
                             pollutant.name, c.dryWeatherInflow + c.wetWeatherInflow + c.groundwaterInflow + c.externalInflow + c.rdiiInflow, unit,
                             c.externalOutflow, unit, c.flooding, unit, c.seepageLoss, unit, c.reacted, unit, c.errorPercent))
            }
        }
        let flooded = result.nodeNames.indices.filter { result.nodes[$0].floodVolume > 0 }
            .sorted { result.nodes[$0].floodVolume > result.nodes[$1].floodVolume }
        print("flooded nodes: \(flooded.count)")
        for k in flooded.prefix(10) {
            let s = result.nodes[k]
            print(String(format: "  %@  %.2f h, peak %.3f m³/s, %.1f m³", result.nodeNames[k], s.hoursFlooded, s.maxFloodRate, s.floodVolume))
        }
    }
}
