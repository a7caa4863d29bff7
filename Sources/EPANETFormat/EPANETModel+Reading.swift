import Foundation
import SWMMFormat

extension EPANETModel {
    /// The sections of EPANET 2.2's input format (and 2.3's `LEAKAGE`); any other header is refused.
    static let sections: Set<String> = [
        "TITLE", "JUNCTIONS", "RESERVOIRS", "TANKS", "PIPES", "PUMPS", "VALVES", "DEMANDS", "STATUS", "PATTERNS",
        "CURVES", "CONTROLS", "RULES", "ENERGY", "EMITTERS", "QUALITY", "SOURCES", "REACTIONS", "MIXING", "TIMES",
        "REPORT", "OPTIONS", "COORDINATES", "VERTICES", "LABELS", "BACKDROP", "TAGS", "LEAKAGE", "END",
    ]

    /// Reads a model from a `.inp` file.
    /// - Throws: `EPANETInputError` naming the file's problem; never a crash on bad input.
    public init(contentsOf url: URL) throws {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw EPANETInputError(line: nil, section: nil, field: nil, reason: "cannot read \(url.lastPathComponent)")
        }
        // EPANET's own files are ASCII; the GUI saves in the system's code page, so a byte that is not
        // UTF-8 is kept as Latin-1 rather than refused (ids and titles only).
        try self.init(text: String(data: data, encoding: .utf8) ?? String(decoding: data.map { $0 < 0x80 ? $0 : 0x3F }, as: UTF8.self))
    }

    /// Reads a model from the text of a `.inp` file. Tokens are split as EPANET's `gettokens` does
    /// (the rules SWMM shares: whitespace, `"quoted"` tokens, `;` comments).
    public init(text: String) throws {
        self.init()
        var section: String?
        var lines: [String: [EPANETLine]] = [:]
        var order: [String] = []
        var number = 0
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            number += 1
            let trimmed = raw.drop { $0 == " " || $0 == "\t" }
            if trimmed.hasPrefix("[") {
                let name = trimmed.dropFirst().prefix { $0 != "]" }.uppercased()
                guard trimmed.contains("]"), Self.sections.contains(name) else {
                    throw EPANETInputError(line: number, section: nil, field: nil,
                                           reason: "unknown section header (EPANET 2.2's sections: \(Self.sections.sorted().joined(separator: ", ")))")
                }
                if name == "END" { break }
                section = name
                if lines[name] == nil { order.append(name) }
                continue
            }
            if section == "TITLE" {
                let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
                if !text.isEmpty { title.append(text) }
                continue
            }
            let tokens = SWMMLine.tokenize(raw)
            guard !tokens.isEmpty else { continue }
            guard let section else {
                throw EPANETInputError(line: number, section: nil, field: nil, reason: "data before the first section header")
            }
            lines[section, default: []].append(EPANETLine(number: number, section: section, tokens: tokens))
        }
        try readOptions(lines["OPTIONS"] ?? [])
        try readNodes(lines)
        try readLinks(lines)
        try readStatus(lines["STATUS"] ?? [])
        try readPlacement(lines)
        try check()
    }

    private mutating func readOptions(_ lines: [EPANETLine]) throws {
        for line in lines {
            switch line.tokens[0].uppercased() {
            case "UNITS": flowUnits = try line.keyword(1, "Units", EPANETFlowUnits.self)
            case "HEADLOSS": headloss = try line.keyword(1, "Headloss", EPANETHeadloss.self)
            default: continue
            }
        }
    }

    private mutating func readNodes(_ lines: [String: [EPANETLine]]) throws {
        let (m, q) = (flowUnits.metresPerLength, flowUnits.litresPerSecond)
        for line in lines["JUNCTIONS"] ?? [] {
            junctions.append(Junction(id: try line.id(), elevation: try line.number(1, "Elevation") * m,
                                      baseDemand: try line.number(2, "Demand", default: 0) * q, demandPattern: line.optional(3)))
        }
        for line in lines["RESERVOIRS"] ?? [] {
            reservoirs.append(Reservoir(id: try line.id(), head: try line.number(1, "Head") * m, headPattern: line.optional(2)))
        }
        for line in lines["TANKS"] ?? [] {
            let volume = flowUnits.isUSCustomary ? 0.028316846592 : 1
            tanks.append(Tank(id: try line.id(), elevation: try line.number(1, "Elevation") * m,
                              initialLevel: try line.nonNegative(2, "InitLevel") * m, minimumLevel: try line.nonNegative(3, "MinLevel") * m,
                              maximumLevel: try line.nonNegative(4, "MaxLevel") * m, diameter: try line.nonNegative(5, "Diameter") * m,
                              minimumVolume: try line.nonNegative(6, "MinVol", default: 0) * volume,
                              volumeCurve: line.optional(7).flatMap { $0 == "*" ? nil : $0 }))
        }
        // [DEMANDS] replace a junction's [JUNCTIONS] demand (EPANET reads the first as a replacement,
        // the rest as further categories): the base demand is their sum.
        var demands: [String: Double] = [:]
        for line in lines["DEMANDS"] ?? [] {
            demands[try line.id(), default: 0] += try line.number(1, "Demand") * q
        }
        let index = Dictionary(junctions.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        for (id, total) in demands {
            guard let i = index[id] else {
                let line = (lines["DEMANDS"] ?? []).first { $0.tokens[0] == id }
                throw EPANETInputError(line: line?.number, section: "DEMANDS", field: "Junction", reason: "no junction \(id)")
            }
            junctions[i].baseDemand = total
        }
    }

    private mutating func readLinks(_ lines: [String: [EPANETLine]]) throws {
        let (m, mm) = (flowUnits.metresPerLength, flowUnits.millimetresPerDiameter)
        let roughness = headloss == .darcyWeisbach && flowUnits.isUSCustomary ? 0.3048 : 1   // millifeet → mm
        for line in lines["PIPES"] ?? [] {
            let status: LinkStatus = try line.tokens.count > 7 ? line.keyword(7, "Status", LinkStatus.self) : .open
            pipes.append(Pipe(id: try line.id(), node1: try line.string(1, "Node1"), node2: try line.string(2, "Node2"),
                              length: try line.positive(3, "Length") * m, diameter: try line.positive(4, "Diameter") * mm,
                              roughness: try line.positive(5, "Roughness") * roughness,
                              minorLoss: try line.nonNegative(6, "MinorLoss", default: 0), status: status))
        }
        for line in lines["PUMPS"] ?? [] {
            var pump = Pump(id: try line.id(), node1: try line.string(1, "Node1"), node2: try line.string(2, "Node2"),
                            headCurve: nil, power: nil, speed: 1, pattern: nil, status: .open)
            var k = 3
            while k < line.tokens.count {
                let key = line.tokens[k].uppercased()
                switch key {
                case "HEAD": pump.headCurve = try line.string(k + 1, "Head")
                case "POWER": pump.power = try line.positive(k + 1, "Power") * (flowUnits.isUSCustomary ? 0.745699872 : 1)
                case "SPEED": pump.speed = try line.nonNegative(k + 1, "Speed")
                case "PATTERN": pump.pattern = try line.string(k + 1, "Pattern")
                default: throw line.error("Parameters", "unknown pump keyword \(line.tokens[k]); expected HEAD, POWER, SPEED or PATTERN")
                }
                k += 2
            }
            guard pump.headCurve != nil || pump.power != nil else {
                throw line.error("Parameters", "a pump needs a HEAD curve or a POWER")
            }
            pumps.append(pump)
        }
        for line in lines["VALVES"] ?? [] {
            let type = try line.keyword(4, "Type", ValveType.self)
            var valve = Valve(id: try line.id(), node1: try line.string(1, "Node1"), node2: try line.string(2, "Node2"),
                              diameter: try line.positive(3, "Diameter") * mm, type: type, setting: 0, curve: nil,
                              minorLoss: try line.nonNegative(6, "MinorLoss", default: 0), fixedStatus: nil)
            switch type {
            case .gpv: valve.curve = try line.string(5, "Setting")
            case .prv, .psv, .pbv: valve.setting = try line.number(5, "Setting") * (flowUnits.isUSCustomary ? 0.3048 / 0.4333 : 1)  // psi → m as EPANET converts (0.4333 psi per ft)
            case .fcv: valve.setting = try line.number(5, "Setting") * flowUnits.litresPerSecond
            case .tcv, .pcv: valve.setting = try line.number(5, "Setting")
            }
            valves.append(valve)
        }
    }

    private mutating func readStatus(_ lines: [EPANETLine]) throws {
        let pipeIndex = Dictionary(pipes.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
        let pumpIndex = Dictionary(pumps.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
        let valveIndex = Dictionary(valves.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
        for line in lines {
            let id = try line.id()
            let value = try line.string(1, "Status").uppercased()
            let status = LinkStatus(rawValue: value)
            if let i = pipeIndex[id] {
                guard let status, status != .checkValve else { throw line.error("Status", "a pipe's status is OPEN or CLOSED, found \(value)") }
                pipes[i].status = status
            } else if let i = pumpIndex[id] {
                // A number is the pump's initial relative speed; OPEN/CLOSED its status.
                if let status { pumps[i].status = status } else { pumps[i].speed = try line.nonNegative(1, "Status") }
            } else if let i = valveIndex[id] {
                if let status { valves[i].fixedStatus = status } else { valves[i].setting = try line.number(1, "Status") }
            } else {
                throw line.error("Link", "no link \(id)")
            }
        }
    }

    private mutating func readPlacement(_ lines: [String: [EPANETLine]]) throws {
        for line in lines["COORDINATES"] ?? [] {
            coordinates[try line.id()] = Coordinate(x: try line.number(1, "X"), y: try line.number(2, "Y"))
        }
        for line in lines["VERTICES"] ?? [] {
            vertices[try line.id(), default: []].append(Coordinate(x: try line.number(1, "X"), y: try line.number(2, "Y")))
        }
        for line in lines["TAGS"] ?? [] where line.tokens.count >= 3 {
            switch line.tokens[0].uppercased() {
            case "NODE": nodeTags[line.tokens[1]] = line.tokens[2]
            case "LINK": linkTags[line.tokens[1]] = line.tokens[2]
            default: throw line.error("Object", "a tag is for a NODE or a LINK, found \(line.tokens[0])")
            }
        }
    }

    /// Ids unique per kind (nodes; links), every link between two known, different nodes.
    private func check() throws {
        var nodes = Set<String>()
        for id in nodeIDs where !nodes.insert(id).inserted {
            throw EPANETInputError(line: nil, section: nil, field: "ID", reason: "node \(id) is defined twice")
        }
        var seen = Set<String>()
        for link in links {
            guard seen.insert(link.id).inserted else {
                throw EPANETInputError(line: nil, section: nil, field: "ID", reason: "link \(link.id) is defined twice")
            }
            for (field, node) in [("Node1", link.node1), ("Node2", link.node2)] where !nodes.contains(node) {
                throw EPANETInputError(line: nil, section: nil, field: field, reason: "link \(link.id) names node \(node), which the model does not define")
            }
            guard link.node1 != link.node2 else {
                throw EPANETInputError(line: nil, section: nil, field: "Node2", reason: "link \(link.id) starts and ends at node \(link.node1)")
            }
        }
    }
}

/// One data line of a section, with typed accessors whose errors name the line, section and field.
struct EPANETLine {
    var number: Int
    var section: String
    var tokens: [String]

    func error(_ field: String?, _ reason: String) -> EPANETInputError {
        EPANETInputError(line: number, section: section, field: field, reason: reason)
    }

    func id() throws -> String { try string(0, "ID") }

    func string(_ i: Int, _ field: String) throws -> String {
        guard i < tokens.count, !tokens[i].isEmpty else { throw error(field, "missing") }
        return tokens[i]
    }

    func optional(_ i: Int) -> String? { i < tokens.count && !tokens[i].isEmpty ? tokens[i] : nil }

    func number(_ i: Int, _ field: String, default value: Double? = nil) throws -> Double {
        guard i < tokens.count else {
            if let value { return value }
            throw error(field, "missing")
        }
        guard let x = Double(tokens[i]), x.isFinite else { throw error(field, "not a number: \(tokens[i].prefix(40))") }
        return x
    }

    func nonNegative(_ i: Int, _ field: String, default value: Double? = nil) throws -> Double {
        let x = try number(i, field, default: value)
        guard x >= 0 else { throw error(field, "must not be negative, found \(x)") }
        return x
    }

    func positive(_ i: Int, _ field: String) throws -> Double {
        let x = try number(i, field)
        guard x > 0 else { throw error(field, "must be more than 0, found \(x)") }
        return x
    }

    func keyword<K: RawRepresentable & CaseIterable>(_ i: Int, _ field: String, _ type: K.Type) throws -> K where K.RawValue == String {
        let token = try string(i, field)
        guard let k = K(rawValue: token.uppercased()) else {
            throw error(field, "unknown keyword \(token.prefix(40)); expected one of \(K.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return k
    }
}
