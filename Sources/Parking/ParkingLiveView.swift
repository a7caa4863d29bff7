import Emergency
import Foundation
import GeoCore
import ParkingSim
import ProcessRuntime
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

    /// Brings the view and the signs up to date at local time `now`: every lot's availability and
    /// forecasts from the history up to `now`; then the signs, each showing its lots' free spaces in
    /// the guidance ranking for the traffic approaching it (``signOrder(_:parking:availability:)``;
    /// their changes go to `signsChanged` as soon as they are written); then the availability replaces
    /// `parking_availability` (unchanged features write nothing; the layer is created on first use).
    /// With `roadsPatience`, the signs wait at most that long for a road graph still being built (a
    /// city's takes tens of seconds) and keep their listed order meanwhile (`Update.signsAwaitRoads`);
    /// without, they wait for it.
    public static func refresh(_ store: any FeatureStore, now: Double, freshness: Double = ParkingAvailability.defaultFreshness,
                               roadsPatience: Duration? = nil,
                               signsChanged: (@Sendable ([Feature]) async -> Void)? = nil) async throws -> Update {
        var update = Update()
        guard let lotsLayer = try await store.layerDefinition(StoreParkingLot.layer, for: .admin) else {
            update.noLots = true
            return update
        }
        let lots = try await StoreParkingLot.load(from: store, by: .admin)
        let history = try await StoreParkingOccupancy.read(lots: lots, from: store, by: .admin)
        // The one rule of freshness the processes judge by too: now by the clock, a detector a little ahead of it not hidden.
        let now = ParkingAvailability.instant(nil, clock: now, history: history)
        let availability = ParkingAvailability.compute(lots: lots, history: history, at: now, freshness: freshness)
        if let signsLayer = try await store.layerDefinition(signsLayer, for: .admin) {
            // The signs rank their lots as guidance does; without a usable road graph (no roads layer, or
            // one that cannot be routed on) they keep their listed order.
            var parking: DistrictParking?
            if try await store.layerDefinition("roads", for: .admin) != nil {
                do {
                    let graphs = EmergencyRoadGraphs.shared
                    let roads = if let roadsPatience {
                        try await graphs.graphIfBuilt(for: store, profile: .driving, by: .admin, patience: roadsPatience)
                    } else {
                        try await graphs.graph(for: store, profile: .driving, by: .admin)
                    }
                    if let roads {
                        parking = try await BlockingWork.run { try DistrictParking(lots: lots, roads: roads) }
                    } else {
                        update.signsAwaitRoads = true
                    }
                } catch is CancellationError { throw CancellationError() } catch {}
            }
            var signs: [Feature] = []
            for try await sign in store.stream(layer: signsLayer.id, FeatureQuery(limit: 2000), by: .admin) { signs.append(sign) }
            // A guidance search per sign: a city's signs rank off the cooperative threads.
            let (ranked, guide) = (signs, parking)
            let orders = try await BlockingWork.run { ranked.map { signOrder($0, parking: guide, availability: availability) } }
            var changed: [Feature] = []
            for (stored, order) in zip(signs, orders) {
                var sign = stored
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
                await signsChanged?(changed)
            }
            update.signs = changed
        }
        var geometries: [String: Geometry] = [:]
        for try await f in store.stream(layer: StoreParkingLot.layer, FeatureQuery(properties: [], limit: 2000), by: .admin) {
            if let id = f.id?.description { geometries[id] = f.geometry }
        }
        if try await store.layerDefinition(layer, for: .admin) == nil { try await store.createLayer(try definition(like: lotsLayer)) }
        var current: [String: [String: JSONValue]] = [:]
        for try await f in store.stream(layer: layer, FeatureQuery(limit: 2000), by: .admin) {
            if let id = f.id?.description { current[id] = f.properties }
        }
        let features = lots.indices.map { i in
            Feature(id: .string(lots[i].id), geometry: geometries[lots[i].id], properties: properties(availability, lot: i))
        }
        update.availability = features.filter { current[$0.id!.description] != $0.properties }
        if !update.availability.isEmpty || current.count != features.count {
            try await store.replace(layer: layer, with: features, by: .department(name: lotsLayer.owner, role: .editor, user: author), at: nil)
        }
        update.nextTransition = availability.forecasts.compactMap { f in f.stale ? nil : f.observedAt.map { $0 + freshness } }.min()
        return update
    }
}
