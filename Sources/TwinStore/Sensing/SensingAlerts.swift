import Foundation
import GeoCore

/// The `alerts` collection: one feature per alert, raised by a SensorThings Datastream crossing
/// one of its thresholds (`source` "threshold", the server's `AlertMonitor`) or by a flood
/// nowcast finding a road under more than 15 cm of water or an emergency resource cut off
/// (`source` "flood-nowcast", `FloodNowcastAlerts`), or by a hydrant going out of service (`source`
/// "hydrant-status", level hydrant-out-of-service, no reading: `HydrantStatus`). An open alert has `cleared_at` null.
/// Every writer writes through the store, so the server's `/alerts/events` feed, which follows
/// the store's change feed, pushes alerts whichever process (server or `citytwin worker`) raised them.
public enum SensingAlerts {
    /// The alerts collection.
    public static let layer = "alerts"
    /// The catalogue layer whose sharing class and owner govern the SensorThings service (the
    /// city's IoT device register): who reads it reads every SensorThings entity and the alerts.
    public static let governingLayer = "iot_devices"

    /// The `alerts` layer: owner and sharing class of the governing layer, whose readings raise them.
    public static func definition(like governing: LayerDefinition) throws -> LayerDefinition {
        var sharing: [String: JSONValue] = ["type": .string(governing.sharing.type.rawValue), "method": "api",
                                            "requirements": "预警随传感器数据共享 (alerts are shared as the sensor data is)"]
        if let requirements = governing.json["sharing"]?["requirements"] { sharing["requirements"] = requirements }
        let number: JSONValue = ["type": ["number", "null"]]
        let text: JSONValue = ["type": ["string", "null"]]
        let time: JSONValue = ["type": ["string", "null"], "format": "date-time"]
        return try LayerDefinition(json: [
            "id": .string(layer), "title": ["zh": "预警", "en": "Alerts"], "category": "物联感知",
            "owner": .string(governing.owner), "format": "vector", "updateFrequency": "realtime",
            "sharing": .object(sharing), "negativeList": .bool(governing.negativeList),
            "geometryType": "Point", "storageCRS": "EPSG:4490",
            "schema": ["type": "object", "properties": [
                "source": ["type": ["string", "null"],
                           "description": "threshold: a Datastream crossed one of its thresholds; flood-nowcast: a rain-driven flood nowcast; hydrant-status: a hydrant out of service (HydrantStatus)"],
                "datastream_id": ["type": ["integer", "null"], "description": "SensorThings Datastream @iot.id"],
                "datastream": text, "thing_id": ["type": ["integer", "null"]], "thing": text,
                "level": ["type": "string", "description": "threshold level (warning, danger, low-pressure), cut-off for an emergency resource, or hydrant-out-of-service"],
                "direction": ["type": "string", "enum": ["above", "below"]],
                "threshold": ["type": "number"], "hysteresis": ["type": "number"],
                "rate": ["type": "boolean", "description": "the threshold is a rate of rise per hour (value, peak: the change per hour)"],
                "value": ["type": ["number", "null"], "description": "the reading that raised the alert (the Datastream's unit; m of water on a road; null for a hydrant out of service)"],
                "peak": number, "phenomenonTime": time,
                "raised_at": ["type": "string", "format": "date-time"], "cleared_at": time,
                "cleared_value": number, "cleared_phenomenonTime": time,
                "cleared_reason": ["type": ["string", "null"],
                                   "description": "reading-withdrawn: the reading that raised it was deleted or corrected; returned-to-service, hydrant-deleted: a hydrant's alert ended (null: the readings came back past the hysteresis)"],
                "scenario": ["type": ["string", "null"], "description": "the flood nowcast's scenario id"],
                "road_id": text, "road": text, "resource_layer": text, "resource_id": text, "name": text,
                "status": ["type": ["string", "null"], "description": "hydrant-out-of-service: the hydrant's status (待维修)"],
                "status_source": ["type": ["string", "null"],
                                  "description": "hydrant-out-of-service: pressure-rule when its pressure meter set the status, null when a person did"],
                "reason": ["type": ["string", "null"], "description": "hydrant-out-of-service: why the hydrant is out of service"],
            ], "required": ["level", "raised_at"]],
            "temporal": ["start": "raised_at", "end": "cleared_at"],
            "style": ["circle-color": "#e4002b", "circle-radius": 7],
        ])
    }

    /// Creates the `alerts` layer (like the governing layer) when the store lacks it, or brings an
    /// older definition up to this one.
    /// - Throws: `StoreError` `.layerNotFound` naming the governing layer when the store has none.
    public static func ensureLayer(in store: any FeatureStore) async throws {
        guard let governing = try await store.layerDefinition(governingLayer, for: .admin) else {
            throw StoreError(.layerNotFound, "alerts follow the sharing of layer '\(governingLayer)', which this store lacks")
        }
        // A definition of this version has the flood nowcast's members, cleared_reason and the hydrants' reason.
        if let existing = try await store.layerDefinition(layer, for: .admin), existing.json["schema"]?["properties"]?["reason"] != nil { return }
        try await store.createLayer(try definition(like: governing))
    }
}
