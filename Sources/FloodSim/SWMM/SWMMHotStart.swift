import Foundation
import SWMMFormat

/// A SWMM 5.2 hot-start file (`[FILES] SAVE/USE HOTSTART`, `hotstart.c`): the state a run ends in,
/// for another run to start from. Version 4 is what SWMM 5.2 writes; versions 2 and 3 (older
/// SWMM 5.x) are read too. Values are kept as the file holds them, in SWMM's internal units
/// (feet, cubic feet per second, whatever the model's units), little-endian:
///
/// - header: "SWMM5-HOTSTART4", then 32-bit counts of subcatchments, land uses, nodes, links,
///   pollutants and the flow-unit code (CFS 0, GPM, MGD, CMS, LPS, MLD 5);
/// - per subcatchment (version ≥ 3), doubles: the three subareas' ponded depths and the runoff,
///   six of infiltration state, four of groundwater state where it has an aquifer (upper moisture,
///   water-table elevation, lateral flow, infiltration room), fifteen of snow where it has a snow
///   pack, and per pollutant its runoff and ponded quality, per land use its buildup and last
///   sweeping;
/// - per node, floats: depth, lateral inflow, a storage unit's residence time (version 4), one
///   quality per pollutant; per link: flow, depth, setting and one quality per pollutant.
public struct SWMMHotStart: Sendable, Equatable {
    public struct Subcatchment: Sendable, Equatable {
        /// Ponded depths of the impervious (no storage), impervious and pervious subareas, ft.
        public var pondedDepths: [Double]
        /// Runoff, cfs.
        public var runoff: Double
        public var infiltration: [Double]
        /// Upper moisture, water-table elevation (ft), lateral flow (ft/s), infiltration room (ft); nil
        /// without an aquifer.
        public var groundwater: [Double]?
        public var snow: [Double]?
        /// Runoff and ponded quality per pollutant, then per land use its buildups and last sweeping.
        public var quality: [Double]

        public init(pondedDepths: [Double], runoff: Double, infiltration: [Double], groundwater: [Double]? = nil,
                    snow: [Double]? = nil, quality: [Double] = []) {
            self.pondedDepths = pondedDepths; self.runoff = runoff; self.infiltration = infiltration
            self.groundwater = groundwater; self.snow = snow; self.quality = quality
        }
    }

    public struct Node: Sendable, Equatable {
        /// Depth (ft) and lateral inflow (cfs).
        public var depth: Float
        public var lateralInflow: Float
        /// A storage unit's hydraulic residence time (version 4), nil for other nodes.
        public var residenceTime: Float?
        public var quality: [Float]

        public init(depth: Float, lateralInflow: Float, residenceTime: Float? = nil, quality: [Float] = []) {
            self.depth = depth; self.lateralInflow = lateralInflow; self.residenceTime = residenceTime; self.quality = quality
        }
    }

    public struct Link: Sendable, Equatable {
        /// Flow (cfs), depth (ft) and setting.
        public var flow: Float
        public var depth: Float
        public var setting: Float
        public var quality: [Float]

        public init(flow: Float, depth: Float, setting: Float, quality: [Float] = []) {
            self.flow = flow; self.depth = depth; self.setting = setting; self.quality = quality
        }
    }

    /// What a reader must know of the model to walk the file: which subcatchments have an aquifer
    /// or a snow pack, which nodes are storage units, how many land uses and pollutants.
    public struct Layout: Sendable, Equatable {
        public var groundwater: [Bool]
        public var snow: [Bool]
        public var storage: [Bool]
        public var links: Int
        public var landUses: Int
        public var pollutants: Int
        public var flowUnits: SWMMFlowUnits

        public init(groundwater: [Bool], snow: [Bool], storage: [Bool], links: Int, landUses: Int = 0, pollutants: Int = 0,
                    flowUnits: SWMMFlowUnits) {
            self.groundwater = groundwater; self.snow = snow; self.storage = storage; self.links = links
            self.landUses = landUses; self.pollutants = pollutants; self.flowUnits = flowUnits
        }
    }

    public var version: Int
    public var flowUnits: SWMMFlowUnits
    public var landUses: Int
    public var pollutants: Int
    public var subcatchments: [Subcatchment]
    public var nodes: [Node]
    public var links: [Link]

    public init(flowUnits: SWMMFlowUnits, landUses: Int = 0, pollutants: Int = 0, subcatchments: [Subcatchment], nodes: [Node], links: [Link]) {
        version = 4
        self.flowUnits = flowUnits; self.landUses = landUses; self.pollutants = pollutants
        self.subcatchments = subcatchments; self.nodes = nodes; self.links = links
    }

    static let stamps: [(String, Int)] = [("SWMM5-HOTSTART4", 4), ("SWMM5-HOTSTART3", 3), ("SWMM5-HOTSTART2", 2)]
    static let unitCodes: [SWMMFlowUnits] = [.cfs, .gpm, .mgd, .cms, .lps, .mld]

