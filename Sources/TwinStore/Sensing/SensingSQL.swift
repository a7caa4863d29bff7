import Foundation
import GeoCore

/// The SensorThings tables, shared by both backends (types spelled per backend).
enum SensingSQL {
    /// `sta_entities` (every kind but Observation), `sta_links` (outgoing navigation links,
    /// indexed both ways), `sta_observations` (unique by datastream and phenomenon start: the
    /// index that makes a datastream's time range one range read, and re-sent readings idempotent).
    static func schema(integer: String, key: String) -> [String] {
        [
            "CREATE TABLE IF NOT EXISTS \(key)sta_entities (id \(integer) PRIMARY KEY, kind TEXT NOT NULL, body TEXT NOT NULL)",
            "CREATE INDEX IF NOT EXISTS sta_entities_kind ON \(key)sta_entities (kind, id)",
            "CREATE TABLE IF NOT EXISTS \(key)sta_links (a \(integer) NOT NULL, name TEXT NOT NULL, b \(integer) NOT NULL, PRIMARY KEY (a, name, b))",
            "CREATE INDEX IF NOT EXISTS sta_links_target ON \(key)sta_links (name, b, a)",
            """
            CREATE TABLE IF NOT EXISTS \(key)sta_observations (
                id \(integer) PRIMARY KEY, datastream \(integer) NOT NULL, foi \(integer),
                phenomenon_start \(integer) NOT NULL, phenomenon_end \(integer), result_time \(integer),
                result TEXT NOT NULL, quality TEXT, valid_start \(integer), valid_end \(integer), parameters TEXT)
            """,
            "CREATE UNIQUE INDEX IF NOT EXISTS sta_observations_time ON \(key)sta_observations (datastream, phenomenon_start)",
            "CREATE INDEX IF NOT EXISTS sta_observations_foi ON \(key)sta_observations (foi)",
        ]
    }

    static let observationColumns = "id, datastream, foi, phenomenon_start, phenomenon_end, result_time, result, quality, valid_start, valid_end, parameters"

    /// The columns a read of `fields` selects: always `id, datastream, phenomenon_start`, then
    /// those of `fields` in `observationColumns` order (`observationReadOrder`).
    static func observationSelect(_ fields: ObservationFields) -> String {
        var columns = ["id", "datastream", "phenomenon_start"]
        for (field, names) in observationReadOrder where fields.contains(field) { columns += names }
        return columns.joined(separator: ", ")
    }

    /// The optional members of a read and their columns, in the order a row holds them.
    static let observationReadOrder: [(ObservationFields, [String])] = [
        (.featureOfInterest, ["foi"]), (.phenomenonEnd, ["phenomenon_end"]), (.resultTime, ["result_time"]), (.result, ["result"]),
        (.resultQuality, ["quality"]), (.validTime, ["valid_start", "valid_end"]), (.parameters, ["parameters"]),
    ]

    static func json(_ v: JSONValue?) -> String? { v.map(CanonicalJSON.text) }

    static func parse(_ text: String?) throws -> JSONValue? {
        guard let text else { return nil }
        return try JSONValue(json: text)
    }

    static func body(_ text: String) throws -> [String: JSONValue] {
        try JSONValue(json: text).objectValue ?? [:]
    }

    /// The kind an outgoing link `name` of `kind` must point at.
    static func target(of kind: SensingKind, link name: String) throws -> SensingKind {
        guard let t = SensingNavigation.outgoing[kind]?[name]?.0 else {
            throw StoreError(.invalidFeature, "\(kind.rawValue) has no link \(name)", field: name)
        }
        return t
    }

    static func unknown(_ kind: SensingKind, _ id: Int64, field: String) -> StoreError {
        StoreError(.invalidFeature, "no \(kind.rawValue) with @iot.id \(id)", field: field)
    }

    static func notFound(_ kind: SensingKind, _ id: Int64) -> StoreError {
        StoreError(.featureNotFound, "no \(kind.rawValue) with @iot.id \(id)", layer: kind.entitySet, feature: String(id))
    }

    static func conflicting(_ o: SensingObservation) -> StoreError {
        StoreError(.invalidFeature,
                   "Datastream \(o.datastream) already holds a different result at phenomenonTime \(RFC3339.format(RFC3339.date(microseconds: o.phenomenonStart)))",
                   field: "phenomenonTime")
    }
}
