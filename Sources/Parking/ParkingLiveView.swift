import Emergency
import Foundation
import GeoCore
import ParkingSim
import ProcessRuntime
import Synchronization
import TwinStore

/// The live parking view: `parking_availability` (one feature per lot, at the lot's polygon: free
/// spaces, occupancy, trend, freshness, predicted free spaces at +15/+30/+60/+120 min) and the
/// `content` of every `parking_guidance_signs` feature, both computed from `parking_lots` and the
/// occupancy history `parking_occupancy` by ``ParkingAvailability`` (the same computation as the
/// `parking-forecast` process), the signs' lots ordered by the guidance ranking on the `roads` graph
/// (the `parking-guidance` process's), and written back only where they changed. A server keeps them in
/// step with the change feed (a new reading, an edited lot or sign) and with the clock (a reading
/// passing its freshness limit turns its lot unknown, never free): ``refresh(_:now:freshness:)``
/// is that one step.
public enum ParkingLiveView {
    public static let layer = "parking_availability"
    public static let signsLayer = "parking_guidance_signs"
    /// The layers the view is computed from: a change to any of them calls for a refresh.
    public static let sources: Set<String> = [StoreParkingLot.layer, StoreParkingOccupancy.layer, signsLayer]
    /// Who writes the view: the lots' owner department's guidance service (named in the audit log).
    public static let author = "停车诱导服务"

    /// Availability classes the map colours lots by (`style.fill: by-availability`).
    public enum Availability: String, Sendable, CaseIterable {
        /// Below the 85 % occupancy SFpark aims under: space is easy to find.
        case available
        /// At or above 85 %: a few spaces left.
        case few
        /// No free space.
        case full
        /// No live detection, no reading, or the latest reading is past its freshness limit.
        case unknown

        public var color: String {
            switch self {
            case .available: "#1a9850"
            case .few: "#fdae61"
            case .full: "#d73027"
            case .unknown: "#9e9e9e"
            }
        }
    }

    /// Occupancy from which a lot shows as `few`.
    public static let fewThreshold = 0.85

    /// What one refresh changed.
    public struct Update: Sendable {
        /// `parking_availability` features whose content changed (new, or different properties).
        public var availability: [Feature] = []
        /// Signs whose content changed, as now stored.
        public var signs: [Feature] = []
        /// Local time at which the next live lot turns stale (the view must be refreshed then), nil if none is live.
        public var nextTransition: Double?
        /// True when the store has no `parking_lots` layer (nothing to keep).
        public var noLots = false
        /// True when the signs kept their listed order because the road graph was still being built
        /// (`roadsPatience` ran out): refresh again once it is.
        public var signsAwaitRoads = false

        public init() {}
    }

    /// The local time (UTC+8, ``LocalClock``) of an instant: the district's feeds report Beijing time.
    public static func localTime(_ date: Date = TwinClock.current.now) -> Double { date.timeIntervalSince1970 + 8 * 3600 }

    /// `YYYY-MM-DDTHH:MM:SS+08:00` of a local time, with the city's offset (`CityTime`).
    public static func iso(_ t: Double) -> String { RFC3339.localDateTime(wallClockSeconds: t, in: CityTime.current) }

