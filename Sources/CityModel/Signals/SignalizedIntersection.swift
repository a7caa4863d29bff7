import Foundation
import GeoCore
import SignalSim
import TwinStore

/// A signalised intersection as the CIM layer holds it (`signalized_intersections`), turned into
/// what the timing kernel takes: its lane groups become the kernel's approaches (lane group ids),
/// its stage chain the stages, and counts per approach and movement (`traffic_counts`) become
/// flows per lane group.
public struct SignalizedIntersection: Sendable, Hashable {
    /// One lane group: the movements of one approach that share lanes and a green.
    public struct LaneGroup: Sendable, Hashable {
        public var id: String
        /// Where its traffic comes from: N, S, E or W.
        public var approach: String
        public var movements: Set<String>
    }

    /// Feature id, e.g. `SI-004`.
    public let id: String
    public let name: String?
    /// Position in lon/lat degrees (EPSG:4490).
    public let position: Position
    /// Lane groups, intergreens, stages and crossings; flows are the layer's peak-hour
    /// `turning_counts` (0 where it has none).
    public let demand: IntersectionDemand
    public let laneGroups: [LaneGroup]

    /// The signalised intersection layer.
    public static let layer = "signalized_intersections"
    /// 15-minute counts per intersection, approach and movement.
    public static let countsLayer = "traffic_counts"

    /// Where a movement from an approach (named by where traffic comes from) leaves, driving on
    /// the right: traffic arriving from the north heads south, so its left turn leaves to the east.
    public static func exit(from approach: String, _ movement: String) -> String? {
        let table: [String: [String: String]] = [
            "N": ["through": "S", "left": "E", "right": "W"], "S": ["through": "N", "left": "W", "right": "E"],
            "E": ["through": "W", "left": "S", "right": "N"], "W": ["through": "E", "left": "N", "right": "S"],
        ]
        return table[approach]?[movement]
    }

    /// Reads intersection `id`; `nil` when the layer has no such feature for `caller`.
    /// - Throws: `SignalTimingError` naming the layer, feature and property the kernel cannot read.
    public static func load(id: String, from store: any FeatureStore, by caller: Caller) async throws -> SignalizedIntersection? {
        guard let feature = try await store.feature(layer: layer, id: id, by: caller) else { return nil }
        return try SignalizedIntersection(feature)
    }

    /// Every signalised intersection, in id order.
    public static func all(from store: any FeatureStore, by caller: Caller) async throws -> [SignalizedIntersection] {
        var out: [SignalizedIntersection] = []
        for try await feature in store.stream(layer: layer, FeatureQuery(limit: 1000), by: caller) {
            out.append(try SignalizedIntersection(feature))
        }
        return out
    }

    /// An intersection described as `signal plan --input` reads it (each approach one lane group of
    /// its movements with flow, on its compass arm), placed at `position` to be built in SUMO.
    /// - Throws: `SignalTimingError` naming an approach that arrives from no compass arm (its id is not
    ///   N, S, E or W and it gives no `arm`): SUMO needs to know where each lane group's road leads.
    public init(demand: IntersectionDemand, at position: Position) throws {
        var groups: [LaneGroup] = []
        for (i, a) in demand.approaches.enumerated() {
            guard let arm = a.compassArm else {
                throw SignalTimingError(field: "approaches[\(i)].arm", "approach '\(a.id)' needs the compass arm it arrives from (N, S, E or W) to be built in SUMO")
            }
            let flowing = a.flows.flowing
            groups.append(LaneGroup(id: a.id, approach: arm, movements: Set(flowing.isEmpty ? ["through"] : flowing)))
        }
        id = demand.id
        name = nil
        self.position = position
        self.demand = demand
        laneGroups = groups
    }

