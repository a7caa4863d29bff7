import Foundation
import GeoCore
import Hummingbird
import TwinStore

/// GetFeature and the stored query GetFeatureById (OGC 09-025r2 §11, §7.9.3.6).
extension WFSRoutes {
    /// One query of a GetFeature: a feature type and what is read of it.
    struct Selection {
        let type: WFSFeatureType
        var query: FeatureQuery
        /// Features by id (`RESOURCEID`, `fes:ResourceId`) instead of `query`'s predicate.
        var ids: [String]?
        /// The properties written (`nil`: all) and whether the geometry is.
        let selected: Set<String>?
        let geometry: Bool
    }

    /// What a GetFeature or GetPropertyValue answers: the features of one page, with their types.
    struct Page {
        var found: [(WFSFeatureType, Feature)] = []
        /// `numberMatched` (`nil`: unknown).
        var matched: Int? = 0
        /// The URL of the next page, when more follow.
        var next: String?
    }

    /// The selections' features one after the other: STARTINDEX skips across them, COUNT spans them.
    func page(_ r: WFSGetFeatureRequest, _ selections: [Selection], _ raw: QueryParameters, _ caller: Caller) async throws -> Page {
        await catchUp(selections.map(\.type.id))
        let take = min(r.count ?? WFSCapabilities.countDefault, FeatureQuery.maximumLimit)
        var result = Page()
        var skip = r.startIndex
        var more = false
        for s in selections {
            var total: Int?
            var listed: [Feature]?
            if let ids = s.ids {
                listed = try await byID(s.type.id, ids, s.query, caller)
                total = listed?.count
            } else if r.hits || s.type.info.count <= exactCountLimit {
                total = try await store.count(layer: s.type.id, s.query, by: caller)
            }
            if let m = result.matched, let total { result.matched = m + total } else { result.matched = nil }
            if r.hits { continue }
            if let total, skip >= total { skip -= total; continue }
            let want = take - result.found.count
            if let listed {
                let page = listed.dropFirst(skip).prefix(want)
                result.found += page.map { (s.type, $0) }
                more = more || listed.count > skip + page.count
                skip = 0
            } else {
                let (features, skipped, rest) = try await read(s.type.id, s.query, skip: skip, take: want, caller)
                result.found += features.map { (s.type, $0) }
                more = more || rest
                skip -= skipped
            }
        }
        if more && !r.hits {
            let kept = raw.pairs.filter { !["STARTINDEX", "COUNT", "MAXFEATURES"].contains($0.name.uppercased()) }
            let pairs = kept + [("STARTINDEX", String(r.startIndex + result.found.count)), ("COUNT", String(take))]
            result.next = serviceURL + "?" + pairs.map { QueryParameters.escape($0.0) + "=" + QueryParameters.escape($0.1) }.joined(separator: "&")
        }
        return result
    }

