import Foundation
import GeoCore
import NetworkAnalysis

/// What isolating a burst main means on the map: the kernel's `MainIsolation` joined back to
/// the valve and main features (EPSG:4490) and to the critical customers' facilities.
public struct MainIsolationReport: Sendable, Hashable {
    public var burstMain: String
    /// The failed valves the caller named, sorted.
    public var failedValves: [String]
    public var isolation: MainIsolation
    /// The valve features to close (points), in `isolation.valvesToClose` order.
    public var valves: [Feature]
    /// The main features out of service, in `isolation.mainsCutOff` order.
    public var mains: [Feature]
    /// The critical customers cut off, in `isolation.criticalConnections` order.
    public var critical: [CriticalCustomer]

    /// The report as one JSON document (the CLI's output and the process's result):
    /// `burst_main`, `failed_valves`, `valves_to_close` (id, lon, lat in CGCS2000 degrees, main,
    /// near_node), `failed_valves_passed`, `failed_valves_not_reached` (and a note each: naming
    /// them changed nothing), `segment_mains`, `mains_cut_off` (ids),
    /// `mains_cut_off_geojson` (FeatureCollection, 7 decimals), `nodes_cut_off`,
    /// `customers_cut_off`, `critical_customers` (connection, address, facility), and
    /// `addresses_to_notify`, plus `counts`.
    public func json() throws -> JSONValue {
        let valvesToClose: [JSONValue] = valves.map { v in
            let at = v.geometry?.envelope?.center
            return .object([
                "id": .string(v.id.map { "\($0)" } ?? ""),
                "lon": at.map { .number($0.x) } ?? .null, "lat": at.map { .number($0.y) } ?? .null,
                "main": v.properties["main"] ?? .null, "near_node": v.properties["near_node"] ?? .null,
            ])
        }
        let geojson = GeoJSON.encode(FeatureCollection(mains), options: GeoJSONWriteOptions(precision: 7))
        let mainsGeoJSON = try JSONDecoder().decode(JSONValue.self, from: geojson)
        let critical: [JSONValue] = self.critical.map { c in
            .object([
                "connection": .string(c.connection), "address_code": .string(c.addressCode),
                "facility_layer": .string(c.facilityLayer), "facility_id": .string(c.facilityID),
                "facility_name": c.facilityName.map { .string($0) } ?? .null, "match": .string(c.match),
            ])
        }
        func strings(_ list: [String]) -> JSONValue { .array(list.map { .string($0) }) }
        let i = isolation
        return .object([
            "burst_main": .string(burstMain),
            "failed_valves": strings(failedValves),
            "valves_to_close": .array(valvesToClose),
            "failed_valves_passed": strings(i.failedValvesPassed),
            "failed_valves_not_reached": strings(i.failedValvesNotReached),
            "notes": .array(i.failedValvesNotReached.map { .string("\($0) neither bounds nor lies in the segment of \(burstMain): its failure changes nothing") }),
            "segment_mains": strings(i.segmentMains),
            "mains_cut_off": strings(i.mainsCutOff),
            "mains_cut_off_geojson": mainsGeoJSON,
            "nodes_cut_off": strings(i.nodesCutOff),
            "customers_cut_off": strings(i.connectionsCutOff),
            "critical_customers": .array(critical),
            "addresses_to_notify": strings(i.addressesToNotify),
            "counts": .object([
                "valves_to_close": .integer(Int64(i.valvesToClose.count)),
                "mains_cut_off": .integer(Int64(i.mainsCutOff.count)),
                "nodes_cut_off": .integer(Int64(i.nodesCutOff.count)),
                "customers_cut_off": .integer(Int64(i.connectionsCutOff.count)),
                "critical_customers": .integer(Int64(i.criticalConnections.count)),
                "addresses_to_notify": .integer(Int64(i.addressesToNotify.count)),
            ]),
        ])
    }
}