    public init(_ feature: Feature) throws {
        let p = feature.properties
        let fid = feature.id?.description ?? ""
        func bad(_ property: String, _ reason: String) -> SignalTimingError {
            SignalTimingError(field: "\(Self.layer)/\(fid).\(property)", reason)
        }
        guard case .point(let point)? = feature.geometry, let position = point.position else { throw bad("geometry", "must be a Point") }
        guard let groups = p["lane_groups"]?.arrayValue, !groups.isEmpty else { throw bad("lane_groups", "is missing or empty") }
        guard let chain = p["stages"]?.arrayValue, !chain.isEmpty else { throw bad("stages", "is missing or empty") }
        let peak = p["turning_counts"]?.objectValue ?? [:]
        var laneGroups: [LaneGroup] = []
        var approaches: [ApproachDemand] = []
        for (i, g) in groups.enumerated() {
            guard let o = g.objectValue, let gid = o["id"]?.stringValue, let approach = o["approach"]?.stringValue,
                  let lanes = o["lanes"]?.integerValue, lanes >= 1 else {
                throw bad("lane_groups[\(i)]", "needs id, approach and lanes ≥ 1")
            }
            let movements = Set((o["movements"]?.arrayValue ?? []).compactMap(\.stringValue))
            guard !movements.isEmpty, movements.isSubset(of: ["left", "through", "right"]) else {
                throw bad("lane_groups[\(i)].movements", "must list left, through or right")
            }
            let group = LaneGroup(id: gid, approach: approach, movements: movements)
            laneGroups.append(group)
            // Their ranges are the layer schema's, checked when the feature is written, and the kernel's.
            let conditions = LaneGroupConditions(laneWidth: o["lane_width_m"]?.doubleValue, grade: o["grade_pct"]?.doubleValue,
                                                 heavyVehicles: o["heavy_vehicles_pct"]?.doubleValue,
                                                 busesStopping: o["buses_stopping_veh_h"]?.doubleValue)
            approaches.append(ApproachDemand(id: gid, lanes: Int(lanes), saturationPerLane: o["saturation_veh_h_lane"]?.doubleValue,
                                             flows: group.flows(from: peak[approach]?.objectValue ?? [:]), arm: approach,
                                             storage: o["storage_m"]?.doubleValue, conditions: conditions))
        }
        var stages: [[String]] = []
        for (i, s) in chain.enumerated() {
            // An empty list is a pedestrian-only stage: the kernel checks a crossing is walked in it.
            guard let members = s.objectValue?["lane_groups"]?.arrayValue?.compactMap(\.stringValue) else {
                throw bad("stages[\(i)].lane_groups", "must name the lane groups of the stage")
            }
            stages.append(members)
        }
        var crossings: [PedestrianCrossing] = []
        for (i, c) in (p["crossings"]?.arrayValue ?? []).enumerated() {
            guard let o = c.objectValue, let length = o["length_m"]?.doubleValue, let stage = o["stage"]?.integerValue else {
                throw bad("crossings[\(i)]", "needs length_m and stage")
            }
            crossings.append(PedestrianCrossing(id: o["id"]?.stringValue ?? "P\(i + 1)", length: length,
                                                refugeIsland: o["refuge_island"]?.boolValue ?? false, stage: Int(stage)))
        }
        id = fid
        name = p["name"]?.stringValue
        self.position = position
        self.laneGroups = laneGroups
        demand = IntersectionDemand(id: fid, amber: p["amber_s"]?.doubleValue ?? 3, allRed: p["all_red_s"]?.doubleValue ?? 2,
                                    startupLost: p["startup_lost_s"]?.doubleValue ?? 3, approaches: approaches,
                                    stages: stages, crossings: crossings,
                                    permittedLeftCriticalGap: p["permitted_left_critical_gap_s"]?.doubleValue,
                                    permittedLeftFollowUp: p["permitted_left_follow_up_s"]?.doubleValue,
                                    incrementalDelayFactor: p["incremental_delay_factor"]?.doubleValue,
                                    saturationFlow: p["saturation_flow_pcu_h"]?.doubleValue,
                                    leftTurnFactor: p["left_turn_factor"]?.doubleValue,
                                    rightTurnFactor: p["right_turn_factor"]?.doubleValue)
    }

