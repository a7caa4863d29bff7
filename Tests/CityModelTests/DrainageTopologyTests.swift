import Foundation
import GeoCore
import Testing
@testable import CityModel
import TestSupport

@Suite("Drainage and water network topology")
struct DrainageTopologyTests {
    @Test("an empty network has nothing to report")
    func empty() {
        #expect(DrainageTopologyReport(manholes: [], outfalls: [], pipes: []).isClean)
        #expect(WaterNetworkTopologyReport(nodes: [], mains: []).isClean)
    }

    @Test("the generated drainage network is clean")
    func generatedIsClean() throws {
        let report = DrainageTopologyReport(district: try generatedDistrict())
        #expect(report.isClean, "\(report.findings.prefix(5))")
        #expect(report.manholeCount > 700 && report.pipeCount > 700)
    }

    @Test("the generated water network is clean and every node is fed")
    func waterIsClean() throws {
        let report = WaterNetworkTopologyReport(district: try generatedDistrict())
        #expect(report.isClean, "\(report.findings.prefix(5))")
    }

    @Test("a broken copy yields exactly: reversed slope, sink, stranded head, snapping, dangling pipe, stranded catchment")
    func brokenCopy() throws {
        let d = try generatedDistrict()
        var pipes = d[layer: "drainage_pipes"]
        var outfalls = d[layer: "drainage_outfalls"]
        let manholes = d[layer: "drainage_manholes"]
        func s(_ f: Feature, _ k: String) -> String { f.properties[k]?.stringValue ?? "" }
        let outfallIDs = Set(outfalls.map { $0.id?.description ?? "" })
        var inflow: [String: [Int]] = [:]
        for (i, p) in pipes.enumerated() { inflow[s(p, "downstream_node"), default: []].append(i) }
        /// Manholes draining to an outfall, found by walking upstream.
        func catchment(of outfall: String) -> Set<String> {
            var seen = Set<String>(), todo = [outfall]
            while let n = todo.popLast() {
                for i in inflow[n] ?? [] { let u = s(pipes[i], "upstream_node"); if seen.insert(u).inserted { todo.append(u) } }
            }
            return seen
        }
        // 1. Delete the first outfall.
        let deleted = try #require(outfalls.first?.id?.description)
        let stranded = catchment(of: deleted)
        let intoDeleted = try #require(inflow[deleted]?.first)
        outfalls.removeFirst()
        // 2. Reverse a pipe that starts at a head manhole, outside the stranded catchment.
        let r = try #require(pipes.indices.first { i in
            let u = s(pipes[i], "upstream_node"), v = s(pipes[i], "downstream_node")
            return inflow[u] == nil && !stranded.contains(u) && !outfallIDs.contains(v)
        })
        let head = s(pipes[r], "upstream_node")
        var rev = pipes[r]
        rev.properties["upstream_node"] = pipes[r].properties["downstream_node"]
        rev.properties["downstream_node"] = pipes[r].properties["upstream_node"]
        rev.properties["inlet_offset_m"] = pipes[r].properties["outlet_offset_m"]
        rev.properties["outlet_offset_m"] = pipes[r].properties["inlet_offset_m"]
        if case .lineString(let l)? = rev.geometry { rev.geometry = .lineString(LineString(l.positions.reversed())) }
        pipes[r] = rev
        // 3. Move the downstream end of another pipe 5 m east.
        let m = try #require(pipes.indices.first { i in
            i != r && !stranded.contains(s(pipes[i], "upstream_node")) && s(pipes[i], "upstream_node") != head
                && s(pipes[i], "downstream_node") != head && s(pipes[i], "downstream_node") != s(pipes[r], "upstream_node")
        })
        guard case .lineString(var line)? = pipes[m].geometry, let end = line.positions.last else {
            Issue.record("pipe geometry is not a line string"); return
        }
        let metrePerDegree = 6_378_137.0 * .pi / 180 * cos(end.y * .pi / 180)
        line.positions[line.positions.count - 1] = Position(x: end.x + 5 / metrePerDegree, y: end.y)
        pipes[m].geometry = .lineString(line)

        let report = DrainageTopologyReport(manholes: manholes, outfalls: outfalls, pipes: pipes)
        #expect(report.findings.count == 6, "\(report.findings)")
        let reversedID = pipes[r].id?.description ?? "", movedID = pipes[m].id?.description ?? ""
        #expect(report.findings(.reversedSlope).map { $0.featureIDs.first } == [reversedID])
        #expect(report.findings(.flowDirectionConflict).map { $0.featureIDs.first } == [head])
        let snapping = report.findings(.snapping)
        #expect(snapping.map(\.featureIDs) == [[movedID, s(pipes[m], "downstream_node")]])
        #expect(abs((snapping.first?.distance ?? 0) - 5) < 0.05)
        #expect(report.findings(.danglingPipe).map(\.featureIDs) == [[pipes[intoDeleted].id?.description ?? "", deleted]])
        let unreachable = report.findings(.unreachableOutfall).map { Set($0.featureIDs) }
        #expect(unreachable.count == 2)
        #expect(unreachable.contains([head]))
        #expect(unreachable.contains(stranded))
        #expect(report.findings.allSatisfy { !$0.messageZH.isEmpty && !$0.messageEN.isEmpty && $0.location != nil })
    }

    @Test("duplicate ids and a pipe without an end node are reported")
    func duplicatesAndDangling() {
        let a = Feature(id: .string("J1"), geometry: .point(x: 114.8, y: 30.84), properties: ["invert_elevation_m": 10.0])
        let o = Feature(id: .string("O1"), geometry: .point(x: 114.8005, y: 30.84), properties: ["invert_elevation_m": 9.0])
        let p = Feature(id: .string("P1"), geometry: .lineString([Position(x: 114.8, y: 30.84), Position(x: 114.8005, y: 30.84)]),
                        properties: ["upstream_node": "J1", "downstream_node": "O1", "inlet_offset_m": 0.0, "outlet_offset_m": 0.0, "flow_dir": "+"])
        var q = p
        q.properties["downstream_node"] = .null
        let report = DrainageTopologyReport(manholes: [a, a], outfalls: [o], pipes: [p, q])
        #expect(report.findings(.duplicateID).map(\.featureIDs) == [["J1"], ["P1"]])
        #expect(report.findings(.danglingPipe).count == 1)
        #expect(report.findings.count == 3, "\(report.findings)")
    }

    @Test("cutting both feeder mains isolates the whole distribution network from the plant")
    func waterIsolation() throws {
        let d = try generatedDistrict()
        let mains = d[layer: "water_mains"].filter { !($0.id?.description.hasPrefix("WM-F") ?? false) }
        let report = WaterNetworkTopologyReport(nodes: d[layer: "water_nodes"], mains: mains)
        let isolated = report.findings(.isolatedSegment)
        #expect(isolated.count == 1)
        #expect(isolated.first?.featureIDs.filter { $0.hasPrefix("WN-") }.count == d[layer: "water_nodes"].count - 1)
        #expect(report.findings.count == 1)
    }
}