    /// The `parking_availability` layer: owner and sharing of `parking_lots`, with the map's colour rule.
    public static func definition(like lots: LayerDefinition) throws -> LayerDefinition {
        var sharing: [String: JSONValue] = ["type": .string(lots.sharing.type.rawValue), "method": "api",
                                            "requirements": "实时空位随停车场数据共享"]
        if let requirements = lots.json["sharing"]?["requirements"] { sharing["requirements"] = requirements }
        let int: JSONValue = ["type": ["integer", "null"]]
        let num: JSONValue = ["type": ["number", "null"]]
        let time: JSONValue = ["type": ["string", "null"], "format": "date-time"]
        var colors: [String: JSONValue] = [:]
        for a in Availability.allCases { colors[a.rawValue] = .string(a.color) }
        return try LayerDefinition(json: [
            "id": .string(layer), "title": ["zh": "停车场实时空位", "en": "Parking availability (live)"], "category": "公共专题",
            "owner": .string(lots.owner), "format": "vector", "updateFrequency": "realtime",
            "sharing": .object(sharing), "negativeList": .bool(lots.negativeList),
            "geometryType": "Polygon", "storageCRS": "EPSG:4490", "tiles": ["minzoom": 13],
            "schema": ["type": "object", "properties": [
                "lot": ["type": "string", "description": "parking_lots id"], "name": ["type": ["string", "null"]],
                "kind": ["type": ["string", "null"]], "capacity": ["type": "integer"],
                "state": ["type": "string", "enum": ["live", "stale", "no-detection"],
                          "description": "live: a reading within the freshness limit; stale: the latest reading is older (or none came); no-detection: the lot is not sensed"],
                "availability": ["type": "string", "enum": .array(Availability.allCases.map { .string($0.rawValue) }),
                                 "description": "available (< 85 % occupied), few, full, unknown (never free)"],
                "free": int, "occupancy": num, "trend_per_hour": num,
                "trend": ["type": ["string", "null"], "enum": ["rising", "falling", "steady", .null]],
                "observed_at": time, "fresh_until": time, "forecast_at": time,
                "reading_flag": ["type": ["string", "null"], "description": "above-capacity: the latest reading counted more vehicles than berths and was clipped to full"],
                "predicted_free_15": int, "predicted_free_30": int, "predicted_free_60": int, "predicted_free_120": int,
            ], "required": ["lot", "capacity", "state", "availability"]],
            "sensitive": [],
            "style": ["color": "#595959", "fill": "by-availability", "colors": .object(colors)],
        ])
    }

    /// One lot's availability as the view and the `parking-forecast` process show it (without the
    /// reading's age, which changes with every second).
    static func properties(_ a: ParkingAvailability, lot i: Int) -> [String: JSONValue] {
        let lot = a.lots[i], f = a.forecasts[i]
        let n = { (v: Double?, d: Double) in ProcessInputs.number(v, decimals: d) }
        let live = !f.stale && f.rate != nil
        let state = !lot.smart && f.rate == nil ? "no-detection" : (live ? "live" : "stale")
        let free = live ? Int((Double(lot.capacity) * (1 - f.rate!)).rounded()) : nil
        let availability: Availability = !live ? .unknown : (free! < 1 ? .full : (f.rate! >= fewThreshold ? .few : .available))
        var trend: JSONValue = .null
        if live, let t = f.trendPerHour { trend = .string(t > 0.02 ? "rising" : (t < -0.02 ? "falling" : "steady")) }
        var o: [String: JSONValue] = [
            "lot": .string(lot.id), "name": lot.name.map(JSONValue.string) ?? .null, "kind": lot.kind.map(JSONValue.string) ?? .null,
            "capacity": .integer(Int64(lot.capacity)), "state": .string(state), "availability": .string(availability.rawValue),
            "occupancy": live ? n(f.rate, 1000) : .null,
            "free": free.map { .integer(Int64($0)) } ?? .null,
            "trend_per_hour": live ? n(f.trendPerHour, 1000) : .null, "trend": trend,
            "observed_at": f.observedAt.map { .string(iso($0)) } ?? .null,
            "fresh_until": f.observedAt.map { .string(iso($0 + a.freshness)) } ?? .null,
            "forecast_at": live ? .string(iso(a.at)) : .null,
            "reading_flag": a.aboveCapacity.contains(lot.id) ? "above-capacity" : .null,
        ]
        for (h, p) in zip(ParkingAvailability.horizons, f.predicted) {
            o["predicted_free_\(Int(h / 60))"] = p.map { .integer(Int64((Double(lot.capacity) * (1 - $0)).rounded())) } ?? .null
        }
        return o
    }

