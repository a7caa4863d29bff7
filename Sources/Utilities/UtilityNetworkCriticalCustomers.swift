import CityModel
import Foundation
import GeoCore
import NetworkAnalysis
import TwinStore

/// A customer connection that must be told first when its water goes off: it supplies a
/// hospital or a shelter.
public struct CriticalCustomer: Sendable, Hashable {
    /// The `water_connections` id.
    public var connection: String
    /// The connection's standard address code.
    public var addressCode: String
    /// The facility's layer (`hospitals`, `shelters`) and id.
    public var facilityLayer: String
    public var facilityID: String
    public var facilityName: String?
    /// How the facility was tied to an address: `address_code` (its own attribute), `building`
    /// (the footprint it stands in) or `address_point` (the nearest 楼栋/门牌 point).
    public var match: String
}

/// The rule that marks critical customers when connections carry no critical flag.
///
/// Each facility of `facilityLayers` gets a standard address code by the first rule that applies:
/// 1. its own `address_code` attribute;
/// 2. the `address_code` of the building (`buildings` layer) whose footprint covers its point;
/// 3. the nearest `addresses` point of level 楼栋 or 门牌, in use, within `maximumDistance`
///    metres (ground distance on the CGCS2000 ellipsoid).
///
/// A connection is critical when its `address_code` equals a facility's code or extends it
/// (standard address codes extend their parent's, so a 门牌 covers the 楼栋 under it). A facility
/// with no match (e.g. a shelter in an open park) supplies no customer.
public struct UtilityNetworkCriticalCustomers: Sendable, Hashable {
    public var facilityLayers: [String]
    /// Metres, for rule 3.
    public var maximumDistance: Double

    public init(facilityLayers: [String] = ["hospitals", "shelters"], maximumDistance: Double = 50) {
        self.facilityLayers = facilityLayers
        self.maximumDistance = maximumDistance
    }

    /// A facility tied to its address.
    public struct Facility: Sendable, Hashable {
        public var layer: String
        public var id: String
        public var name: String?
        public var addressCode: String
        public var match: String
    }

    /// The facilities of `facilityLayers` (missing or hidden layers read as empty) that the rule
    /// ties to an address, in layer then id order.
    public func facilities(in store: any FeatureStore, by caller: Caller) async throws -> [Facility] {
        var out: [Facility] = []
        let hasBuildings = try await store.layerDefinition("buildings", for: caller) != nil
        let hasAddresses = try await store.layerDefinition("addresses", for: caller) != nil
        for layer in facilityLayers {
            for f in try await UtilityLayerReader.features(layer, in: store, by: caller, optional: true) {
                let id = try UtilityLayerReader.id(of: f, layer: layer)
                let name = f.properties["name"]?.stringValue
                if let code = f.properties["address_code"]?.stringValue, !code.isEmpty {
                    out.append(Facility(layer: layer, id: id, name: name, addressCode: code, match: "address_code"))
                    continue
                }
                guard let geometry = f.geometry, let e = geometry.envelope else { continue }
                let at = e.center
                let dLat = maximumDistance / 110_000, dLon = dLat / max(0.1, cos(at.y * .pi / 180))
                let around = BoundingBox(Envelope(minX: at.x - dLon, minY: at.y - dLat, maxX: at.x + dLon, maxY: at.y + dLat))
                let point = Geometry.point(Point(at))
                if hasBuildings {
                    let buildings = try await UtilityLayerReader.features("buildings", in: store, by: caller, bbox: around)
                    if let b = try buildings.first(where: { try $0.geometry?.covers(point) ?? false }),
                       let code = b.properties["address_code"]?.stringValue, !code.isEmpty {
                        out.append(Facility(layer: layer, id: id, name: name, addressCode: code, match: "building"))
                        continue
                    }
                }
                if hasAddresses {
                    var best: (Double, String)?
                    for a in try await UtilityLayerReader.features("addresses", in: store, by: caller, bbox: around) {
                        guard let level = a.properties["level"]?.stringValue, level == "楼栋" || level == "门牌",
                              a.properties["status"]?.stringValue != "停用",
                              let code = a.properties["address_code"]?.stringValue, let p = a.geometry?.envelope?.center else { continue }
                        let d = groundDistance(at, p)
                        if d <= maximumDistance, d < (best?.0 ?? .infinity) { best = (d, code) }
                    }
                    if let best {
                        out.append(Facility(layer: layer, id: id, name: name, addressCode: best.1, match: "address_point"))
                    }
                }
            }
        }
        return out
    }

    /// The critical customers among `connections` (features of `water_connections`), by connection id.
    public func find(connections: [Feature], in store: any FeatureStore, by caller: Caller) async throws -> [String: CriticalCustomer] {
        let facilities = try await facilities(in: store, by: caller)
        guard !facilities.isEmpty else { return [:] }
        var out: [String: CriticalCustomer] = [:]
        for c in connections {
            guard let id = c.id.map({ "\($0)" }), let code = c.properties["address_code"]?.stringValue else { continue }
            guard let f = facilities.first(where: { code.hasPrefix($0.addressCode) }) else { continue }
            out[id] = CriticalCustomer(connection: id, addressCode: code, facilityLayer: f.layer, facilityID: f.id,
                                       facilityName: f.name, match: f.match)
        }
        return out
    }
}