    func getFeature(_ p: WMSParameters, _ raw: QueryParameters, _ caller: Caller) async throws -> Representation {
        let r = try WFSGetFeatureRequest(p)
        let selections = try await self.selections(r, caller)
        let result = try await page(r, selections, raw, caller)
        let (found, matched, next) = (result.found, result.matched, result.next)
        if let id = r.byID {
            guard let (type, feature) = found.first else {
                throw WFSException(.notFound, "no feature '\(id)' for this caller", locator: "ID")
            }
            return try single(feature, type, r)
        }
        let projected = try project(found.map(\.1), r.srs, eastFirst: r.format == .json)
        let timeStamp = RFC3339.formatSeconds(TwinClock.current.now)
        switch r.format {
        case .gml:
            let schemaURL = serviceURL + "?SERVICE=WFS&VERSION=2.0.0&REQUEST=DescribeFeatureType&TYPENAMES="
                + Set(found.map(\.0.typeName) + selections.map(\.type.typeName)).sorted().joined(separator: ",")
            let writer = WFSGML(srs: r.srs)
            var out = WFSGML.collectionStart(numberMatched: matched, numberReturned: found.count, timeStamp: timeStamp, next: next, schemaURL: schemaURL)
            let byType = Dictionary(selections.map { ($0.type.id, $0) }, uniquingKeysWith: { a, _ in a })
            for (i, (type, _)) in found.enumerated() {
                let s = byType[type.id]
                out += "  <wfs:member>" + writer.feature(projected[i], of: type, selected: s?.selected, geometry: s?.geometry ?? true) + "</wfs:member>\n"
            }
            out += WFSGML.collectionEnd
            return Self.xml(out, mediaType: WFSOutputFormat.gml.rawValue)
        case .json:
            let features = zip(found, projected).map { pair, f in
                var f = f
                f.id = .string("\(pair.0.id).\(f.id?.description ?? "")")
                return f
            }
            var members: [String: JSONValue] = ["numberReturned": .integer(Int64(found.count)), "timeStamp": .string(timeStamp),
                                                "crs": ["type": "name", "properties": ["name": .string(r.srs.name)]]]
            members["numberMatched"] = matched.map { .integer(Int64($0)) } ?? .string("unknown")
            if let next { members["links"] = [["href": .string(next), "rel": "next", "type": .string(MediaTypeName.json)]] }
            var body = GeoJSON.encodeBytes(.featureCollection(FeatureCollection(features)), options: Self.jsonOptions(r.srs))
            body.removeLast()
            body.append(UInt8(ascii: ","))
            body += JSONText.members(members)
            body.append(UInt8(ascii: "}"))
            return Representation(mediaType: MediaTypeName.json, body: body)
        }
    }

    static func jsonOptions(_ srs: GMLCRS) -> GeoJSONWriteOptions {
        GeoJSONWriteOptions(precision: ((try? srs.crs.metadata.isGeographic) ?? true) ? 7 : 3, rightHandRule: true)
    }

    /// GetFeatureById's answer: the feature alone (GML) or a GeoJSON Feature.
    private func single(_ feature: Feature, _ type: WFSFeatureType, _ r: WFSGetFeatureRequest) throws -> Representation {
        let f = try project([feature], r.srs, eastFirst: r.format == .json)[0]
        switch r.format {
        case .gml:
            let text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                + WFSGML(srs: r.srs).feature(f, of: type, selected: nil, geometry: true, standalone: true) + "\n"
            return Self.xml(text, mediaType: WFSOutputFormat.gml.rawValue)
        case .json:
            var g = f
            g.id = .string("\(type.id).\(f.id?.description ?? "")")
            return Representation(mediaType: MediaTypeName.json, body: GeoJSON.encodeBytes(.feature(g), options: Self.jsonOptions(r.srs)))
        }
    }

    /// The queries of a request, checked against the caller's feature types.
    func selections(_ r: WFSGetFeatureRequest, _ caller: Caller) async throws -> [Selection] {
        var names = r.typeNames
        var idsByType: [String: [String]] = [:]
        for rid in r.resourceIds ?? [] {
            guard let dot = rid.firstIndex(of: "."), dot != rid.startIndex, rid.index(after: dot) != rid.endIndex else {
                throw WFSException(.invalidParameterValue, "resource id '\(rid)' is not layer.id (the gml:id of a feature)", locator: r.byID == nil ? "RESOURCEID" : "ID")
            }
            let layer = String(rid[..<dot])
            if r.typeNames.isEmpty && !names.contains(layer) { names.append(layer) }
            idsByType[layer, default: []].append(String(rid[rid.index(after: dot)...]))
        }
        var out: [Selection] = []
        for (i, name) in names.enumerated() {
            let type = try await featureType(name, caller, locator: r.resourceIds != nil && r.typeNames.isEmpty ? "RESOURCEID" : "TYPENAMES")
            let known = Set(type.properties.map(\.name))
            let wanted = r.propertyNames.map { $0.count == 1 ? $0[0] : $0[i] }
            for property in wanted ?? [] where !known.contains(property) && property != FES2.geometryName {
                throw WFSException(.invalidParameterValue, "PROPERTYNAME: '\(property)' is not a property of \(type.typeName); known: \(([FES2.geometryName] + known.sorted()).joined(separator: ", "))",
                                   locator: "PROPERTYNAME")
            }
            var query = FeatureQuery(bbox: r.bbox.map { BoundingBox($0) }, limit: FeatureQuery.maximumLimit)
            query.properties = wanted?.filter { $0 != FES2.geometryName }
            query.sortBy = try r.sortBy.map { key in
                guard known.contains(key.property) else {
                    throw WFSException(.invalidParameterValue, "SORTBY: '\(key.property)' is not a property of \(type.typeName)", locator: "SORTBY")
                }
                return SortKey(key.property, ascending: key.ascending)
            }
            var ids = r.resourceIds == nil ? nil : idsByType[type.id] ?? []
            if let filters = r.filters {
                let selection = try FES2.parse(filters.count == 1 ? filters[0] : filters[i],
                                               queryables: FilterParameter.queryables(type.info.definition, for: caller), defaultCRS: r.srs)
                query.filter = selection.expression
                if let rids = selection.resourceIds {
                    ids = rids.compactMap { rid in rid.hasPrefix(type.id + ".") ? String(rid.dropFirst(type.id.count + 1)) : nil }
                }
            }
            out.append(Selection(type: type, query: query, ids: ids, selected: wanted.map { Set($0) }, geometry: wanted?.contains(FES2.geometryName) ?? true))
        }
        return out
    }

