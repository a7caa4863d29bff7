import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The character encoding of a text field or file: UTF-8, or the Chinese national encodings
/// (GBK / GB2312 / CP936, all read as their superset GB18030). Shapefiles name theirs in a `.cpg`
/// file; CSV files take `--encoding`.
///
/// GB18030 is decoded with the C library's iconv (glibc ships the converter), because
/// corelibs Foundation on Linux has no GB18030 `String.Encoding`.
public enum TextEncoding: String, Sendable, Hashable, CaseIterable {
    case utf8 = "UTF-8"
    case gb18030 = "GB18030"

    /// Parses an encoding name as `.cpg` files and users write it: `UTF-8`, `utf8`, `65001`,
    /// `GBK`, `GB2312`, `CP936`, `936`, `GB18030`, `54936`. `nil` for anything else.
    public init?(name: String) {
        let n = name.trimmingCharacters(in: .whitespacesAndNewlines).uppercased()
            .replacingOccurrences(of: "-", with: "").replacingOccurrences(of: "_", with: "")
        switch n {
        case "UTF8", "65001", "UNICODE": self = .utf8
        case "GBK", "GB2312", "CP936", "936", "GB18030", "54936", "ANSI936", "EUCCN", "GB23122": self = .gb18030
        default: return nil
        }
    }

    /// Decodes `bytes`; `nil` when they are not valid in this encoding.
    public func decode(_ bytes: some Collection<UInt8>) -> String? {
        switch self {
        case .utf8:
            var b = Array(bytes)
            if b.starts(with: [0xEF, 0xBB, 0xBF]) { b.removeFirst(3) }
            return String(validating: b, as: UTF8.self)
        case .gb18030:
            if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
            return GB18030Converter.current.decode(Array(bytes))
        }
    }
}

/// One iconv descriptor per thread (an `iconv_t` keeps shift state and must not be shared).
final class GB18030Converter {
    private let descriptor: iconv_t?

    private init() {
        let d = iconv_open("UTF-8", "GB18030")
        descriptor = (d == iconv_t(bitPattern: -1)) ? nil : d
    }

    deinit { if let descriptor { iconv_close(descriptor) } }

    private static let key = "CityTwin.GB18030Converter"

    /// This thread's converter.
    static var current: GB18030Converter {
        if let c = Thread.current.threadDictionary[key] as? GB18030Converter { return c }
        let c = GB18030Converter()
        Thread.current.threadDictionary[key] = c
        return c
    }

    /// UTF-8 text of GB18030 `bytes`, `nil` for an invalid or truncated sequence.
    func decode(_ bytes: [UInt8]) -> String? {
        guard let descriptor else { return nil }
        _ = iconv(descriptor, nil, nil, nil, nil)   // reset shift state
        var input = bytes.map { CChar(bitPattern: $0) }
        var output = [CChar](repeating: 0, count: bytes.count * 2 + 4)   // ≤ 4 UTF-8 bytes per 2+ GB bytes; ≤ 3 per 2
        let produced: Int? = input.withUnsafeMutableBufferPointer { inBuf in
            output.withUnsafeMutableBufferPointer { outBuf in
                var inPtr: UnsafeMutablePointer<CChar>? = inBuf.baseAddress
                var inLeft = inBuf.count
                var outPtr: UnsafeMutablePointer<CChar>? = outBuf.baseAddress
                var outLeft = outBuf.count
                let r = iconv(descriptor, &inPtr, &inLeft, &outPtr, &outLeft)
                guard r != -1 || inLeft == 0, inLeft == 0 else { return nil }
                return outBuf.count - outLeft
            }
        }
        guard let produced else { return nil }
        return String(decoding: output.prefix(produced).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
