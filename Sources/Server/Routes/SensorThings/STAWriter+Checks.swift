import CityModel
import Foundation
import GeoCore
import ProcessRuntime
import Sensing
import Signals
import TwinStore

/// The checks of one member's value a SensorThings write makes before anything is written (400
/// naming the member by its JSON path): property types, CRS84 positions, results by observationType.
extension STAWriter {
    /// Checks the type of a property value (times, GeoJSON, objects); returns it as stored.
    static func checkProperty(_ kind: SensingKind, _ key: String, _ value: JSONValue, path: String) throws -> JSONValue {
        try checkText(value, path: path)
        switch key {
        case "name", "description", "encodingType", "observationType", "definition":
            guard value.stringValue != nil else { throw invalid(path, "must be a string") }
        case "properties", "unitOfMeasurement":
            guard value.objectValue != nil else { throw invalid(path, "must be a JSON object") }
            if key == "properties", kind == .datastream {
                do { try Thresholds.check(value, path: path) } catch let e as ThresholdError { throw invalid(e.path, e.reason) }
                do { _ = try TrafficCountStream.declared(in: value, path: path) } catch let e as any InputFailure { throw invalid(e.failedInput, e.failureReason) }
            }
        case "time":
            guard let s = value.stringValue, SensingTime.instant(s) != nil else { throw invalid(path, "must be an RFC 3339 instant") }
        case "phenomenonTime", "resultTime":
            if kind == .datastream, value.isNull { return value }
            guard let s = value.stringValue, SensingTime.period(s) != nil else { throw invalid(path, "must be an RFC 3339 instant or interval start/end") }
        case "location", "feature", "observedArea":
            guard let o = value.objectValue, let geometry = SensingFilterEvaluator.geometry(o) else {
                throw invalid(path, "must be a GeoJSON geometry or Feature (encodingType application/geo+json), lon/lat in CRS84")
            }
            try checkCRS84(geometry, path: path)
        default: break
        }
        return value
    }

    /// Text without a C0 control character other than tab, LF and CR, in the value and every
    /// string and key inside it: what a feature property may not hold either (`PreparedFeature`),
    /// so that no XML output of the data is ill-formed. The error names the member and the
    /// character's code point, never the text.
    static func checkText(_ value: JSONValue, path: @autoclosure () -> String) throws {
        switch value {
        case .string(let s):
            if let c = MarkupEscaping.firstRefusedControl(in: s) { throw control(c, path()) }
        case .array(let a):
            for (i, x) in a.enumerated() { try checkText(x, path: "\(path())[\(i)]") }
        case .object(let o):
            for (k, x) in o.sorted(by: { $0.key < $1.key }) {
                if let c = MarkupEscaping.firstRefusedControl(in: k) { throw control(c, "\(path()).\(k)") }
                try checkText(x, path: "\(path()).\(k)")
            }
        default: break
        }
    }

    private static func control(_ c: Unicode.Scalar, _ path: String) -> Problem {
        invalid(path, "contains the control character \(MarkupEscaping.codePoint(c)); of the C0 controls only tab, LF and CR are accepted")
    }

    /// Every position of a Location's or FeatureOfInterest's GeoJSON within CRS84's ranges: longitude
    /// [-180, 180], latitude [-90, 90]. GeoJSON orders a position longitude first, so a latitude out of
    /// range with a longitude that would be one is named as swapped axes.
    static func checkCRS84(_ geometry: Geometry, path: String) throws {
        var bad: (x: Double, y: Double)?
        geometry.forEachPosition { p in
            if bad == nil, !((-90...90).contains(p.y) && (-180...180).contains(p.x)) { bad = (p.x, p.y) }
        }
        guard let (x, y) = bad else { return }
        let at = "[\(x), \(y)]"
        if !(-90...90).contains(y) {
            let swapped = (-90...90).contains(x) && (-180...180).contains(y) ? ": GeoJSON gives [longitude, latitude], so this looks like swapped axes (did you mean [\(y), \(x)]?)" : ""
            throw invalid(path, "latitude \(y) of \(at) is outside the allowed range [-90, 90]\(swapped)")
        }
        throw invalid(path, "longitude \(x) of \(at) is outside the allowed range [-180, 180]")
    }

    /// The result a Datastream's `observationType` (O&M 2.0) allows.
    static func checkResult(_ result: JSONValue, type: String, path: @autoclosure () -> String) throws {
        // The last segment of the type's URI (once per row: no split into an array).
        let name = type.lastIndex(of: "/").map { type[type.index(after: $0)...] } ?? type[...]
        let ok: Bool = switch name {
        case "OM_Measurement": result.doubleValue.map { $0.isFinite } ?? false
        case "OM_CountObservation": { if case .integer = result { true } else { false } }()
        case "OM_TruthObservation": result.boolValue != nil
        case "OM_CategoryObservation": result.stringValue != nil
        default: !result.isNull
        }
        guard ok else { throw invalid(path(), "\(String(describing: result)) is not a result of a Datastream whose observationType is \(name)") }
    }
}
