import Foundation

/// The paper a map is printed on (ISO 216) and which way up: its size in PDF points (1/72 inch)
/// and the margin a print shop expects. Every part of a printed page is laid out in points; a
/// PNG print is the same page drawn at `dpi` pixels per inch.
public struct PrintPaper: Hashable, Sendable {
    public enum Size: String, CaseIterable, Sendable {
        case a4 = "A4", a3 = "A3"

        /// Width × height in millimetres, portrait.
        public var millimetres: (width: Double, height: Double) {
            switch self {
            case .a4: (210, 297)
            case .a3: (297, 420)
            }
        }
    }

    public enum Orientation: String, CaseIterable, Sendable {
        case portrait, landscape
    }

    public let size: Size
    public let orientation: Orientation

    public init(_ size: Size, _ orientation: Orientation) {
        self.size = size
        self.orientation = orientation
    }

    /// Points per millimetre (72 / 25.4).
    public static let pointsPerMillimetre = 72 / 25.4

    /// The margin on every side, 10 mm: clear of the 3–5 mm edge office printers cannot reach
    /// and of a print shop's trim, as MapFish and QGIS print layouts default to.
    public static let marginMillimetres = 10.0

    /// The page's width and height in whole points (A4 595 × 842, A3 842 × 1191 portrait).
    public var points: (width: Int, height: Int) {
        let mm = size.millimetres
        let (w, h) = orientation == .portrait ? (mm.width, mm.height) : (mm.height, mm.width)
        return (Int((w * Self.pointsPerMillimetre).rounded()), Int((h * Self.pointsPerMillimetre).rounded()))
    }

    /// The page's size in pixels at `dpi` (from its millimetres: A4 at 100 dpi is 1169 × 827).
    public func pixels(dpi: Double) -> (width: Int, height: Int) {
        let mm = size.millimetres
        let (w, h) = orientation == .portrait ? (mm.width, mm.height) : (mm.height, mm.width)
        return (Int((w / 25.4 * dpi).rounded()), Int((h / 25.4 * dpi).rounded()))
    }

    /// The margin in points.
    public static var margin: Double { marginMillimetres * pointsPerMillimetre }
}