    /// Which day of counts to read.
    public enum CountedDay: Sendable {
        /// The latest day that has ended (in the district's time, UTC+8) whose whole intervals cover
        /// the day (every interval of it counted on every approach, the rule an interval is read by), or
        /// the latest day counted when none has: what a day's plans are timed from, so neither a day a
        /// live feed is still counting nor a partial day (a survey hour, one appended interval)
        /// replaces the last whole one. Without a whole day the latest partial one is read, and said to be.
        case latestEnded
        /// The latest day counted, also one still being counted (re-timing reads the latest counts).
        case latest
    }

    /// One day of an intersection's counts as the timing reads them.
    public struct Counts: Sendable {
        /// The whole intervals of the day: volumes by lane group.
        public var intervals: [IntervalCount]
        /// The intervals' length.
        public var minutes: Int
        /// `YYYY-MM-DD`, nil when nothing was counted.
        public var day: String?
        /// Intervals of that day left out because some approach was not counted in them: start
        /// (minute of the day) and the approaches missing.
        public var leftOut: [(start: Int, missing: [String])]
        /// Days after `day` that could have been read (ended, for `.latestEnded`) and have counts, but
        /// no whole interval: the day, its intervals counted, and the approaches missing in any of them.
        public var passedOver: [(day: String, intervals: Int, missing: [String])] = []
        /// Days the plans could have been timed from (after `day`, or `day` itself when no day is whole)
        /// whose whole intervals do not cover the day: the day, its whole intervals, the intervals a day
        /// has at its interval length, and the span they were counted over (`07:00-07:15`).
        public var partialDays: [(day: String, whole: Int, of: Int, span: String)] = []

        public static let none = Counts(intervals: [], minutes: 15, day: nil, leftOut: [])