    /// A sign's text for its lots in display order: `name free` per lot, `满` when full, `--` when unknown
    /// (no detection, no reading, stale), joined by `；`.
    static func signContent(_ lots: [String], _ a: ParkingAvailability) -> String {
        let index = Dictionary(uniqueKeysWithValues: a.lots.enumerated().map { ($1.id, $0) })
        return lots.map { id -> String in
            guard let i = index[id] else { return "\(id) --" }
            let p = properties(a, lot: i)
            let name = a.lots[i].name ?? id
            guard let free = p["free"]?.integerValue else { return "\(name) --" }
            return free < 1 ? "\(name) 满" : "\(name) \(free)"
        }.joined(separator: "；")
    }

    /// Drivers a screen's ranking is shared by when the sign does not say (`drivers`): the traffic
    /// looking for parking that reads it between two readings (15 min). The capacity feedback spreads
    /// them, so one screen does not send all of them to the same lot.
    public static let signDrivers = 10

    /// Where the traffic reading a sign is going: its `destination` ([lon, lat]) when given, else the
    /// middle of the entrances of the lots it lists (the area it serves).
    public static func signDestination(_ sign: Feature, lots: [StoreParkingLot]) -> Position? {
        if let d = sign.properties["destination"]?.arrayValue, d.count >= 2, let x = d[0].doubleValue, let y = d[1].doubleValue {
            return Position(x: x, y: y)
        }
        let listed = Set(sign.properties["lots"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        let served = lots.filter { listed.contains($0.id) }
        guard !served.isEmpty else { return nil }
        let n = Double(served.count)
        return Position(x: served.reduce(0) { $0 + $1.entrance.x } / n, y: served.reduce(0) { $0 + $1.entrance.y } / n)
    }

    /// The `parking-guidance` inputs that rank a sign's lots: a driver at the sign travelling its
    /// `heading_deg` to ``signDestination(_:lots:)``, `drivers` (default ``signDrivers``) guided at once.
    public static func signGuidanceInputs(_ sign: Feature, lots: [StoreParkingLot]) -> (from: Position, heading: Double?, to: Position, drivers: Int)? {
        guard case .point(let p)? = sign.geometry, let at = p.position, let to = signDestination(sign, lots: lots) else { return nil }
        let heading = sign.properties["heading_deg"]?.doubleValue.map { ($0.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360) }
        let drivers = sign.properties["drivers"]?.integerValue.map { Int(min(max($0, 1), 500)) } ?? signDrivers
        return (Position(x: at.x, y: at.y), heading, to, drivers)
    }

    /// A sign's lots in the order it shows them: the guidance ranking (``DistrictParking/guide``, the
    /// one the `parking-guidance` process answers with) for the traffic approaching it, each lot's
    /// occupancy predicted at that traffic's arrival, kept to the lots the sign lists. So a lot with
    /// space comes before one of unknown availability, and both before a full one. Lots the ranking
    /// cannot give (off the network, unreachable), and every lot when the sign cannot be ranked (no
    /// road graph, the sign off the network), follow in the listed order.
    static func signOrder(_ sign: Feature, parking: DistrictParking?, availability: ParkingAvailability) -> [String] {
        let listed = sign.properties["lots"]?.arrayValue?.compactMap(\.stringValue) ?? []
        guard let parking, let q = signGuidanceInputs(sign, lots: parking.lots) else { return listed }
        let index = Dictionary(uniqueKeysWithValues: availability.lots.enumerated().map { ($1.id, $0) })
        guard let answer = try? parking.guide(from: q.from, heading: q.heading, to: q.to, drivers: q.drivers, keeping: Set(listed), occupancy: { lot, eta in
            index[lot.id].flatMap { availability.predictedOccupied(lot: $0, after: eta) }
        }) else { return listed }
        let wanted = Set(listed)
        let ranked = answer.ranked.map(\.lot).filter(wanted.contains)
        let shown = Set(ranked)
        return ranked + listed.filter { !shown.contains($0) }
    }

    /// What the view keeps between two refreshes, so that a refresh after a few readings reads and
    /// computes only what they touched: the lots, the occupancy history and the forecast's training of
    /// the day (``ParkingAvailability/Histories``), the view and the signs as stored, and what each sign's
    /// order was computed from. A refresh that fails leaves it empty (the next one reads everything).
    public struct Memory: Sendable {
        /// Features of more than this many a layer changed since the last refresh: the layer is read again whole.
        static let rereadLimit = 2_000

        var lots: [StoreParkingLot]?
        var lotGeometries: [String: Geometry] = [:]
        /// The occupancy history and the day's training: the one kept per store for the processes too
        /// (a server's live view, ``sharingHistory()``), or the memory's own.
        var histories = ParkingAvailability.Histories()
        /// `parking_availability` as stored, by lot.
        var shown: [String: [String: JSONValue]]?
        /// The signs as stored.
        var signs: [String: Feature]?
        /// What each sign's order and text were last computed from.
        var signBasis: [String: SignBasis] = [:]
        /// The guidance on the road graph built at `builtAt`, for `lots`.
        var parking: (builtAt: Int64, lots: [StoreParkingLot], value: DistrictParking)?
        /// Features of the view's layers changed in the store since the last refresh, by layer.
        var touched: [String: Set<String>] = [:]
        /// Layers to read again whole.
        var reread: Set<String> = []

        public init() {}

        /// A memory whose occupancy history is the one the processes read (a server's live view).
        static func sharingHistory() -> Memory {
            var m = Memory()
            m.histories = .shared
            return m
        }

        /// The layers the memory holds: the sources and the view.
        static let layers = sources.union([layer])

        /// Notes change-feed events: the features they name on the view's layers are read again at the next refresh.
        /// - Returns: whether one of them is on a view's layer.
        @discardableResult
        mutating func note(_ events: some Sequence<ChangeEvent>) -> Bool {
            var noted = false
            for e in events where Self.layers.contains(e.layer) {
                noted = true
                guard !reread.contains(e.layer) else { continue }
                touched[e.layer, default: []].insert(e.featureID)
                if touched[e.layer]!.count > Self.rereadLimit {
                    touched[e.layer] = nil
                    reread.insert(e.layer)
                }
            }
            return noted
        }

        /// Whether the store changed since the last refresh.
        var isBehind: Bool { !touched.isEmpty || !reread.isEmpty }

        /// Takes what changed in `layer`: nil when it is to be read whole, else the ids of its changed features.
        mutating func take(_ layer: String) -> Set<String>? {
            defer { touched[layer] = nil; reread.remove(layer) }
            return reread.contains(layer) ? nil : touched[layer] ?? []
        }
    }

    /// What a sign's order and text follow from: the sign (without what the view writes into it), the
    /// road graph, and its lots' availability. A sign whose basis did not change is not ranked again.
    struct SignBasis: Sendable, Equatable {
        var properties: [String: JSONValue]
        var geometry: Geometry?
        var roads: Int64?
        var lots: [[String: JSONValue]?]

        init(_ sign: Feature, roads: Int64?, shown: [String: [String: JSONValue]]) {
            var p = sign.properties
            for key in ["content", "ranking", "updated_at"] { p[key] = nil }
            properties = p
            geometry = sign.geometry
            self.roads = roads
            lots = (sign.properties["lots"]?.arrayValue?.compactMap(\.stringValue) ?? []).map { shown[$0] }
        }
    }

    /// Brings the view and the signs up to date at local time `now`, reading everything (``refresh(_:memory:now:freshness:roadsPatience:signsChanged:)``
    /// with an empty memory).
    public static func refresh(_ store: any FeatureStore, now: Double, freshness: Double = ParkingAvailability.defaultFreshness,
                               roadsPatience: Duration? = nil,
                               signsChanged: (@Sendable ([Feature]) async -> Void)? = nil) async throws -> Update {
        var memory = Memory()
        return try await refresh(store, memory: &memory, now: now, freshness: freshness, roadsPatience: roadsPatience, signsChanged: signsChanged)
    }

    /// Brings the view and the signs up to date at local time `now`: every lot's availability and
    /// forecasts from the history up to `now`; then the signs, each showing its lots' free spaces in
    /// the guidance ranking for the traffic approaching it (``signOrder(_:parking:availability:)``;
    /// their changes go to `signsChanged` as soon as they are written); then `parking_availability`
    /// (changed lots written; the layer is created on first use).
    ///
    /// `memory` holds what the last refresh read and computed, and the features changed since
    /// (``Memory/note(_:)``): only those are read again. A sign is ranked again when what it follows
    /// from changed (``SignBasis``: the sign, the roads, its lots' availability); between, its order
    /// stands. With `roadsPatience`, the signs wait at most that long for a road graph still being
    /// built (a city's takes tens of seconds) and keep their listed order meanwhile
    /// (`Update.signsAwaitRoads`); without, they wait for it.
    public static func refresh(_ store: any FeatureStore, memory: inout Memory, now: Double,
                               freshness: Double = ParkingAvailability.defaultFreshness, roadsPatience: Duration? = nil,
                               signsChanged: (@Sendable ([Feature]) async -> Void)? = nil) async throws -> Update {
        var update = Update()
        guard let lotsLayer = try await store.layerDefinition(StoreParkingLot.layer, for: .admin) else {
            memory = Memory()
            update.noLots = true
            return update
        }
        // The lots: read again whole when one changed (a city's are a few thousand).
        var rewrite = Set<String>()
        let lotsChanged = memory.take(StoreParkingLot.layer) != []
        if memory.lots == nil || lotsChanged {
            let lots = try await StoreParkingLot.load(from: store, by: .admin)
            var geometries: [String: Geometry] = [:]
            for try await f in store.stream(layer: StoreParkingLot.layer, FeatureQuery(properties: [], limit: 2000), by: .admin) {
                if let id = f.id?.description { geometries[id] = f.geometry }
            }
            rewrite = Set(lots.map(\.id).filter { memory.lotGeometries[$0] != geometries[$0] })
            if memory.lots != lots { memory.signBasis = [:] }
            memory.lots = lots
            memory.lotGeometries = geometries
        }
        let lots = memory.lots ?? []
        // The history follows the change feed itself (its kept copy reads only the readings the feed names).
        _ = memory.take(StoreParkingOccupancy.layer)
        let availability = if type(of: store) is AnyClass {
            try await memory.histories.availability(lots: lots, in: store, at: nil, clock: now, freshness: freshness)
        } else {
            try await ParkingAvailability.compute(lots: lots, from: store, at: nil, clock: now, freshness: freshness, by: .admin)
        }
        let now = availability.at
        var shown: [String: [String: JSONValue]] = [:]
        for i in lots.indices { shown[lots[i].id] = properties(availability, lot: i) }

        if let signsLayer = try await store.layerDefinition(signsLayer, for: .admin) {
            if memory.signs == nil || memory.reread.contains(signsLayer.id) {
                _ = memory.take(signsLayer.id)
                var signs: [String: Feature] = [:]
                for try await sign in store.stream(layer: signsLayer.id, FeatureQuery(limit: 2000), by: .admin) {
                    if let id = sign.id?.description { signs[id] = sign }
                }
                memory.signs = signs
            } else if let ids = memory.take(signsLayer.id) {
                for id in ids.sorted() { memory.signs![id] = try await store.feature(layer: signsLayer.id, id: id, by: .admin) }
            }
            // The signs rank their lots as guidance does; without a usable road graph (no roads layer, or
            // one that cannot be routed on) they keep their listed order.
            var parking: (builtAt: Int64, value: DistrictParking)?
            if try await store.layerDefinition("roads", for: .admin) != nil {
                do {
                    let graphs = EmergencyRoadGraphs.shared
                    let roads = if let roadsPatience {
                        try await graphs.graphIfBuilt(for: store, profile: .driving, by: .admin, patience: roadsPatience)
                    } else {
                        try await graphs.graph(for: store, profile: .driving, by: .admin)
                    }
                    if let roads {
                        if let kept = memory.parking, kept.builtAt == roads.builtAt, kept.lots == lots {
                            parking = (kept.builtAt, kept.value)
                        } else {
                            let value = try await BlockingWork.run { try DistrictParking(lots: lots, roads: roads) }
                            memory.parking = (roads.builtAt, lots, value)
                            parking = (roads.builtAt, value)
                        }
                    } else {
                        update.signsAwaitRoads = true
                    }
                } catch is CancellationError { throw CancellationError() } catch {}
            }
            if parking == nil { memory.parking = nil }
            // Only the signs whose basis changed are ranked again: a reading re-ranks the signs that list its lot.
            var due: [(sign: Feature, basis: SignBasis)] = []
            for (id, sign) in memory.signs! {
                let basis = SignBasis(sign, roads: parking?.builtAt, shown: shown)
                if memory.signBasis[id] != basis { due.append((sign, basis)) }
            }
            memory.signBasis = memory.signBasis.filter { memory.signs![$0.key] != nil }
            due.sort { ($0.sign.id?.description ?? "") < ($1.sign.id?.description ?? "") }
            // A guidance search per sign: a city's signs rank off the cooperative threads, on every core.
            let (ranked, guide) = (due.map(\.sign), parking?.value)
            let orders = try await BlockingWork.run { () -> [[String]] in
                let results = Mutex([[String]](repeating: [], count: ranked.count))
                DispatchQueue.concurrentPerform(iterations: ranked.count) { k in
                    let order = signOrder(ranked[k], parking: guide, availability: availability)
                    results.withLock { $0[k] = order }
                }
                return results.withLock { $0 }
            }
            var changed: [Feature] = []
            for ((stored, basis), order) in zip(due, orders) {
                var sign = stored
                memory.signBasis[stored.id!.description] = basis
                let content = signContent(order, availability)
                let ranking = JSONValue.array(order.map(JSONValue.string))
                guard sign.properties["content"]?.stringValue != content || sign.properties["ranking"] != ranking else { continue }
                sign.properties["content"] = .string(content)
                sign.properties["ranking"] = ranking
                sign.properties["updated_at"] = .string(iso(now))
                changed.append(sign)
            }
            if !changed.isEmpty {
                try await store.upsert(layer: signsLayer.id, features: changed, by: .department(name: signsLayer.owner, role: .editor, user: author), at: nil)
                for sign in changed { memory.signs![sign.id!.description] = sign }
                await signsChanged?(changed)
            }
            update.signs = changed
        } else {
            memory.signs = nil
            memory.signBasis = [:]
            _ = memory.take(signsLayer)
        }

        // The view: the lots whose availability changed (all of them the first time, or when another writer touched it).
        if try await store.layerDefinition(layer, for: .admin) == nil {
            try await store.createLayer(try definition(like: lotsLayer))
            memory.shown = [:]
            _ = memory.take(layer)
        } else if memory.take(layer) != [] || memory.shown == nil {
            var current: [String: [String: JSONValue]] = [:]
            for try await f in store.stream(layer: layer, FeatureQuery(limit: 2000), by: .admin) {
                if let id = f.id?.description { current[id] = f.properties }
            }
            memory.shown = current
            rewrite = Set(lots.map(\.id))
        }
        let features = lots.map { Feature(id: .string($0.id), geometry: memory.lotGeometries[$0.id], properties: shown[$0.id]!) }
        update.availability = features.filter { memory.shown![$0.id!.description] != $0.properties }
        let ended = Set(memory.shown!.keys).subtracting(lots.map(\.id))
        let writer = Caller.department(name: lotsLayer.owner, role: .editor, user: author)
        if !ended.isEmpty {
            try await store.replace(layer: layer, with: features, by: writer, at: nil)
        } else {
            let written = features.filter { rewrite.contains($0.id!.description) || memory.shown![$0.id!.description] != $0.properties }
            if !written.isEmpty { try await store.upsert(layer: layer, features: written, by: writer, at: nil) }
        }
        memory.shown = shown
        update.nextTransition = availability.forecasts.compactMap { f in f.stale ? nil : f.observedAt.map { $0 + freshness } }.min()
        return update
    }
}