    /// The features of `layer` with these ids the caller may read, in the order named, with the
    /// query's property selection.
    private func byID(_ layer: String, _ ids: [String], _ query: FeatureQuery, _ caller: Caller) async throws -> [Feature] {
        var out: [Feature] = []
        for id in ids {
            guard var f = try await store.feature(layer: layer, id: id, by: caller) else { continue }
            if let names = query.properties { f.properties = f.properties.filter { names.contains($0.key) } }
            out.append(f)
        }
        return out
    }

    /// `take` features after the first `skip` (keyset pages of the store, from where a previous
    /// page ended when `cursors` knows it), how many were skipped (fewer than `skip` when the
    /// layer has fewer) and whether more follow.
    private func read(_ layer: String, _ query: FeatureQuery, skip: Int, take: Int, _ caller: Caller) async throws -> ([Feature], Int, Bool) {
        func key(_ index: Int) -> WFSPageCursors.Key { .init(layer: layer, query: query, caller: String(describing: caller), index: index) }
        var q = query
        var skipped = 0
        var out: [Feature] = []
        if skip > 0, let cursor = cursors.cursor(key(skip)) {
            q.after = cursor
            skipped = skip
        }
        while true {
            let need = (skip - skipped) + (take - out.count)
            q.limit = max(1, min(need, FeatureQuery.maximumLimit))
            let page = try await store.query(layer: layer, q, by: caller)
            if need == 0 { return (out, skipped, !page.features.isEmpty) }  // a probe: does anything follow?
            for f in page.features {
                if skipped < skip { skipped += 1 } else { out.append(f) }
            }
            guard let next = page.next, !page.features.isEmpty else { return (out, skipped, false) }
            q.after = next
            if out.count == take { cursors.remember(next, key(skip + take)) }
        }
    }

    /// Features from storage (EPSG:4490 lon/lat) into `srs`, in its axis order (or east first).
    func project(_ features: [Feature], _ srs: GMLCRS, eastFirst: Bool) throws -> [Feature] {
        do {
            let transformer = try CoordinateTransformer.shared(from: .cgcs2000, to: srs.crs)
            let swap = try !eastFirst && srs.swapsAxes
            return try features.map { f in
                var f = f
                if let g = f.geometry {
                    let moved = transformer.isIdentity ? g : try transformer.transform(g)
                    f.geometry = swap ? moved.mapPositions { Position(x: $0.y, y: $0.x, z: $0.z) } : moved
                }
                return f
            }
        } catch let e as GeometryError {
            throw WFSException(.invalidParameterValue, "SRSNAME '\(srs.name)': \(e.message)", locator: "SRSNAME")
        }
    }
}
