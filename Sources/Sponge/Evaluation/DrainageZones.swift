import SWMMFormat

/// The drainage zone (排水分区) of each subcatchment of a SWMM model, for capture rates by zone:
///
/// - a subcatchment tagged in `[TAGS]` (`Subcatch NAME ZONE`) is in the zone its tag names (how a
///   planner draws zones that are not the pipes' own: a district's 排水分区 map);
/// - any other is in the zone of the outfall its runoff reaches: from its outlet node along the
///   links downstream (conduits, pumps, orifices, weirs, outlets; a divider's main link first)
///   to the first outfall, named `outfall NAME`; a subcatchment draining onto another is in that
///   one's zone; one whose water reaches no outfall (a storage unit with no way out) is in the
///   zone `node NAME` of the last node it reaches.
public struct DrainageZones: Sendable, Hashable {
    /// How a zone was found.
    public enum Basis: String, Sendable, Hashable, Encodable { case tag, outfall, node }

    /// The zone of each subcatchment, in the model's order.
    public var zoneOfSubcatchment: [String]
    /// Each zone's basis.
    public var basis: [String: Basis]

    public init(model: SWMMModel) {
        var tags: [String: String] = [:]
        for s in model.rawSections where s.name == "TAGS" {
            for line in s.lines where line.count >= 3 && line[0].uppercased() == "SUBCATCH" { tags[line[1]] = line[2] }
        }
        var downstream: [String: [String]] = [:]
        for link in model.linkEnds { downstream[link.from, default: []].append(link.to) }
        let outfalls = Set(model.outfalls.map(\.name))
        func zone(ofNode start: String) -> (String, Basis) {
            // Breadth-first, links in file order: the first outfall reached.
            var queue = [start], seen: Set<String> = [start], k = 0
            while k < queue.count {
                let node = queue[k]
                k += 1
                if outfalls.contains(node) { return ("outfall \(node)", .outfall) }
                for next in downstream[node] ?? [] where seen.insert(next).inserted { queue.append(next) }
            }
            return ("node \(queue.last ?? start)", .node)
        }
        let index = Dictionary(model.subcatchments.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        var zones = [String?](repeating: nil, count: model.subcatchments.count)
        var basis: [String: Basis] = [:]
        func resolve(_ j: Int, _ depth: Int) -> String {
            if let z = zones[j] { return z }
            let s = model.subcatchments[j]
            let z: String
            if let tag = tags[s.name] {
                z = tag
                basis[z] = .tag
            } else if let next = index[s.outlet], next != j, depth < model.subcatchments.count {
                z = resolve(next, depth + 1)
            } else {
                let (name, b) = zone(ofNode: s.outlet)
                z = name
                basis[z] = basis[z] ?? b
            }
            zones[j] = z
            return z
        }
        zoneOfSubcatchment = model.subcatchments.indices.map { resolve($0, 0) }
        self.basis = basis
    }
}
