extension AddressGeocoder {
    /// A place name found in the text: the records it may name, and whether it was matched with a typo.
    struct NameSpan {
        var candidates: [Int32]
        var fuzzy: Bool
    }

    /// Geocodes one address string.
    ///
    /// - Returns: the best record with its match level and confidence, or `nil` when the text names
    ///   nothing in the tree or contradicts itself (a door number on a road that runs through
    ///   another community than the one named, for example). A match coarser than the text asks
    ///   for carries its `fallback` (the level asked for and why) and scores as its level: the
    ///   level's `fallbackScore` times the text's quality. A door plate that does not exist on a
    ///   known road answers the road, at the number's interpolated position when the road's
    ///   plates allow it.
    ///
    /// Quality: 1, less 0.12 per name matched with a typo, 0.4 × the share of the text left
    /// unexplained, 0.03 per level inferred (a yard's only gate), 0.1 for a retired record.
    public func geocode(_ text: String) -> AddressMatch? {
        var query = AddressQuery(text)
        var fuzzy = 0, implicit = 0, missing = false, ambiguous = false
        var missingDoor: DoorKey?
        var head = query.head

        // 1. Road and door number: the road name ends where the number starts.
        var road: String?
        if query.doorNumber != nil {
            if let (name, length, typo) = roadSuffix(of: head) {
                road = name
                head.removeLast(length)
                if typo { fuzzy += 1 }
            } else if query.building == nil {
                // `双柳小区3号` without a road: people mean the building.
                query.building = query.doorNumber
                query.doorNumber = nil
            } else {
                query.doorNumber = nil
            }
        }

        // A named building written as name + number (邾城第一中学三号楼): one name, not a name and a 栋.
        if let b = query.building {
            let word = Array("\(b)栋".unicodeScalars)
            if !query.tail.isEmpty, !places.values(NameLexicon<Int32>.string((query.tail + word)[...])).isEmpty {
                query.tail += word
                query.building = nil
            } else if query.tail.isEmpty, !head.isEmpty {
                for start in head.indices where !places.values(NameLexicon<Int32>.string((head[start...] + word)[...])).isEmpty {
                    head += word
                    query.building = nil
                    break
                }
            }
        }

        // 2. Place names in the remaining text.
        var spans: [NameSpan] = []
        var skipped = 0
        for part in [head, query.tail] where !part.isEmpty {
            let (found, unmatched) = segment(part)
            spans += found
            skipped += unmatched
        }
        spans.removeAll { $0.candidates.isEmpty || $0.candidates == [-1] }
        fuzzy += spans.filter(\.fuzzy).count
        let textLength = max(1, head.count + query.tail.count)

        // 3. The anchor: the door plate, else the finest place named.
        var anchor: Int32?
        if let road, let number = query.doorNumber {
            let plates = doors[DoorKey(road: road, number: number)] ?? []
            if !plates.isEmpty {
                let fitting = consistent(plates, with: spans)
                guard !fitting.isEmpty else { return nil }
                if fitting.count == 1 { anchor = fitting[0] } else { anchor = commonAncestor(fitting); ambiguous = true }
            } else {
                missing = true
                missingDoor = DoorKey(road: road, number: number)
            }
        }
        if anchor == nil {
            var pool = spans
            if let road, let streets = streetsByRoad[road] { pool.append(NameSpan(candidates: streets, fuzzy: false)) }
            guard let choice = finest(in: pool) else { return nil }
            anchor = choice.node
            ambiguous = ambiguous || choice.ambiguous
        }
        guard var node = anchor, node >= 0 else { return nil }
        // A named building under the door plate (新洲区人民医院 at 问津大道12号) refines it.
        if !ambiguous {
            let below = Set(spans.flatMap { $0.candidates.filter { $0 >= 0 && $0 != node && isAncestor(node, of: $0) } })
            if below.count == 1, let only = below.first { node = only }
        }

        // 4. Below the anchor: 门牌 → 栋 → 单元 → 层 → 室.
        if !ambiguous {
            let descent = descend(from: node, query)
            node = descent.node
            implicit += descent.implicit
            missing = missing || descent.missing
        } else if query.hasBuildingParts || query.doorNumber != nil {
            missing = true
        }

        var quality = 1.0
        quality -= 0.12 * Double(fuzzy)
        quality -= 0.4 * Double(skipped) / Double(textLength)
        quality -= 0.03 * Double(implicit)
        if !table.inUse(node) { quality -= 0.1 }
        let record = self.record(node)
        let level = record.level.matchLevel
        let asked = requestedLevel(query, spans)
        var fallback: AddressFallback?
        if missing || ambiguous || level < asked {
            fallback = self.fallback(node, asked: max(asked, level), missingDoor: missingDoor, ambiguous: ambiguous)
        }
        let score = fallback.map { level.fallbackScore(interpolated: $0.position != nil) } ?? 1
        let confidence = min(1, max(0.01, score * quality))
        return AddressMatch(record: record, level: level, confidence: (confidence * 1000).rounded() / 1000,
                            components: components(of: node), distance: nil, fallback: fallback)
    }

