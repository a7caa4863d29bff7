import Foundation

/// A colour as MapLibre styles write them (`#rgb`, `#rrggbb`, `#rrggbbaa`, `rgb()`, `rgba()`, a
/// few CSS names), held as straight (not premultiplied) red, green, blue and alpha in 0…1.
public struct MapColour: Hashable, Sendable, CustomStringConvertible {
    public var red: Double
    public var green: Double
    public var blue: Double
    public var alpha: Double

    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    public static let white = MapColour(red: 1, green: 1, blue: 1)
    public static let black = MapColour(red: 0, green: 0, blue: 0)
    public static let transparent = MapColour(red: 0, green: 0, blue: 0, alpha: 0)

    private static let names: [String: MapColour] = [
        "white": .white, "black": .black, "transparent": .transparent,
        "red": MapColour(red: 1, green: 0, blue: 0), "green": MapColour(red: 0, green: 0.5, blue: 0),
        "blue": MapColour(red: 0, green: 0, blue: 1), "gray": MapColour(red: 0.5, green: 0.5, blue: 0.5),
        "grey": MapColour(red: 0.5, green: 0.5, blue: 0.5), "yellow": MapColour(red: 1, green: 1, blue: 0),
        "orange": MapColour(red: 1, green: 0.647, blue: 0),
    ]

    /// Parses a style colour.
    /// - Throws: `MapRenderingError` `.style` naming the text when it is no colour.
    public init(parsing text: String) throws {
        if let hex = Self.plainHex(text) {
            self = hex
            return
        }
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        if let named = Self.names[t] {
            self = named
            return
        }
        if t.hasPrefix("#") {
            let hex = Array(t.dropFirst())
            let digits = hex.count == 3 || hex.count == 4 ? hex.flatMap { [$0, $0] } : hex
            guard digits.count == 6 || digits.count == 8, let v = UInt64(String(digits), radix: 16) else {
                throw MapRenderingError(.style, "'\(text)' is not a colour (#rgb, #rrggbb or #rrggbbaa)")
            }
            let bytes = digits.count == 8 ? v : (v << 8) | 0xff
            self.init(red: Double((bytes >> 24) & 255) / 255, green: Double((bytes >> 16) & 255) / 255,
                      blue: Double((bytes >> 8) & 255) / 255, alpha: Double(bytes & 255) / 255)
            return
        }
        if t.hasPrefix("rgb"), let open = t.firstIndex(of: "("), t.hasSuffix(")") {
            let parts = t[t.index(after: open)..<t.index(before: t.endIndex)].split(separator: ",")
                .map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 3 || parts.count == 4, parts.allSatisfy({ $0 != nil }) else {
                throw MapRenderingError(.style, "'\(text)' is not a colour: rgb(r, g, b) or rgba(r, g, b, a)")
            }
            let p = parts.map { $0! }
            self.init(red: p[0] / 255, green: p[1] / 255, blue: p[2] / 255, alpha: p.count == 4 ? p[3] : 1)
            return
        }
        throw MapRenderingError(.style, "'\(text)' is not a colour")
    }

    /// `#rgb`, `#rgba`, `#rrggbb` or `#rrggbbaa` with nothing around it, read from its bytes: the
    /// form styles write almost every colour in, parsed for each feature drawn (the general path's
    /// trimming and lowercasing went through Foundation for each); nil for any other text.
    private static func plainHex(_ text: String) -> MapColour? {
        var utf8 = text.utf8.makeIterator()
        guard utf8.next() == UInt8(ascii: "#") else { return nil }
        var value: UInt64 = 0, count = 0
        while let byte = utf8.next() {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            count += 1
            guard count <= 8 else { return nil }
            value = value << 4 | UInt64(digit)
        }
        let bytes: UInt64
        switch count {
        case 3, 4:  // each digit doubled: #abc is #aabbcc
            var doubled: UInt64 = 0
            for shift in stride(from: (count - 1) * 4, through: 0, by: -4) {
                let d = (value >> UInt64(shift)) & 0xf
                doubled = doubled << 8 | d << 4 | d
            }
            bytes = count == 4 ? doubled : doubled << 8 | 0xff
        case 6: bytes = value << 8 | 0xff
        case 8: bytes = value
        default: return nil
        }
        return MapColour(red: Double((bytes >> 24) & 255) / 255, green: Double((bytes >> 16) & 255) / 255,
                         blue: Double((bytes >> 8) & 255) / 255, alpha: Double(bytes & 255) / 255)
    }

    /// The colour with its alpha multiplied by `opacity` (0…1).
    public func withOpacity(_ opacity: Double) -> MapColour {
        MapColour(red: red, green: green, blue: blue, alpha: alpha * min(1, max(0, opacity)))
    }

    /// `#rrggbb` (alpha left out).
    public var hex: String {
        String(format: "#%02x%02x%02x", Int((red * 255).rounded()), Int((green * 255).rounded()), Int((blue * 255).rounded()))
    }

    public var description: String { alpha < 1 ? "\(hex)@\(alpha)" : hex }
}
