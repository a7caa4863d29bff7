import TwinStore

/// Rain gauges as the SensorThings API writes them (Thing, Sensor, ObservedProperty, Datastream),
/// for the tests that read rainfall from a store (flood nowcasts, sponge-city records).
public enum RainGauges {
    /// A rain gauge whose Datastream measures in `unit` (`mm` per reading or `mm/h`); its Datastream id.
    public static func register(_ store: any SensingStore, unit: String, name: String = "邾城 雨量站") async throws -> Int64 {
        let ids = try await store.reserveSensingIDs(4)
        var c = SensingChange(caller: .admin, auditLayer: SensingAlerts.governingLayer)
        c.inserts = [
            SensingEntity(kind: .thing, id: ids[0], body: ["name": .string(name), "description": "tipping-bucket rain gauge"]),
            SensingEntity(kind: .sensor, id: ids[1], body: ["name": "tipping bucket", "description": "0.2 mm", "encodingType": "text/html", "metadata": "x"]),
            SensingEntity(kind: .observedProperty, id: ids[2], body: ["name": "precipitation", "definition": "http://vocabs.lter-europe.net/EnvThes/22130", "description": ""]),
            SensingEntity(kind: .datastream, id: ids[3], body: ["name": .string("\(name) rainfall"), "description": "", "observationType": "OM_Measurement",
                                                                "unitOfMeasurement": ["name": "rain", "symbol": .string(unit), "definition": "http://qudt.org/vocab/unit/MilliM"]],
                          links: ["Thing": [ids[0]], "Sensor": [ids[1]], "ObservedProperty": [ids[2]]]),
        ]
        _ = try await store.applySensing(c)
        return ids[3]
    }

    /// Readings of `datastream`: `(start, end or nil for an instant, value)`, microseconds since 1970.
    public static func observe(_ store: any SensingStore, _ datastream: Int64, _ readings: [(Int64, Int64?, Double)]) async throws {
        let ids = try await store.reserveSensingIDs(readings.count)
        var c = SensingChange(caller: .admin, auditLayer: SensingAlerts.governingLayer)
        c.observations = readings.enumerated().map { i, r in
            SensingObservation(id: ids[i], datastream: datastream, phenomenonStart: r.0, phenomenonEnd: r.1, result: .number(r.2))
        }
        _ = try await store.applySensing(c)
    }
}