    /// The longest road name (current or former) ending `head`, else a unique one within one typo.
    func roadSuffix(of head: [Unicode.Scalar]) -> (road: String, length: Int, typo: Bool)? {
        let n = head.count
        var length = min(n, roads.longest)
        while length >= 2 {
            let key = NameLexicon<String>.string(head[(n - length)...])
            let canonical = Set(roads.values(key))
            if canonical.count == 1, let road = canonical.first { return (road, length, false) }
            length -= 1
        }
        var found: [(String, Int)] = []
        var length2 = min(n, roads.longest + 1)
        while length2 >= roads.fuzzyMinimum {
            // A yard or community spelled exactly (凤凰苑) is not a road one typo away (凤凰街).
            if places.values(NameLexicon<Int32>.string(head[(n - length2)...])).isEmpty {
                for m in roads.fuzzyMatches(head[(n - length2)...]) { for v in m.values { found.append((v, length2)) } }
            }
            length2 -= 1
        }
        let names = Set(found.map(\.0))
        guard names.count == 1, let road = names.first, let length = found.map(\.1).max() else { return nil }
        return (road, length, true)
    }

    /// Splits name text into place names: the segmentation with the most text explained, exact
    /// names scoring their length and names within one typo their length minus 1.5.
    func segment(_ text: [Unicode.Scalar]) -> (spans: [NameSpan], unmatched: Int) {
        let n = text.count
        struct Step { var score: Double; var from: Int; var values: [Int32]; var fuzzy: Bool }
        func run(fuzzyWindows: Set<Int>?) -> [Step] {
            var best = [Step](repeating: Step(score: -.infinity, from: -1, values: [], fuzzy: false), count: n + 1)
            best[0].score = 0
            for i in 0..<n where best[i].score > -.infinity {
                let base = best[i].score
                if base > best[i + 1].score { best[i + 1] = Step(score: base, from: i, values: [], fuzzy: false) }
                for m in places.exactMatches(in: text, from: i) {
                    let s = base + Double(m.end - i)
                    if s > best[m.end].score { best[m.end] = Step(score: s, from: i, values: m.values, fuzzy: false) }
                }
                guard let windows = fuzzyWindows else { continue }
                let longest = min(n - i, places.longest + 1)
                guard longest >= places.fuzzyMinimum else { continue }
                for length in places.fuzzyMinimum...longest where (i..<(i + length)).contains(where: windows.contains) {
                    for m in places.fuzzyMatches(text[i..<(i + length)]) {
                        let s = base + Double(m.length) - 1.5
                        if s > best[i + length].score {
                            best[i + length] = Step(score: s, from: i, values: m.values, fuzzy: true)
                        }
                    }
                }
            }
            return best
        }
        func unmatchedPositions(_ best: [Step]) -> Set<Int> {
            var out: Set<Int> = []
            var j = n
            while j > 0 {
                let step = best[j]
                if step.values.isEmpty { for k in step.from..<j { out.insert(k) } }
                j = step.from
            }
            return out
        }
        var best = run(fuzzyWindows: nil)
        let gaps = unmatchedPositions(best)
        if !gaps.isEmpty { best = run(fuzzyWindows: gaps) }
        var spans: [NameSpan] = []
        var unmatched = 0
        var j = n
        while j > 0 {
            let step = best[j]
            if step.values.isEmpty { unmatched += j - step.from } else { spans.append(NameSpan(candidates: step.values, fuzzy: step.fuzzy)) }
            j = step.from
        }
        return (spans.reversed(), unmatched)
    }

