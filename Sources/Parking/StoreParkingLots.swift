import Emergency
import Foundation
import GeoCore
import NetworkAnalysis
import ParkingSim
import ProcessRuntime
import TwinStore

/// A lot of `parking_lots` as guidance and the simulation use it.
public struct StoreParkingLot: Sendable, Hashable {
    public static let layer = "parking_lots"

    public var id: String
    public var name: String?
    /// 公共, 营业性 or 道路泊位.
    public var kind: String?
    public var capacity: Int
    /// CNY per hour.
    public var pricePerHour: Double
    /// Whether berth state is sensed and published (counts toward the 70 % indicator).
    public var smart: Bool
    /// The entrance vehicles use (lon/lat, EPSG:4490): the first of `entrances`, else the lot's centre.
    public var entrance: Position

    /// Every lot the caller may read, in id order.
    /// - Throws: `ScenarioError(.missingLayer)` when the layer is missing or hidden;
    ///   `.invalidDistrict` naming the property of a lot without a usable capacity.
    /// - Parameters: asOf, changes: the layer as of an instant with a scenario's sandbox changes applied in memory.
    public static func load(from store: any FeatureStore, by caller: Caller, asOf: Date? = nil,
                            changes: [ScenarioChange] = []) async throws -> [StoreParkingLot] {
        guard try await store.layerDefinition(layer, for: caller) != nil else {
            throw ScenarioError(.missingLayer, "no layer '\(layer)'", field: "parking_lots")
        }
        var features: [Feature] = []
        for try await f in store.stream(layer: layer, FeatureQuery(asOf: asOf, limit: 2000), by: caller) {
            features.append(f)
        }
        return try lots(ScenarioChange.apply(changes.filter { $0.layer == layer }, to: features))
    }

    /// The lots among `features` of the layer, in id order (a feature without a usable position is skipped).
    /// - Throws: `ScenarioError(.invalidDistrict)` naming the property of a lot without a usable capacity.
    public static func lots(_ features: [Feature]) throws -> [StoreParkingLot] {
        var lots: [StoreParkingLot] = []
        for f in features {
            let id = f.id?.description ?? ""
            let p = f.properties
            guard let capacity = p["capacity"]?.integerValue, capacity > 0 else {
                throw ScenarioError(.invalidDistrict, "\(layer)/\(id): capacity must be a positive integer", field: "capacity")
            }
            let first = p["entrances"]?.arrayValue?.first?.arrayValue
            let entrance: Position
            if let c = first, c.count >= 2, let x = c[0].doubleValue, let y = c[1].doubleValue {
                entrance = Position(x: x, y: y)
            } else if let centre = EmergencyResource.point(of: f.geometry) {
                entrance = centre
            } else {
                continue
            }
            lots.append(StoreParkingLot(id: id, name: p["name"]?.stringValue, kind: p["kind"]?.stringValue, capacity: Int(capacity),
                                        pricePerHour: p["price_per_hour"]?.doubleValue ?? 0, smart: p["smart"]?.boolValue ?? false,
                                        entrance: entrance))
        }
        return lots.sorted { $0.id < $1.id }
    }
}

/// Wuhan's smart-city indicator 29: the share of public berths whose state is sensed live (target ≥ 70 %).
public struct SmartParkingCoverage: Sendable, Hashable, Codable {
    /// Public berths (公共 lots and 道路泊位; commercial 营业性 lots are not public berths).
    public var publicBerths: Int
    /// Those in lots with live detection.
    public var detectedBerths: Int
    /// detected ÷ public (0 when there are no public berths).
    public var share: Double
    /// The plan's target, 0.7.
    public var target: Double
    public var meetsTarget: Bool

    public init(_ lots: [StoreParkingLot], target: Double = 0.7) {
        let pub = lots.filter { $0.kind != "营业性" }
        publicBerths = pub.reduce(0) { $0 + $1.capacity }
        detectedBerths = pub.filter(\.smart).reduce(0) { $0 + $1.capacity }
        share = publicBerths > 0 ? Double(detectedBerths) / Double(publicBerths) : 0
        self.target = target
        meetsTarget = share >= target
    }

    enum CodingKeys: String, CodingKey {
        case share, target
        case publicBerths = "public_berths", detectedBerths = "detected_berths", meetsTarget = "meets_target"
    }
}

/// The smart-parking coverage of one administrative division (`admin_divisions`): the lots whose
/// entrance lies inside its polygon.
public struct DivisionParkingCoverage: Sendable, Hashable {
    public var code: String
    public var name: String
    /// 区县, 乡镇街道 or 社区/村.
    public var level: String?
    public var coverage: SmartParkingCoverage
    /// The lots counted, in id order.
    public var lots: [String]

    /// One row per division holding at least one lot, coarse levels first (区县, 乡镇街道, 社区/村), then by code.
    /// Empty when the caller cannot read `admin_divisions`.
    public static func assess(_ lots: [StoreParkingLot], from store: any FeatureStore, by caller: Caller) async throws -> [DivisionParkingCoverage] {
        guard try await store.layerDefinition("admin_divisions", for: caller) != nil else { return [] }
        var out: [DivisionParkingCoverage] = []
        for try await f in store.stream(layer: "admin_divisions", FeatureQuery(properties: ["code", "name", "level"], limit: 1000), by: caller) {
            guard let g = f.geometry else { continue }
            let prepared = try PreparedGeometry(g)
            let inside = try lots.filter { try prepared.intersects(x: $0.entrance.x, y: $0.entrance.y) }
            guard !inside.isEmpty else { continue }
            let code = f.properties["code"]?.stringValue ?? f.id?.description ?? ""
            out.append(DivisionParkingCoverage(code: code, name: f.properties["name"]?.stringValue ?? code, level: f.properties["level"]?.stringValue,
                                               coverage: SmartParkingCoverage(inside), lots: inside.map(\.id)))
        }
        let order = ["区县": 0, "乡镇街道": 1, "社区/村": 2]
        return out.sorted { (order[$0.level ?? ""] ?? 3, $0.code) < (order[$1.level ?? ""] ?? 3, $1.code) }
    }
}