        /// What the counts read leave out, for a `counts-incomplete` warning, e.g. "3 15-minute intervals of
        /// 2026-11-24 left out of the counts, in which approach E was not counted (08:00, 08:15, 08:30): …",
        /// and the later days passed over because no interval of theirs was whole.
        public var leftOutNote: String? {
            var notes: [String] = []
            for partial in partialDays {
                let coverage = "\(partial.whole) of its \(partial.of) \(minutes)-minute intervals (\(partial.span))"
                if partial.day == day {
                    notes.append("\(partial.day) is a partial day: its counts cover \(coverage) and no day's counts cover a whole day, so the periods are segmented from that part of the day alone")
                } else {
                    notes.append("\(partial.day) is a partial day: its counts cover \(coverage), so the plans are timed from \(day.map { "\($0), the latest day counted whole" } ?? "the layer's peak-hour turning counts")")
                }
            }
            if let latest = passedOver.last {
                let missing = Set(passedOver.flatMap(\.missing)).sorted()
                let days = passedOver.count == 1 ? latest.day : "\(passedOver.count) days to \(latest.day)"
                let counted = passedOver.map(\.intervals).reduce(0, +)
                notes.append("the counts of \(days) (\(counted) interval\(counted == 1 ? "" : "s")) were passed over: no interval of theirs had every approach counted (approach\(missing.count == 1 ? "" : "es") \(missing.joined(separator: ", ")) missing), so the plan is timed from \(day.map { "the counts of \($0)" } ?? "the layer's peak-hour turning counts")")
            }
            if let day, !leftOut.isEmpty {
                let missing = Set(leftOut.flatMap(\.missing)).sorted()
                let starts = leftOut.prefix(6).map { String(format: "%02d:%02d", $0.start / 60, $0.start % 60) }.joined(separator: ", ")
                notes.append("\(leftOut.count) \(minutes)-minute interval\(leftOut.count == 1 ? "" : "s") of \(day) left out of the counts, in which approach\(missing.count == 1 ? "" : "es") \(missing.joined(separator: ", ")) \(missing.count == 1 ? "was" : "were") not counted (\(starts)\(leftOut.count > 6 ? ", …" : "")): the plan is timed from the other intervals")
            }
            return notes.isEmpty ? nil : notes.joined(separator: "; ")
        }

        /// Marks a timing from these counts with `leftOutNote` (warning `counts-incomplete`), if any.
        public func mark(_ timing: inout IntersectionTiming) {
            if let note = leftOutNote { timing.warnings.append(.init(.countsIncomplete, note)) }
        }
    }

    /// The intersection's 15-minute counts of one day (`day`, within `interval` when given) as kernel
    /// intervals with volumes by lane group, read from `traffic_counts`. Only whole intervals count:
    /// those in which every approach with a lane group was counted, so an approach whose detector sent
    /// nothing (or a survey of some arms) is never timed as carrying no traffic; the others of that
    /// day are named in `leftOut`. Counts of an approach the intersection has no lane group for, and a
    /// day whose intervals differ in length, are errors naming the count.
    public func counts(from store: any FeatureStore, within interval: TemporalValue? = nil, day which: CountedDay = .latestEnded,
                       now: Date = TwinClock.current.now, by caller: Caller) async throws -> Counts {
        let filter = FilterExpression.comparison(.equal, "intersection", .literal(.string(id)))
        var byStart: [String: [String: MovementFlows]] = [:]
        var counted: [String: Set<String>] = [:]
        var minutesOf: [String: (minutes: Int, row: String)] = [:]
        let query = FeatureQuery(filter: filter, datetime: interval, limit: 5000)
        for try await row in store.stream(layer: Self.countsLayer, query, by: caller) {
            let p = row.properties
            guard let start = p["start"]?.stringValue, let approach = p["approach"]?.stringValue else { continue }
            let length = Int(p["minutes"]?.integerValue ?? 15)
            let rowID = row.id?.description ?? "?"
            if let other = minutesOf[start], other.minutes != length {
                throw SignalTimingError(field: "\(Self.countsLayer)/\(rowID).minutes", "counts of \(id) at \(start) are \(other.minutes) minutes long in \(other.row) and \(length) minutes here")
            }
            minutesOf[start] = (length, rowID)
            let groups = laneGroups.filter { $0.approach == approach }
            guard !groups.isEmpty else {
                throw SignalTimingError(field: "\(Self.countsLayer)/\(rowID).approach", "approach \(approach) has no lane group at \(id)")
            }
            var volumes = byStart[start] ?? [:]
            for g in groups {
                volumes[g.id] = (volumes[g.id] ?? MovementFlows()) + g.flows(from: p, sharedBy: groups)
            }
            byStart[start] = volumes
            counted[start, default: []].insert(approach)
        }
        let approaches = Set(laneGroups.map(\.approach))
        let whole = byStart.filter { counted[$0.key, default: []].isSuperset(of: approaches) }
        // One day (a plan is timed from one day of counts).
        func dayOf(_ start: String) -> String { String(start.prefix { $0 != "T" }) }
        let days = Set(whole.keys.map(dayOf))
        let today = String(TrafficCountFeed.localStart(Int64(now.timeIntervalSince1970 * 1e6)).prefix(10))
        let ended = which == .latest ? days : days.filter { $0 < today }
        let candidates = ended.isEmpty ? days : ended
        // Whole intervals per day, and how many a day has at that day's interval length.
        func coverage(_ day: String) -> (whole: Int, of: Int, span: String) {
            let starts = whole.keys.filter { dayOf($0) == day }
            let length = starts.compactMap { minutesOf[$0]?.minutes }.max() ?? 15
            let minutes = starts.compactMap(Self.minuteOfDay).sorted()
            let span = minutes.first.map { "\(TimeOfDayPeriod.clock($0))-\(TimeOfDayPeriod.clock(min(1440, minutes.last! + length)))" } ?? ""
            return (starts.count, max(1, 1440 / max(1, length)), span)
        }
        let complete = candidates.filter { let c = coverage($0); return c.whole >= c.of }
        let chosen = which == .latest ? days.max() : (complete.max() ?? candidates.max())
        // Partial days the plans would otherwise have been segmented from: named with their coverage.
        let partialDays: [(day: String, whole: Int, of: Int, span: String)] = which == .latest ? [] : candidates.filter { d in
            guard let chosen else { return false }
            return d > chosen || (d == chosen && complete.isEmpty)
        }.sorted().map { d in
            let c = coverage(d)
            return (day: d, whole: c.whole, of: c.of, span: c.span)
        }
        // Later days that could have been read but have no whole interval: named, never passed over silently.
        let passedOver = Dictionary(grouping: byStart.keys.filter { start in
            let d = dayOf(start)
            return d > (chosen ?? "") && !days.contains(d) && (which == .latest || d < today)
        }, by: dayOf).sorted { $0.key < $1.key }.map { day, starts in
            (day: day, intervals: starts.count, missing: starts.reduce(into: Set<String>()) { $0.formUnion(approaches.subtracting(counted[$1, default: []])) }.sorted())
        }
        guard let day = chosen else {
            var none = Counts.none
            none.passedOver = passedOver
            return none
        }
        let onDay = { (start: String) in start.hasPrefix(day + "T") }
        let lengths = Set(whole.keys.filter(onDay).compactMap { minutesOf[$0]?.minutes })
        guard lengths.count == 1, let minutes = lengths.first else {
            throw SignalTimingError(field: "\(Self.countsLayer).minutes", "counts of \(id) on \(day) mix \(lengths.sorted().map { "\($0)-" }.joined(separator: " and "))minute intervals")
        }
        let intervals = whole.compactMap { start, volumes -> IntervalCount? in
            guard onDay(start), let minute = Self.minuteOfDay(start) else { return nil }
            return IntervalCount(start: minute, volumes: volumes)
        }
        let leftOut = byStart.keys.filter { onDay($0) && whole[$0] == nil }.compactMap { start -> (start: Int, missing: [String])? in
            Self.minuteOfDay(start).map { ($0, approaches.subtracting(counted[start, default: []]).sorted()) }
        }.sorted { $0.start < $1.start }
        return Counts(intervals: intervals, minutes: minutes, day: day, leftOut: leftOut, passedOver: passedOver, partialDays: partialDays)
    }

    /// `counts(from:within:by:)`, or none when the caller may not read the counts layer or the
    /// store has none (the plan then comes from the peak-hour `turning_counts`).
    public func countsIfReadable(from store: any FeatureStore, day: CountedDay = .latestEnded, by caller: Caller) async throws -> Counts {
        guard let definition = try await store.layerDefinition(Self.countsLayer, for: caller), definition.id == Self.countsLayer else {
            return .none
        }
        return try await counts(from: store, day: day, by: caller)
    }

    /// Minutes after midnight of an ISO 8601 local date-time (`2026-06-17T07:15:00+08:00`).
    static func minuteOfDay(_ text: String) -> Int? {
        guard let t = text.firstIndex(of: "T") else { return nil }
        let clock = text[text.index(after: t)...].prefix(5).split(separator: ":")
        guard clock.count == 2, let h = Int(clock[0]), let m = Int(clock[1]), (0..<24).contains(h), (0..<60).contains(m) else { return nil }
        return h * 60 + m
    }
}

extension SignalizedIntersection.LaneGroup {
    /// The flows of this group's movements in `counts` (`left`, `through`, `right`), a movement
    /// that several groups of the approach serve split evenly between them.
    func flows(from counts: [String: JSONValue], sharedBy groups: [Self] = []) -> MovementFlows {
        func share(_ m: String) -> Double {
            guard movements.contains(m) else { return 0 }
            let n = max(1, groups.filter { $0.movements.contains(m) }.count)
            return (counts[m]?.doubleValue ?? 0) / Double(n)
        }
        return MovementFlows(through: share("through"), left: share("left"), right: share("right"))
    }
}
