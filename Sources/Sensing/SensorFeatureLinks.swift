import Foundation
import GeoCore
import TwinStore

/// How SensorThings Things stand for the city's mapped features, and the latest reading of each
/// feature, joined at read time (no copy of a reading is kept on a feature).
///
/// A Thing names its device in the IoT register by `properties.iot_device` (an id of the
/// `iot_devices` layer, e.g. `IOT-SW-01`). The device's own feature, and the feature it monitors
/// (`target_layer`/`target`: a river gauge, a manhole, a parking lot, a water node), then show the
/// Thing's newest observation in the features API: `latest_value`, `latest_unit`,
/// `latest_phenomenonTime`, `latest_age_s`, `latest_stale` (older than the Datastream's
/// `properties.stale_after_s`, default one hour), `latest_datastream` (its `@iot.id`). Of a
/// Thing's Datastreams, those in the unit the register gives the device (`unit`) count when there
/// are any; of them, the one with the newest reading shows.
public struct SensorFeatureLinks: Sendable {
    let store: any FeatureStore
    let sensing: any SensingStore

    public init(store: any FeatureStore, sensing: any SensingStore) {
        self.store = store
        self.sensing = sensing
    }

    /// A reading older than this (seconds) is stale, unless the Datastream says otherwise.
    static let defaultStaleAfter: Double = 3600
    static let deviceProperty = "iot_device"
    /// Feature ids a device query names at once (the statement's parameters stay few).
    static let targetsPerQuery = 500

    /// The device register entry of a Thing, if it names one.
    public static func device(of thing: SensingEntity) -> String? {
        thing.body["properties"]?["iot_device"]?.stringValue
    }

    /// The feature a device monitors: (layer, id) from its `target_layer`/`target`.
    public func target(ofDevice device: String) async throws -> (layer: String, id: String)? {
        guard let f = try await store.feature(layer: SensingAlerts.governingLayer, id: device, by: .admin),
              let layer = f.properties["target_layer"]?.stringValue, let id = f.properties["target"]?.stringValue else { return nil }
        return (layer, id)
    }

    /// Adds the latest reading to the features of `layer` that a Thing stands for, when `caller`
    /// may read the SensorThings service (the governing layer). `clock: false` leaves out what
    /// depends on the time of the request (`latest_age_s`, `latest_stale`): vector tiles, cached
    /// until a new reading invalidates them, carry only what the readings themselves say.
    public func attachLatest(_ features: inout [Feature], layer: String, caller: Caller, clock: Bool = true) async throws {
        guard !features.isEmpty, try await store.layerDefinition(SensingAlerts.governingLayer, for: caller) != nil else { return }
        // Feature id → the devices standing for it.
        var devices = [String: [String]]()
        var unitOf = [String: String]()  // device → the unit the register says it reports in
        if layer == SensingAlerts.governingLayer {
            for f in features {
                if let id = f.id?.description {
                    devices[id, default: []].append(id)
                    unitOf[id] = f.properties["unit"]?.stringValue
                }
            }
        } else {
            // The devices of these features only (a tile's, a page's), never every device of the
            // layer: at 100× the sample a z14 tile read 2,100 device records to use none.
            let wanted = Array(Set(features.compactMap { $0.id?.description })).sorted()
            for start in stride(from: 0, to: wanted.count, by: Self.targetsPerQuery) {
                let targets = wanted[start..<min(wanted.count, start + Self.targetsPerQuery)]
                let filter = FilterExpression.and([.comparison(.equal, .property("target_layer"), .literal(.string(layer))),
                                                   .in(.property("target"), targets.map { .literal(.string($0)) })])
                for try await d in store.stream(layer: SensingAlerts.governingLayer, FeatureQuery(filter: filter, limit: 1000), by: .admin) {
                    if let target = d.properties["target"]?.stringValue, let id = d.id?.description {
                        devices[target, default: []].append(id)
                        unitOf[id] = d.properties["unit"]?.stringValue
                    }
                }
            }
        }
        guard !devices.isEmpty else { return }
        let wantedDevices = Set(devices.values.joined())
        // The Things of these devices from the register kept in memory (listing every Thing grew with the city).
        let thingsByDevice = try await DeviceThings.shared.things(of: wantedDevices, store: store, sensing: sensing)
        guard !thingsByDevice.isEmpty else { return }
        let now = SensingTime.now
        for k in features.indices {
            guard let fid = features[k].id?.description, let ds = devices[fid] else { continue }
            var best: (SensingEntity, SensingObservation)?
            for device in ds {
                for thing in thingsByDevice[device] ?? [] {
                    var streams = try await sensing.sensingEntities(.datastream, linkedBy: SensingLink("Thing", thing.id))
                    // The Datastreams in the unit the register gives the device (a gauge's water level, not the rain gauge beside it).
                    let same = streams.filter { $0.body["unitOfMeasurement"]?["symbol"]?.stringValue == unitOf[device] }
                    if !same.isEmpty { streams = same }
                    for stream in streams {
                        guard let o = try await sensing.observations(ObservationRange(datastream: stream.id, order: .phenomenonTime, descending: true, limit: 1)).first
                        else { continue }
                        if best == nil || o.phenomenonStart > best!.1.phenomenonStart { best = (stream, o) }
                    }
                }
            }
            guard let (stream, o) = best else { continue }
            let time = o.phenomenonEnd ?? o.phenomenonStart
            let age = Double(now - time) / 1e6
            let staleAfter = stream.body["properties"]?["stale_after_s"]?.doubleValue ?? Self.defaultStaleAfter
            features[k].properties["latest_value"] = o.result
            features[k].properties["latest_unit"] = stream.body["unitOfMeasurement"]?["symbol"] ?? .null
            features[k].properties["latest_phenomenonTime"] = .string(SensingTime.format(o.phenomenonStart, o.phenomenonEnd))
            if clock {
                features[k].properties["latest_age_s"] = .number(age.rounded())
                features[k].properties["latest_stale"] = .bool(age > staleAfter)
            }
            features[k].properties["latest_datastream"] = .integer(stream.id)
        }
    }

