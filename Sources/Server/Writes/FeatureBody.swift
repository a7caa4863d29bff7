import Foundation
import GeoCore
import Hummingbird
import TwinStore

/// The body of a Part 4 write, read and checked: a GeoJSON feature (POST, PUT) or an RFC 7396
/// merge patch (PATCH), with coordinates brought from the `Content-Crs` CRS (default CRS84,
/// in that CRS's axis order) into storage EPSG:4490 lon/lat. Every fault is a 400 problem
/// naming the JSON path (`$.geometry.coordinates[0]`, `$.properties.capacity`).
struct FeatureBody {
    /// Largest body accepted, in bytes (one feature; bulk loads go through `citytwin import`).
    static let maximumBytes = 16 << 20

    /// The CRS of the body's coordinates (`Content-Crs`), and the way back to storage.
    struct Source {
        let crs: CoordinateReferenceSystem
        let transformer: CoordinateTransformer
        let swapsAxes: Bool

        /// From the `Content-Crs` header: `<http://www.opengis.net/def/crs/EPSG/0/4547>` (angle
        /// brackets optional), any CRS `crs` accepts; CRS84 when absent.
        init(header: String?) throws {
            var crs = CoordinateReferenceSystem.crs84
            if var text = header?.trimmingCharacters(in: .whitespaces) {
                if text.hasPrefix("<") && text.hasSuffix(">") { text = String(text.dropFirst().dropLast()) }
                crs = try CRSParameter.parse(text, parameter: "Content-Crs")
            }
            self.crs = crs
            do {
                self.transformer = try CoordinateTransformer.shared(from: crs, to: CRSParameter.storage)
                self.swapsAxes = try crs.metadata.axisOrder.isSwapped
            } catch let e as GeometryError {
                throw Problem(.invalidCRS, "header 'Content-Crs': \(e.message)", parameter: "Content-Crs")
            }
        }

        /// `geometry` (authority axis order of `crs`) in storage lon/lat.
        func toStorage(_ geometry: Geometry, path: String) throws -> Geometry {
            var g = geometry
            if swapsAxes { g = g.mapPositions { Position(x: $0.y, y: $0.x, z: $0.z) } }
            guard !transformer.isIdentity else { return g }
            var flat: [Position] = []
            flat.reserveCapacity(g.positionCount)
            g.forEachPosition { flat.append($0) }
            do {
                try transformer.transform(&flat)
            } catch let e as GeometryError {
                throw Problem(.invalidBody, "\(path): cannot transform from \(crs) to EPSG:4490: \(e.message)", position: path)
            }
            var next = 0
            return g.mapPositions { _ in
                defer { next += 1 }
                return flat[next]
            }
        }
    }

    /// The whole body, after checking its media type against `accepted`, within the request's
    /// limits: `context.maxUploadSize` (`--max-body-bytes`) and its share of the bodies its
    /// address may hold in memory at once (`context.bodyAllowance`, `BodyBudget`).
    static func bytes(_ request: Request, accepted: [String], context: CityTwinRequestContext) async throws -> [UInt8] {
        try await bytes(request, accepted: accepted, maximumBytes: context.maxUploadSize, allowance: context.bodyAllowance)
    }

    /// The whole body, after checking its media type against `accepted`: read into one buffer of
    /// the declared length (no second copy), each chunk taken from `allowance` before it is kept.
    /// - Parameter maximumBytes: the largest body accepted (the server's `RequestLimits.maxBodyBytes`).
    /// - Throws: `Problem` 415 (media type), 413 (over `maximumBytes`, or cut short), 400 (empty),
    ///   and the budget's 429 or 503.
    static func bytes(_ request: Request, accepted: [String], maximumBytes: Int = maximumBytes,
                      allowance: BodyBudget.Allowance? = nil) async throws -> [UInt8] {
        if let type = request.headers[.contentType] {
            let essence = type.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            guard accepted.contains(essence) else {
                throw Problem(.unsupportedMediaType, "the body is \(essence); this operation accepts \(accepted.joined(separator: ", "))")
            }
        }
        let length = request.headers[.contentLength].flatMap(Int.init)
        if let length, length > maximumBytes {
            throw Problem(.bodyTooLarge, "the body has \(length) bytes; at most \(maximumBytes) (--max-body-bytes) are accepted")
        }
        if let length, length > 0 { try allowance?.reserve(length) }
        var bytes = [UInt8]()
        if let length, length > 0 { bytes.reserveCapacity(length) }
        do {
            for try await chunk in request.body {
                let total = bytes.count + chunk.readableBytes
                guard total <= maximumBytes else {
                    throw Problem(.bodyTooLarge, "the body is larger than \(maximumBytes) bytes (--max-body-bytes)")
                }
                try allowance?.reserve(total)
                bytes.append(contentsOf: chunk.readableBytesView)
            }
        } catch let problem as Problem {
            throw problem
        } catch {
            throw Problem(.bodyTooLarge, "the body was cut short before its end")
        }
        guard !bytes.isEmpty else { throw Problem(.invalidBody, "the body is empty", position: "$") }
        return bytes
    }

