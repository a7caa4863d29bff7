import Foundation
import SWMMFormat

/// Leave to read and write the files a model's `[FILES]` section names, and where they are. Only
/// the command line grants it, for a `.inp` its administrator gave it: a model that reaches the
/// engine any other way (over HTTP, from store layers) runs without it, so its `[FILES]` is refused
/// and it can never name a file on the server.
public struct SWMMInterfaceFiles: Sendable {
    /// The folder relative file names are resolved in (the `.inp` file's own, as SWMM does).
    public var directory: URL
    /// Where each object of the `.inp` was defined: SWMM numbers nodes and links in that order, and
    /// so does a hot-start file.
    public var lines: SWMMSourceLines

    public init(directory: URL, lines: SWMMSourceLines) {
        self.directory = directory
        self.lines = lines
    }

    func url(_ name: String) -> URL {
        name.hasPrefix("/") ? URL(fileURLWithPath: name) : directory.appendingPathComponent(name)
    }
}

extension SWMMModel {
    /// The hot-start files `[FILES]` names (USE, SAVE), checked.
    /// - Throws: `SWMMInputError` (section FILES) naming the item for interface files other than
    ///   hot start, a line without a file name, and a hot start of a model with subcatchments.
    public func hotStartFiles() throws -> (use: String?, save: String?) {
        var use: String?, save: String?
        for t in rawSections.filter({ $0.name == "FILES" }).flatMap(\.lines) {
            let verb = t.first?.uppercased() ?? "?", kind = t.count > 1 ? t[1].uppercased() : "?"
            func fail(_ why: String) -> SWMMInputError {
                SWMMInputError(line: nil, section: "FILES", field: "Action", reason: "\(verb) \(kind): \(why)")
            }
            guard verb == "USE" || verb == "SAVE" else { throw fail("expected USE or SAVE (SWMM's ERROR 205)") }
            guard kind == "HOTSTART" else {
                throw fail("interface files other than hot start (rainfall, runoff, RDII, inflows, outflows) are not read or written by this engine")
            }
            guard t.count > 2, !t[2].isEmpty else { throw fail("no file name") }
            let name = t[2].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            if verb == "USE" { use = name } else { save = name }
        }
        if use != nil || save != nil, let s = subcatchments.first {
            throw SWMMInputError(line: nil, section: "FILES", field: "Action",
                                 reason: "\(use != nil ? "USE" : "SAVE") HOTSTART: subcatchment \(s.name): the runoff state of a hot start "
                                     + "(ponded water, infiltration, groundwater) is not read or written yet; only models without subcatchments")
        }
        return (use, save)
    }

    /// Node and link names in SWMM's numbering (the order they are defined in the file).
    func swmmOrder(_ lines: SWMMSourceLines) -> (nodes: [String], links: [String]) {
        func sorted(_ names: [String], _ line: (String) -> Int?) -> [String] {
            names.enumerated().sorted { (line($0.element) ?? Int.max, $0.offset) < (line($1.element) ?? Int.max, $1.offset) }.map(\.element)
        }
        return (sorted(nodeNames, lines.node), sorted(linkEnds.map { $0.name }, lines.link))
    }

    /// What walking a hot-start file for this model needs.
    func hotStartLayout(_ lines: SWMMSourceLines) -> SWMMHotStart.Layout {
        let order = swmmOrder(lines), storageNames = Set(storage.map(\.name))
        let count: (String) -> Int = { name in rawSections.filter { $0.name == name }.reduce(0) { $0 + $1.lines.count } }
        return SWMMHotStart.Layout(groundwater: subcatchments.map { _ in false }, snow: subcatchments.map { _ in false },
                                   storage: order.nodes.map { storageNames.contains($0) }, links: order.links.count,
                                   landUses: count("LANDUSES"), pollutants: count("POLLUTANTS"), flowUnits: units.flow)
    }

    /// SWMM keeps feet and cubic feet per second inside whatever units the model uses.
    static let hotStartFoot = 0.3048
    static let hotStartCFS = 0.028316846592