    /// The layers whose features may show a reading: the governing layer and every layer a
    /// device of the register monitors (`target_layer`).
    public func readingLayers() async throws -> Set<String> {
        guard try await store.layerDefinition(SensingAlerts.governingLayer, for: .admin) != nil else { return [] }
        var layers: Set<String> = [SensingAlerts.governingLayer]
        for try await d in store.stream(layer: SensingAlerts.governingLayer, FeatureQuery(limit: 1000), by: .admin) {
            if let layer = d.properties["target_layer"]?.stringValue { layers.insert(layer) }
        }
        return layers
    }

    /// The tiles a batch of change events makes stale beyond the edited features' own: a new
    /// observation (`sta:Datastreams(n)/Observations`) changes the latest value shown on its
    /// Thing's device feature and the feature the device monitors, so their envelopes, by layer.
    /// A SensorThings change whose features cannot be told any more (a deleted Observation,
    /// Datastream or Thing, an edited Thing) stales every tile of the reading layers.
    public func tileInvalidations(for events: [ChangeEvent]) async throws -> [(layer: String, envelopes: [Envelope])] {
        var streams = Set<Int64>(), everywhere = false
        for e in events where e.layer == SensingAlerts.governingLayer && e.featureID.hasPrefix("sta:") {
            let fid = e.featureID
            if fid.hasSuffix(")/Observations"), let ds = Self.entityID(fid, "sta:Datastreams(") {
                streams.insert(ds)  // new or replaced observations of one Datastream
            } else if e.kind != .insert, ["sta:Observations(", "sta:Datastreams(", "sta:Things("].contains(where: { fid.hasPrefix($0) }) {
                everywhere = true  // a new entity has no reading yet; a changed or deleted one may have shown one
            }
        }
        if everywhere {
            let world = Envelope(minX: -180, minY: -90, maxX: 180, maxY: 90)
            return try await readingLayers().sorted().map { ($0, [world]) }
        }
        guard !streams.isEmpty else { return [] }
        let things = Set(try await sensing.sensingEntities(.datastream, ids: streams.sorted()).compactMap { $0.link("Thing") })
        var out = [String: [Envelope]]()
        for thing in try await sensing.sensingEntities(.thing, ids: things.sorted()) {
            guard let device = Self.device(of: thing),
                  let f = try await store.feature(layer: SensingAlerts.governingLayer, id: device, by: .admin) else { continue }
            if let e = f.geometry?.envelope { out[SensingAlerts.governingLayer, default: []].append(e) }
            if let layer = f.properties["target_layer"]?.stringValue, let id = f.properties["target"]?.stringValue,
               try await store.layerDefinition(layer, for: .admin) != nil,
               let e = try await store.feature(layer: layer, id: id, by: .admin)?.geometry?.envelope {
                out[layer, default: []].append(e)
            }
        }
        return out.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// `n` of a journal feature id `<prefix>n)…`.
    static func entityID(_ fid: String, _ prefix: String) -> Int64? {
        guard fid.hasPrefix(prefix) else { return nil }
        return Int64(fid.dropFirst(prefix.count).prefix { $0.isNumber })
    }
}
