import GeoCore
import ProcessRuntime

extension HazardArea {
    /// `geometry` (a Polygon or MultiPolygon drawn by a caller) if it is valid (OGC rules), else
    /// its GEOS make-valid repair when `repair` is true. A self-intersecting area has no defined
    /// inside: counting buildings "in" a bow-tie would be a plausible wrong answer, so it is
    /// refused unless the caller asks for the repair and so accepts the repaired shape.
    /// - Throws: `ScenarioError(.invalidArgument)` naming `field` with GEOS's reason and location
    ///   when the area is invalid and `repair` is false, or when the repair leaves no area.
    public static func checked(_ geometry: Geometry, repair: Bool, field: String = "area") throws -> Geometry {
        let report = try geometry.validityReason()
        if report.isValid { return geometry }
        guard repair else {
            let at = report.location.map { " at (\($0.x), \($0.y))" } ?? ""
            throw ScenarioError(.invalidArgument,
                                "is not a valid polygon: \(report.reason)\(at); fix it, or ask for GEOS's repair (input repair: true, CLI --repair)",
                                field: field)
        }
        let fixed = try geometry.makeValid(method: .structure, keepCollapsed: false)
        var polygons: [Polygon] = []
        func collect(_ g: Geometry) {
            switch g {
            case .polygon(let p): polygons.append(p)
            case .multiPolygon(let m): polygons += m.polygons
            case .geometryCollection(let c): c.geometries.forEach(collect)
            default: break
            }
        }
        collect(fixed)
        polygons.removeAll { Geometry.polygon($0).isEmpty }
        guard !polygons.isEmpty else {
            throw ScenarioError(.invalidArgument, "is not a valid polygon (\(report.reason)) and its repair has no area", field: field)
        }
        return polygons.count == 1 ? .polygon(polygons[0]) : .multiPolygon(MultiPolygon(polygons))
    }
}
