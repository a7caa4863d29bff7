import EPANETFormat
import Foundation
import Testing
import TestSupport

/// CityTwin's EPANET reader against wntr's (EPA and Sandia's Water Network Tool for Resilience) on
/// every network wntr ships (Net1, Net2, Net3, Net6, ky4, ky10): the same nodes, links, lengths,
/// diameters, elevations, demands, valve settings and placement, in SI units
/// (Scripts/reference/epanet_reference.py writes wntr's reading).
@Suite("EPANET .inp read as wntr reads it")
struct EPANETReaderTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let python = repository.appendingPathComponent(".venv/bin/python").path
    static let script = repository.appendingPathComponent("Scripts/reference/epanet_reference.py").path

    static func wntr(_ arguments: [String]) async throws -> Data {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw HarnessFailure("no .venv/bin/python: run Scripts/setup.sh --test (wntr is the reference)")
        }
        let run = try await CommandProcess.run(python, [script] + arguments, separateErrors: true, within: 300)
        try #require(run.exitStatus == 0, "epanet_reference.py \(arguments): \(run.output)")
        return run.outputData
    }

    static func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-9 * max(1, abs(a), abs(b)) }

    @Test("every network wntr ships reads with wntr's nodes, links and values")
    func libraryNetworks() async throws {
        let files = String(decoding: try await Self.wntr(["--library"]), as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(files.count >= 4, "wntr's library: \(files)")
        for file in files {
            let model = try EPANETModel(contentsOf: URL(fileURLWithPath: file))
            let reference = try #require(try JSONSerialization.jsonObject(with: try await Self.wntr([file])) as? [String: Any])
            try Self.compare(model, reference, name: URL(fileURLWithPath: file).lastPathComponent)
        }
    }

    static func compare(_ model: EPANETModel, _ r: [String: Any], name: String) throws {
        func table(_ key: String) -> [String: [Any]] { (r[key] as? [String: [Any]]) ?? [:] }
        func number(_ v: Any) -> Double? { (v as? NSNumber)?.doubleValue }
        let junctions = table("junctions")
        #expect(Set(model.junctions.map(\.id)) == Set(junctions.keys), "\(name) junctions")
        for j in model.junctions {
            guard let w = junctions[j.id], let elevation = number(w[0]), let demand = number(w[1]) else { continue }
            #expect(close(j.elevation, elevation) && close(j.baseDemand, demand), "\(name) junction \(j.id): \(j) vs wntr \(w)")
        }
        let reservoirs = table("reservoirs")
        #expect(Set(model.reservoirs.map(\.id)) == Set(reservoirs.keys), "\(name) reservoirs")
        for v in model.reservoirs {
            #expect(close(v.head, number(reservoirs[v.id]?[0] as Any) ?? .nan), "\(name) reservoir \(v.id)")
        }
        let tanks = table("tanks")
        #expect(Set(model.tanks.map(\.id)) == Set(tanks.keys), "\(name) tanks")
        for t in model.tanks {
            let w = (tanks[t.id] ?? []).compactMap(number)
            let ours = [t.elevation, t.initialLevel, t.minimumLevel, t.maximumLevel, t.diameter, t.minimumVolume]
            #expect(w.count == 6 && zip(ours, w).allSatisfy { close($0, $1) }, "\(name) tank \(t.id): \(ours) vs wntr \(w)")
        }
        let pipes = table("pipes")
        #expect(Set(model.pipes.map(\.id)) == Set(pipes.keys), "\(name) pipes")
        let hazenWilliams = (r["headloss"] as? String) == "H-W"
        for p in model.pipes {
            guard let w = pipes[p.id] else { continue }
            #expect(p.node1 == w[0] as? String && p.node2 == w[1] as? String, "\(name) pipe \(p.id) ends")
            #expect(close(p.length, number(w[2]) ?? .nan) && close(p.diameter, number(w[3]) ?? .nan), "\(name) pipe \(p.id): \(p) vs wntr \(w)")
            if hazenWilliams { #expect(close(p.roughness, number(w[4]) ?? .nan), "\(name) pipe \(p.id) roughness") }
            #expect(close(p.minorLoss, number(w[5]) ?? .nan), "\(name) pipe \(p.id) minor loss")
            #expect(p.status.rawValue == w[6] as? String, "\(name) pipe \(p.id) status \(p.status) vs wntr \(w[6])")
        }
        let pumps = table("pumps")
        #expect(Set(model.pumps.map(\.id)) == Set(pumps.keys), "\(name) pumps")
        for p in model.pumps {
            guard let w = pumps[p.id] else { continue }
            #expect(p.node1 == w[0] as? String && p.node2 == w[1] as? String && p.headCurve == w[2] as? String, "\(name) pump \(p.id)")
            if let power = p.power { #expect(close(power, number(w[3]) ?? .nan), "\(name) pump \(p.id) power") }
        }
        let valves = table("valves")
        #expect(Set(model.valves.map(\.id)) == Set(valves.keys), "\(name) valves")
        for v in model.valves {
            guard let w = valves[v.id] else { continue }
            #expect(v.node1 == w[0] as? String && v.node2 == w[1] as? String && v.type.rawValue == w[3] as? String, "\(name) valve \(v.id)")
            #expect(close(v.diameter, number(w[2]) ?? .nan), "\(name) valve \(v.id) diameter")
            if v.type != .gpv, v.fixedStatus == nil { #expect(abs(v.setting - (number(w[4]) ?? .nan)) < 1e-6, "\(name) valve \(v.id) setting \(v.setting) vs wntr \(w[4])") }
        }
        let coordinates = (r["coordinates"] as? [String: [Double]]) ?? [:]
        #expect(model.coordinates.count == coordinates.count, "\(name) coordinates")
        for (id, c) in model.coordinates {
            #expect(coordinates[id].map { close($0[0], c.x) && close($0[1], c.y) } == true, "\(name) node \(id) at \(c)")
        }
        let vertices = (r["vertices"] as? [String: [[Double]]]) ?? [:]
        #expect(model.vertices.count == vertices.count, "\(name) vertices")
        for (id, points) in model.vertices {
            #expect(vertices[id]?.count == points.count, "\(name) link \(id) vertices")
        }
    }

    @Test("bad input names the line, section and field, never more of the file than a token")
    func errors() throws {
        func failure(_ text: String) -> EPANETInputError? {
            do { _ = try EPANETModel(text: text); return nil } catch { return error as? EPANETInputError }
        }
        let unknown = failure("[JUNCTIONS]\n1 10\n[SECRETS]\nroot:x:0:0\n")
        #expect(unknown?.line == 3 && unknown?.description.contains("root") == false, "\(String(describing: unknown))")
        let length = failure("[JUNCTIONS]\n1 10\n2 12\n[PIPES]\nP1 1 2 -5 300 100\n")
        #expect(length?.line == 5 && length?.field == "Length", "\(String(describing: length))")
        let dangling = failure("[JUNCTIONS]\n1 10\n[PIPES]\nP1 1 9 50 300 100\n")
        #expect(dangling?.field == "Node2" && dangling?.reason.contains("9") == true, "\(String(describing: dangling))")
        let number = failure("[OPTIONS]\nUnits LPS\n[JUNCTIONS]\n1 high\n")
        #expect(number?.line == 4 && number?.field == "Elevation", "\(String(describing: number))")
        let units = failure("[OPTIONS]\nUnits FURLONGS\n")
        #expect(units?.field == "Units", "\(String(describing: units))")
    }

    @Test("metric files stay in metres and millimetres; [DEMANDS] replace the junction's demand; [STATUS] closes a pipe")
    func metricDemandsAndStatus() throws {
        let model = try EPANETModel(text: """
            [TITLE]
            武汉 test
            [OPTIONS]
            Units CMH
            Headloss D-W
            [JUNCTIONS]
            J1 21.5 36 ;comment
            J2 20.0
            [RESERVOIRS]
            R1 45
            [PIPES]
            P1 R1 J1 120 300 0.1
            P2 J1 J2 80.5 "200" 0.1 0 CV
            [DEMANDS]
            J1 7.2 DAY ;居民
            J1 3.6
            [STATUS]
            P1 Closed
            [COORDINATES]
            J1 100 200
            [VERTICES]
            P2 150 250
            [END]
            ignored
            """)
        #expect(model.title == ["武汉 test"])
        #expect(model.flowUnits == .cmh && model.headloss == .darcyWeisbach)
        #expect(model.junctions.map(\.id) == ["J1", "J2"])
        #expect(abs(model.junctions[0].baseDemand - 3.0) < 1e-12)   // (7.2 + 3.6) m³/h in L/s
        #expect(model.pipes[0].status == .closed && model.pipes[1].status == .checkValve)
        #expect(model.pipes[1].diameter == 200 && model.pipes[1].length == 80.5 && model.pipes[1].roughness == 0.1)
        #expect(model.coordinates["J1"] == EPANETModel.Coordinate(x: 100, y: 200))
        #expect(model.vertices["P2"] == [EPANETModel.Coordinate(x: 150, y: 250)])
    }
}
