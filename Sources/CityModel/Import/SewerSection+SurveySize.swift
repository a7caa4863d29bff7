import Foundation
import GeoCore

extension SewerSection {
    /// Parses a survey PSize: `600` (circular, mm) or `1000X800` (box, width × height in mm;
    /// `x`, `×` and `*` are accepted as the separator). `nil` for anything else.
    public init?(surveySize text: String) {
        let t = text.trimmingCharacters(in: .whitespaces).uppercased()
        let parts = t.split(whereSeparator: { $0 == "X" || $0 == "×" || $0 == "*" })
        let numbers = parts.compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard numbers.count == parts.count, numbers.allSatisfy({ $0 > 0 && $0 < 100_000 }) else { return nil }
        switch numbers.count {
        case 1: self = .circular(diameter: Int(numbers[0].rounded()))
        case 2: self = .box(width: Int(numbers[0].rounded()), height: Int(numbers[1].rounded()))
        default: return nil
        }
    }

    /// The section of a SWMM `[XSECTIONS]` line (Geom1/Geom2 in metres), `nil` for shapes
    /// other than CIRCULAR and RECT_CLOSED.
    init?(swmmShape shape: String, geom1: Double, geom2: Double) {
        switch shape.uppercased() {
        case "CIRCULAR", "FORCE_MAIN": self = .circular(diameter: Int((geom1 * 1000).rounded()))
        case "RECT_CLOSED": self = .box(width: Int((geom2 * 1000).rounded()), height: Int((geom1 * 1000).rounded()))
        default: return nil
        }
    }

    /// The material a Manning n suggests, for models that give roughness but no material:
    /// PVC-U below 0.0105, HDPE below 0.012, else reinforced concrete.
    static func material(manningN n: Double) -> String {
        n < 0.0105 ? "PVC-U" : n < 0.012 ? "HDPE" : "钢筋混凝土"
    }

    /// The schema fields of a pipe with this section: shape, sizes in mm, size text.
    var pipeProperties: [String: JSONValue] {
        switch self {
        case .circular(let d):
            ["shape": .string(shape), "diameter_mm": .integer(Int64(d)), "width_mm": .null, "height_mm": .null, "size_text": .string(sizeText)]
        case .box(let w, let h):
            ["shape": .string(shape), "diameter_mm": .null, "width_mm": .integer(Int64(w)), "height_mm": .integer(Int64(h)), "size_text": .string(sizeText)]
        }
    }
}