    /// Reads a hot-start file for a model of this layout.
    /// - Throws: `SWMMInputError` (section FILES) when the file is not a SWMM 5 hot-start file of
    ///   version 2–4, when its counts or flow units differ from the model's (SWMM's ERROR 333), or
    ///   when it ends early or holds a NaN (SWMM's ERROR 335).
    public init(data: Data, layout: Layout, name: String = "hot start file") throws {
        var r = Reader(bytes: [UInt8](data), name: name)
        let head = String(decoding: r.bytes.prefix(15), as: UTF8.self)
        guard let stamp = Self.stamps.first(where: { $0.0 == head }) else {
            throw r.fail("not a SWMM 5 hot start file of version 2, 3 or 4 (SWMM's ERROR 333)")
        }
        let v = stamp.1
        version = v
        r.offset = 15
        let nSub = try r.int32(), nLand = try v >= 3 ? r.int32() : layout.landUses
        let nNode = try r.int32(), nLink = try r.int32(), nPollut = try r.int32(), units = try r.int32()
        guard nSub == layout.groundwater.count, nLand == layout.landUses, nNode == layout.storage.count, nLink == layout.links,
              nPollut == layout.pollutants, units >= 0, units < Self.unitCodes.count, Self.unitCodes[units] == layout.flowUnits else {
            throw r.fail("written for another model: \(nSub) subcatchments, \(nNode) nodes, \(nLink) links, \(nPollut) pollutants, "
                         + "flow-unit code \(units); the model has \(layout.groundwater.count), \(layout.storage.count), \(layout.links), "
                         + "\(layout.pollutants), \(layout.flowUnits.rawValue) (SWMM's ERROR 333)")
        }
        flowUnits = layout.flowUnits; landUses = nLand; pollutants = nPollut
        subcatchments = []
        if v >= 3 {
            for j in 0..<nSub {
                var s = Subcatchment(pondedDepths: try r.doubles(3), runoff: try r.double(), infiltration: try r.doubles(6))
                if layout.groundwater[j] { s.groundwater = try r.doubles(4) }
                if layout.snow[j] { s.snow = try r.doubles(15) }
                if nPollut > 0 { s.quality = try r.doubles(2 * nPollut + nLand * (nPollut + 1)) }
                subcatchments.append(s)
            }
        } else {
            // Version 2 keeps only each subcatchment's groundwater moisture and water table.
            for j in 0..<nSub {
                let x = try r.floats(2).map(Double.init)
                subcatchments.append(Subcatchment(pondedDepths: [0, 0, 0], runoff: 0, infiltration: Array(repeating: 0, count: 6),
                                                  groundwater: layout.groundwater[j] ? [x[0], x[1], 0, -1e10] : nil))
            }
        }
        nodes = []
        for i in 0..<nNode {
            var n = Node(depth: try r.float(), lateralInflow: try r.float())
            if v >= 4 && layout.storage[i] { n.residenceTime = try r.float() }
            n.quality = try r.floats(nPollut)
            if v <= 2 { _ = try r.floats(nPollut) }
            nodes.append(n)
        }
        links = []
        for _ in 0..<nLink {
            links.append(Link(flow: try r.float(), depth: try r.float(), setting: try r.float(), quality: try r.floats(nPollut)))
        }
    }

    /// The file SWMM 5.2 writes (version 4).
    public func encoded() -> Data {
        var out = Data("SWMM5-HOTSTART4".utf8)
        func int(_ v: Int) { withUnsafeBytes(of: Int32(v).littleEndian) { out.append(contentsOf: $0) } }
        func double(_ v: Double) { withUnsafeBytes(of: v.bitPattern.littleEndian) { out.append(contentsOf: $0) } }
        func float(_ v: Float) { withUnsafeBytes(of: v.bitPattern.littleEndian) { out.append(contentsOf: $0) } }
        int(subcatchments.count); int(landUses); int(nodes.count); int(links.count); int(pollutants)
        int(Self.unitCodes.firstIndex(of: flowUnits) ?? 0)
        for s in subcatchments {
            s.pondedDepths.forEach(double); double(s.runoff); s.infiltration.forEach(double)
            s.groundwater?.forEach(double); s.snow?.forEach(double); s.quality.forEach(double)
        }
        for n in nodes {
            float(n.depth); float(n.lateralInflow)
            if let h = n.residenceTime { float(h) }
            n.quality.forEach(float)
        }
        for l in links { float(l.flow); float(l.depth); float(l.setting); l.quality.forEach(float) }
        return out
    }

    /// Little-endian reads that fail with SWMM's hot-start read error instead of trapping.
    struct Reader {
        let bytes: [UInt8]
        let name: String
        var offset = 0

        init(bytes: [UInt8], name: String) { self.bytes = bytes; self.name = name }

        func fail(_ why: String) -> SWMMInputError {
            SWMMInputError(line: nil, section: "FILES", field: "Name", reason: "\(name): \(why)")
        }

        mutating func take(_ n: Int) throws -> UInt64 {
            guard offset + n <= bytes.count else { throw fail("ends early at byte \(offset) (SWMM's ERROR 335)") }
            var v: UInt64 = 0
            for k in 0..<n { v |= UInt64(bytes[offset + k]) << (8 * UInt64(k)) }
            offset += n
            return v
        }

        mutating func int32() throws -> Int { Int(Int32(truncatingIfNeeded: try take(4))) }

        mutating func double() throws -> Double {
            let v = Double(bitPattern: try take(8))
            guard !v.isNaN else { throw fail("holds a NaN at byte \(offset - 8) (SWMM's ERROR 335)") }
            return v
        }

        mutating func float() throws -> Float {
            let v = Float(bitPattern: UInt32(try take(4)))
            guard !v.isNaN else { throw fail("holds a NaN at byte \(offset - 4) (SWMM's ERROR 335)") }
            return v
        }

        mutating func doubles(_ n: Int) throws -> [Double] { try (0..<n).map { _ in try double() } }
        mutating func floats(_ n: Int) throws -> [Float] { try (0..<n).map { _ in try float() } }
    }
}