    /// Whether `node` lies on one root-to-leaf path with some candidate of every span.
    func fits(_ node: Int32, _ spans: [NameSpan]) -> Bool {
        spans.allSatisfy { span in span.candidates.contains { $0 >= 0 && (isAncestor($0, of: node) || isAncestor(node, of: $0)) } }
    }

    /// The nodes that fit every span; when none does, those that fit the spans matched without typos.
    func consistent(_ nodes: [Int32], with spans: [NameSpan]) -> [Int32] {
        let all = nodes.filter { fits($0, spans) }
        if !all.isEmpty { return all }
        let exact = spans.filter { !$0.fuzzy }
        return exact.count == spans.count ? [] : nodes.filter { fits($0, exact) }
    }

    /// The finest named place consistent with every other name: a unique record, or the common
    /// ancestor of several (flagged ambiguous).
    func finest(in spans: [NameSpan]) -> (node: Int32, ambiguous: Bool)? {
        let depths = Set(spans.flatMap { $0.candidates.filter { $0 >= 0 }.map { level($0).depth } }).sorted(by: >)
        for depth in depths {
            let nodes = Array(Set(spans.flatMap { $0.candidates.filter { $0 >= 0 && level($0).depth == depth } })).sorted()
            let others = spans.filter { span in !span.candidates.contains { $0 >= 0 && level($0).depth == depth } }
            let fitting = consistent(nodes, with: others)
            if fitting.count == 1 { return (fitting[0], false) }
            // A road named exactly answers for its sections; a road name within one typo may be another road.
            let named = spans.filter { span in span.candidates.contains(where: fitting.contains) }
            if !named.contains(where: \.fuzzy), let road = wholeRoad(among: fitting) { return (road, false) }
            if fitting.count > 1, let common = commonAncestor(fitting) { return (common, true) }
        }
        return nil
    }

    /// Follows 门牌 → 栋 → 单元 → 层 → 室 from `anchor` as far as the query names them, inferring a
    /// level only when its parent has a single child there.
    func descend(from anchor: Int32, _ q: AddressQuery) -> (node: Int32, implicit: Int, missing: Bool) {
        var node = anchor, implicit = 0
        let below = q.hasBuildingParts
        if level(node) == .yard {
            guard below else { return (node, 0, false) }
            guard let gate = onlyChild(node, level: .doorPlate) else { return (node, 0, true) }
            node = gate
            implicit += 1
        }
        if level(node) == .doorPlate {
            if let b = q.building {
                guard let c = child(node, named: "\(b)栋") ?? (b == 1 ? onlyChild(node, level: .building) : nil) else {
                    return (node, implicit, true)
                }
                node = c
            } else if below {
                guard let c = onlyChild(node, level: .building) else { return (node, implicit, true) }
                node = c
                implicit += 1
            } else {
                return (node, implicit, false)
            }
        }
        if level(node) == .building {
            if let u = q.unit {
                guard let c = child(node, named: "\(u)单元") else { return (node, implicit, true) }
                node = c
            } else if q.floor != nil || q.room != nil {
                if let c = onlyChild(node, level: .unit) { node = c; implicit += 1 }
            } else {
                return (node, implicit, false)
            }
        }
        if let f = q.floor, level(node) == .unit {
            guard let c = child(node, named: "\(f)层") else { return (node, implicit, true) }
            node = c
        }
        if let r = q.room {
            let name = "\(r)室"
            if level(node) == .floor {
                guard let c = child(node, named: name) else { return (node, implicit, true) }
                return (c, implicit, false)
            }
            // No floor given: the room number is unique within the unit (or building).
            let units = level(node) == .unit ? [node] : children(node).filter { level($0) == .unit }
            var found: [Int32] = []
            for u in units { for f in children(u) { if let c = child(f, named: name) { found.append(c) } } }
            guard found.count == 1 else { return (node, implicit, true) }
            return (found[0], implicit + 1, false)
        }
        return (node, implicit, q.floor != nil && level(node) != .floor)
    }
}