    /// A hot-start file's routing state in the network's order and SI.
    func routingHotStart(_ file: SWMMHotStart, network: HydraulicNetwork, lines: SWMMSourceLines) throws -> RoutingHotStart {
        let order = swmmOrder(lines)
        var h = RoutingHotStart(nodeDepths: network.nodes.map { _ in 0 }, lateralInflows: network.nodes.map { _ in 0 },
                                linkFlows: network.links.map { _ in 0 }, linkDepths: network.links.map { _ in 0 },
                                linkSettings: network.links.map { _ in 1 })
        let linkIndex = Dictionary(network.links.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
        for (k, name) in order.nodes.enumerated() {
            guard let i = network.nodeIndex(name) else { continue }
            h.nodeDepths[i] = Double(file.nodes[k].depth) * Self.hotStartFoot
            h.lateralInflows[i] = Double(file.nodes[k].lateralInflow) * Self.hotStartCFS
        }
        for (k, name) in order.links.enumerated() {
            guard let j = linkIndex[name] else { continue }
            h.linkFlows[j] = Double(file.links[k].flow) * Self.hotStartCFS
            h.linkDepths[j] = Double(file.links[k].depth) * Self.hotStartFoot
            h.linkSettings[j] = Double(file.links[k].setting)
        }
        return h
    }

    /// The hot-start file SWMM 5.2 would write for this routing state.
    func hotStartFile(_ h: RoutingHotStart, network: HydraulicNetwork, lines: SWMMSourceLines) -> SWMMHotStart {
        let order = swmmOrder(lines), layout = hotStartLayout(lines)
        let linkIndex = Dictionary(network.links.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
        let zeros = [Float](repeating: 0, count: layout.pollutants)
        let nodes = order.nodes.enumerated().map { k, name -> SWMMHotStart.Node in
            let i = network.nodeIndex(name)
            return SWMMHotStart.Node(depth: Float((i.map { h.nodeDepths[$0] } ?? 0) / Self.hotStartFoot),
                                     lateralInflow: Float((i.map { h.lateralInflows[$0] } ?? 0) / Self.hotStartCFS),
                                     residenceTime: layout.storage[k] ? 0 : nil, quality: zeros)
        }
        let links = order.links.map { name -> SWMMHotStart.Link in
            let j = linkIndex[name]
            return SWMMHotStart.Link(flow: Float((j.map { h.linkFlows[$0] } ?? 0) / Self.hotStartCFS),
                                     depth: Float((j.map { h.linkDepths[$0] } ?? 0) / Self.hotStartFoot),
                                     setting: Float(j.map { h.linkSettings[$0] } ?? 1), quality: zeros)
        }
        return SWMMHotStart(flowUnits: units.flow, landUses: layout.landUses, pollutants: layout.pollutants,
                            subcatchments: [], nodes: nodes, links: links)
    }

    /// Reads the hot-start file `name` for `network`.
    /// - Throws: `SWMMInputError` (section FILES) when it cannot be read (SWMM's ERROR 331) or does
    ///   not fit the model.
    func readHotStart(_ name: String, files: SWMMInterfaceFiles, network: HydraulicNetwork) throws -> RoutingHotStart {
        let data: Data
        do { data = try Data(contentsOf: files.url(name)) } catch {
            throw SWMMInputError(line: nil, section: "FILES", field: "Name",
                                 reason: "USE HOTSTART \(name): cannot open the hot start file (SWMM's ERROR 331)")
        }
        let file = try SWMMHotStart(data: data, layout: hotStartLayout(files.lines), name: "USE HOTSTART \(name)")
        return try routingHotStart(file, network: network, lines: files.lines)
    }

    /// Writes the hot-start file `name` with the routing state `h`.
    func saveHotStart(_ name: String, _ h: RoutingHotStart, files: SWMMInterfaceFiles, network: HydraulicNetwork) throws {
        do { try hotStartFile(h, network: network, lines: files.lines).encoded().write(to: files.url(name)) } catch {
            throw SWMMInputError(line: nil, section: "FILES", field: "Name",
                                 reason: "SAVE HOTSTART \(name): cannot write the hot start file (SWMM's ERROR 331)")
        }
    }
}
