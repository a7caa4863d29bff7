import Foundation
import GeoCore
import MapRendering
import TwinStore

extension WMSRoutes {
    /// How near a pixel a feature counts as under it, in pixels (beyond a point's circle or a
    /// line's half width, which the style sets).
    static let featureInfoTolerance = 4.0

    /// WMS GetFeatureInfo: the features of `QUERY_LAYERS` under pixel (I, J) of the map the
    /// GetMap parameters describe, nearest first, `FEATURE_COUNT` (default 1) per layer, the
    /// top layer first; attributes as the caller may read them (the store masks them).
    func wmsFeatureInfo(_ p: WMSParameters, _ caller: Caller) async throws -> Representation {
        let request = try await wmsMapRequest(p, caller)
        let view = request.view
        let queried = try p.list("QUERY_LAYERS")
        for id in queried where !request.layers.contains(where: { $0.definition.id == id }) {
            throw WMSException(.layerNotDefined, "QUERY_LAYERS names '\(id)', which LAYERS does not", locator: "QUERY_LAYERS")
        }
        let infoFormat = try p.required("INFO_FORMAT").lowercased()
        guard ["application/json", "application/geo+json", "text/html"].contains(infoFormat) else {
            throw WMSException(.invalidFormat, "INFO_FORMAT '\(infoFormat)' is not served: \(WMSNames.infoFormats.joined(separator: ", "))",
                               locator: "INFO_FORMAT")
        }
        guard let i = Int(try p.required("I")), let j = Int(try p.required("J")), (0..<view.width).contains(i), (0..<view.height).contains(j) else {
            throw WMSException(.invalidPoint, "I, J (\(p["I"] ?? ""), \(p["J"] ?? "")) is not a pixel of the \(view.width)×\(view.height) map",
                               locator: p["I"].flatMap(Int.init).map { (0..<view.width).contains($0) } == true ? "J" : "I")
        }
        let count = try p["FEATURE_COUNT"] == nil ? 1 : p.integer("FEATURE_COUNT", in: 1...1000)
        // The top layer first (the last one drawn).
        let layers = request.layers.reversed().filter { queried.contains($0.definition.id) }
        return try await featureInfo(layers, view: view, style: request.style, i: i, j: j, count: count, html: infoFormat == "text/html", caller)
    }

    /// The features of `layers` (in that order) under pixel (i, j) of `view`: those within the
    /// width their style draws them at (a line's half width, a circle's radius and stroke) plus
    /// `featureInfoTolerance`, nearest first, `count` per layer; ids `layer.id`. GeoJSON, or
    /// an HTML table per layer. What WMS and WMTS GetFeatureInfo answer.
    func featureInfo(_ layers: [LayerInfo], view: MapView, style: RenderStyle, i: Int, j: Int, count: Int, html: Bool,
                     _ caller: Caller) async throws -> Representation {
        var found: [(layer: LayerInfo, features: [Feature])] = []
        for info in layers {
            let id = info.definition.id
            let reach = try Self.reach(style.layers(for: id), zoom: view.zoom) + Self.featureInfoTolerance
            // The box of the pixels around (i, j) within reach, in storage lon/lat.
            let corners = try [(-reach, -reach), (reach, -reach), (-reach, reach), (reach, reach)].map {
                try view.storagePosition(i: Double(i) + $0.0, j: Double(j) + $0.1)
            }
            let box = Envelope(minX: corners.map(\.x).min()!, minY: corners.map(\.y).min()!, maxX: corners.map(\.x).max()!, maxY: corners.map(\.y).max()!)
            var hits: [(distance: Double, feature: Feature)] = []
            for feature in try await wmsFeatures(id, in: box, caller) {
                guard let geometry = feature.geometry else { continue }
                let d = try view.pixels(geometry).distance(toX: Double(i) + 0.5, y: Double(j) + 0.5)
                if d <= reach { hits.append((d, feature)) }
            }
            let nearest = hits.sorted { $0.distance < $1.distance }.prefix(count).map { hit in
                var f = hit.feature
                f.id = .string("\(id).\(hit.feature.id?.description ?? "")")
                return f
            }
            if !nearest.isEmpty { found.append((info, Array(nearest))) }
        }
        if html {
            return Representation(mediaType: "text/html; charset=utf-8", body: Array(Self.featureInfoHTML(found).utf8))
        }
        return Representation(mediaType: MediaTypeName.json, body: Array(GeoJSON.encode(FeatureCollection(found.flatMap(\.features)))))
    }

    /// Half the widest thing a collection's style layers draw at `zoom` (a line's width, a
    /// circle's radius and stroke), in pixels: how far from a geometry its drawing reaches.
    static func reach(_ layers: [StyleLayer], zoom: Double) throws -> Double {
        var widest = 0.0
        for layer in layers {
            let context = ExpressionContext(zoom: zoom)
            switch layer.kind {
            case .line: widest = max(widest, ((try? layer.number("line-width", context, 1)) ?? 1) / 2)
            case .circle:
                let radius = (try? layer.number("circle-radius", context, 5)) ?? 5
                widest = max(widest, radius + ((try? layer.number("circle-stroke-width", context, 0)) ?? 0))
            default: break
            }
        }
        return widest
    }

    /// The features found, a table per layer: the caller's view of each attribute.
    static func featureInfoHTML(_ found: [(layer: LayerInfo, features: [Feature])]) -> String {
        func e(_ s: String) -> String { MarkupEscaping.escape(s) }
        var out = "<!DOCTYPE html>\n<html lang=\"zh\"><head><meta charset=\"utf-8\"><title>要素信息</title></head><body>\n"
        if found.isEmpty { out += "<p>此处无要素（no feature here）</p>\n" }
        for (info, features) in found {
            let names = Array(Set(features.flatMap(\.properties.keys))).sorted()
            out += "<table>\n<caption>\(e(info.definition.title.zh)) (\(e(info.definition.id)))</caption>\n<tr><th>id</th>"
            out += names.map { "<th>\(e($0))</th>" }.joined() + "</tr>\n"
            for f in features {
                out += "<tr><td>\(e(f.id?.description ?? ""))</td>"
                out += names.map { "<td>\(e(f.properties[$0].map(StyleExpression.text) ?? ""))</td>" }.joined() + "</tr>\n"
            }
            out += "</table>\n"
        }
        return out + "</body></html>\n"
    }
}