    /// A GeoJSON Feature body, geometry in storage coordinates.
    static func feature(_ bytes: [UInt8], source: Source) throws -> Feature {
        let object: GeoJSONObject
        do {
            object = try GeoJSON.decode(bytes)
        } catch let e as GeometryError {
            throw problem(e, under: "")
        }
        guard case .feature(var feature) = object else {
            let kind = if case .geometry = object { "a bare geometry" } else { "a FeatureCollection" }
            throw Problem(.invalidBody, "$: the body must be a GeoJSON Feature, got \(kind)", position: "$")
        }
        if let g = feature.geometry { feature.geometry = try source.toStorage(g, path: "$.geometry") }
        return feature
    }

    /// `current` with the RFC 7396 merge patch in `bytes` applied: `properties` members merge
    /// (null removes), `geometry` is replaced by a GeoJSON geometry (or removed by null), `id`
    /// may only restate the current id, `type` must be "Feature"; other members are ignored,
    /// as GeoJSON foreign members are.
    static func patched(_ current: Feature, with bytes: [UInt8], source: Source) throws -> Feature {
        let patch: JSONValue
        do {
            patch = try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        } catch {
            throw Problem(.invalidBody, "$: the body is not JSON (\(describe(error)))", position: "$")
        }
        guard let members = patch.objectValue else {
            throw Problem(.invalidBody, "$: a merge patch of a feature must be a JSON object", position: "$")
        }
        var feature = current
        for (name, value) in members.sorted(by: { $0.key < $1.key }) {
            switch name {
            case "type":
                guard value == .string("Feature") else {
                    throw Problem(.invalidBody, "$.type: must be \"Feature\"", position: "$.type")
                }
            case "id":
                guard sameID(value, current.id) else {
                    throw Problem(.invalidBody, "$.id: the id of a feature cannot change (it is \(current.id?.description ?? "unset"))",
                                  position: "$.id")
                }
            case "geometry":
                if value == .null {
                    feature.geometry = nil
                } else {
                    feature.geometry = try source.toStorage(try geometry(value, path: "$.geometry"), path: "$.geometry")
                }
            case "properties":
                switch value {
                case .null: feature.properties = [:]
                case .object(let changes):
                    for (key, change) in changes {
                        // Not `x = cond ? nil : v`: JSONValue is ExpressibleByNilLiteral, so that nil would be JSON null.
                        if change == .null {
                            feature.properties.removeValue(forKey: key)
                        } else {
                            feature.properties[key] = merge(feature.properties[key], change)
                        }
                    }
                default:
                    throw Problem(.invalidBody, "$.properties: must be an object or null", position: "$.properties")
                }
            default:
                continue
            }
        }
        return feature
    }

    /// RFC 7396 MergePatch(target, patch) for one value.
    static func merge(_ target: JSONValue?, _ patch: JSONValue) -> JSONValue {
        guard case .object(let changes) = patch else { return patch }
        var out = target?.objectValue ?? [:]
        for (key, change) in changes {
            if change == .null {
                out.removeValue(forKey: key)
            } else {
                out[key] = merge(out[key], change)
            }
        }
        return .object(out)
    }

    /// A GeoJSON geometry given as a JSON value inside a body.
    private static func geometry(_ value: JSONValue, path: String) throws -> Geometry {
        let object: GeoJSONObject
        do {
            object = try GeoJSON.decode(JSONText.bytes(value))
        } catch let e as GeometryError {
            throw problem(e, under: path)
        }
        guard case .geometry(let g) = object else {
            throw Problem(.invalidBody, "\(path): must be a GeoJSON geometry object or null", position: path)
        }
        return g
    }

    private static func sameID(_ value: JSONValue, _ id: FeatureID?) -> Bool {
        switch (value, id) {
        case (.string(let s), .string(let t)?): s == t
        case (.integer(let i), .integer(let j)?): i == j
        case (.string(let s), .integer(let j)?): s == String(j)
        case (.integer(let i), .string(let t)?): String(i) == t
        default: false
        }
    }

    /// A GeoJSON decoding error as a body problem, its JSON path re-rooted under `prefix`.
    private static func problem(_ e: GeometryError, under prefix: String) -> Problem {
        var position = e.position ?? "$"
        if !prefix.isEmpty, position.hasPrefix("$") { position = prefix + position.dropFirst() }
        let message = e.message.contains(position) ? e.message : "\(position): \(e.message)"
        return Problem(.invalidBody, message, position: position)
    }

    private static func describe(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            let underlying = (context.underlyingError as? NSError)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return underlying ?? context.debugDescription
        }
        return String(describing: error)
    }
}
