import Foundation
import GeoCore

/// A GeoJSON file (a FeatureCollection, a Feature or a bare geometry) or a GeoJSON sequence
/// (RFC 8142 RS-separated or newline-delimited). Coordinates are CRS84 (RFC 7946), which CityTwin
/// treats as the same frame as CGCS2000 EPSG:4490.
///
/// Streams: the file is memory-mapped, and only the features of the chunk asked for are decoded.
/// A FeatureCollection that says its type before its `features` (as writers do) is read at once,
/// element by element, while another thread checks the whole file's structure and counts the
/// features (`CollectionCheck`); reading ends with that check's verdict. One that names its type
/// later is checked before reading. A sequence is decoded record by record. Anything else (a
/// single Feature or geometry, or a file the scan does not understand) is decoded whole, which
/// also gives the codec's own error.
public struct GeoJSONSource: FeatureSource {
    public let file: URL
    public var crs: CoordinateReferenceSystem? { .crs84 }
    /// Known once the structure check has counted the features.
    public var expectedCount: Int? { count ?? check?.count }
    private let data: Data
    private var mode: Mode
    private var count: Int?
    /// The structure check running while the collection is read, if any.
    private var check: CollectionCheck?
    /// Features handed out so far (the `feature N` of error messages counts from 1).
    private var emitted = 0

    private enum Mode {
        /// Next element of the `features` array at byte `offset` (after `[` or a `,`).
        case collection(offset: Int, element: Int)
        /// Next record from byte `offset`; `pending` holds the rest of a record with several features.
        case sequence(offset: Int, separator: UInt8, record: Int, pending: [Feature])
        case decoded([Feature])
        case finished
    }

    /// Reads `file`; a sequence when `sequence` is true or the name ends in `.geojsonl`,
    /// `.geojsons`, `.ndjson`, `.jsonl` or `.geojsonseq`.
    /// - Throws: `ImportError` `.malformed` with the decoder's position (`record N: $.features[3]…`),
    ///   here for structure errors and from `next(upTo:)` for errors inside a feature.
    public init(file: URL, sequence: Bool? = nil) throws {
        self.file = file
        do { data = try Data(contentsOf: file, options: .alwaysMapped) } catch {
            throw ImportError(.unreadable, file: file.lastPathComponent, "cannot read the file: \(error.localizedDescription)")
        }
        let isSequence = sequence ?? Self.sequenceExtensions.contains(file.pathExtension.lowercased())
        if isSequence {
            let separator: UInt8 = data.contains(0x1E) ? 0x1E : 0x0A
            mode = .sequence(offset: 0, separator: separator, record: 0, pending: [])
            return
        }
        if let start = data.withUnsafeBytes({ CollectionScan.featuresStart(UnsafeRawBufferPointer($0)) }) {
            mode = .collection(offset: start, element: 0)
            check = CollectionCheck(data)
            return
        }
        if let scan = data.withUnsafeBytes({ CollectionScan(UnsafeRawBufferPointer($0)) }) {
            mode = .collection(offset: scan.featuresStart, element: 0)
            count = scan.count
            return
        }
        (count, mode) = try Self.decodeWhole(data, file: file)
    }

    /// The file decoded in one go: its features, or the codec's error.
    private static func decodeWhole(_ data: Data, file: URL) throws -> (Int, Mode) {
        do {
            let features = try GeoJSON.decode(data).features
            return (features.count, .decoded(features))
        } catch let e as GeometryError {
            throw ImportError(.malformed, file: file.lastPathComponent, location: e.position, e.message)
        }
    }

    /// File extensions read as GeoJSON sequences.
    public static let sequenceExtensions: Set<String> = ["geojsonl", "geojsons", "geojsonseq", "ndjson", "jsonl"]

    public mutating func next(upTo limit: Int) throws -> [SourceRecord] {
        var out = [SourceRecord]()
        out.reserveCapacity(min(limit, 4096))
        func emit(_ f: Feature) {
            emitted += 1
            out.append(SourceRecord(location: "feature \(emitted)", feature: f))
        }
        while out.count < limit {
            switch mode {
            case .finished:
                return out
            case .decoded(var features):
                let take = min(limit - out.count, features.count)
                for f in features.prefix(take) { emit(f) }
                features.removeFirst(take)
                mode = features.isEmpty ? .finished : .decoded(features)
            case .collection(let offset, let element):
                guard let (feature, next) = try collectionElement(at: offset, element: element) else {
                    // The elements all decoded; the rest of the file must be well-formed too.
                    if let check, check.wait() == nil { _ = try Self.decodeWhole(data, file: file) }
                    mode = .finished
                    continue
                }
                emit(feature)
                mode = .collection(offset: next, element: element + 1)
            case .sequence(let offset, let separator, var record, var pending):
                if !pending.isEmpty {
                    emit(pending.removeFirst())
                    mode = .sequence(offset: offset, separator: separator, record: record, pending: pending)
                    continue
                }
                guard offset <= data.count else { mode = .finished; continue }
                let end = data.withUnsafeBytes { raw in
                    raw[offset...].firstIndex(of: separator) ?? raw.count
                }
                let slice = data[data.startIndex + offset ..< data.startIndex + end]
                if slice.contains(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) {
                    record += 1
                    do {
                        pending = try GeoJSON.decode(Data(slice)).features
                    } catch let e as GeometryError {
                        throw ImportError(.malformed, file: file.lastPathComponent,
                                          location: "record \(record): \(e.position ?? "$")", e.message)
                    }
                }
                mode = .sequence(offset: end + 1, separator: separator, record: record, pending: pending)
            }
        }
        return out
    }

    /// Decodes the element of the `features` array at `offset`; `nil` after the last one. The
    /// decoder reads the element in place and finds its end itself; what lies between and after
    /// the elements is the structure check's (`CollectionScan`) to judge.
    private func collectionElement(at offset: Int, element: Int) throws -> (Feature, Int)? {
        let path = "$.features[\(element)]"
        do {
            return try data.withUnsafeBytes { raw -> (Feature, Int)? in
                let bytes = UnsafeRawBufferPointer(raw)
                let start = CollectionScan.skipSpace(bytes, offset)
                if start >= bytes.count || bytes[start] == UInt8(ascii: "]") { return nil }
                let (object, end) = try GeoJSON.decodePrefix(bytes, from: start)
                guard case .feature(let f) = object else {
                    throw ImportError(.malformed, file: file.lastPathComponent, location: path, "features must contain only Feature objects")
                }
                var next = CollectionScan.skipSpace(bytes, end)
                if next < bytes.count, bytes[next] == UInt8(ascii: ",") { next += 1 }
                return (f, next)
            }
        } catch let e as GeometryError {
            let inner = e.position.map { $0.hasPrefix("$") ? String($0.dropFirst()) : "." + $0 } ?? ""
            throw ImportError(.malformed, file: file.lastPathComponent, location: path + inner, e.message)
        }
    }
}

/// The structure check of a FeatureCollection (`CollectionScan`), on its own thread while the
/// reader decodes the features: the count when it is done, and whether the file is well-formed.
final class CollectionCheck: @unchecked Sendable {
    private let condition = NSCondition()
    /// `nil` while scanning; then the feature count, or `.some(nil)` for a malformed file.
    private var result: Int??

    init(_ data: Data) {
        let thread = Thread { [self] in
            let scan = data.withUnsafeBytes { CollectionScan(UnsafeRawBufferPointer($0)) }
            condition.lock()
            result = .some(scan?.count)
            condition.broadcast()
            condition.unlock()
        }
        thread.name = "citytwin.geojson-check"
        thread.start()
    }

    /// The number of features once counted; `nil` before (or for a malformed file).
    var count: Int? {
        condition.lock()
        defer { condition.unlock() }
        return result ?? nil
    }

    /// Waits for the check: the number of features, `nil` when the file is malformed.
    func wait() -> Int? {
        condition.lock()
        defer { condition.unlock() }
        while result == nil { condition.wait() }
        return result ?? nil
    }
}

/// A byte scan of a top-level FeatureCollection: checks the JSON structure (objects, arrays,
/// strings and their escapes nest and close; nothing follows the object), finds the `features`
/// array and counts its elements. `nil` for anything else, which is then decoded whole.
struct CollectionScan {
    /// Byte offset just after the `[` of `features`.
    var featuresStart: Int
    var count: Int

    init?(_ b: UnsafeRawBufferPointer) {
        var isCollection = false
        var start: Int?
        var count = 0
        let end = Self.members(b) { key, i in
            guard key == "features" else {
                let end = Self.skipValue(b, i)
                if key == "type", let end { isCollection = Self.saysFeatureCollection(b, i..<end) }
                return end
            }
            guard b[i] == UInt8(ascii: "[") else { return nil }
            start = i + 1
            var j = Self.skipSpace(b, i + 1)
            count = 0
            if j < b.count, b[j] == UInt8(ascii: "]") { return j + 1 }
            while true {
                guard j < b.count, b[j] == UInt8(ascii: "{"), let end = Self.skipValue(b, j) else { return nil }
                count += 1
                j = Self.skipSpace(b, end)
                guard j < b.count else { return nil }
                if b[j] == UInt8(ascii: ",") { j = Self.skipSpace(b, j + 1); continue }
                guard b[j] == UInt8(ascii: "]") else { return nil }
                return j + 1
            }
        }
        guard let end, isCollection, let start, Self.skipSpace(b, end) == b.count else { return nil }
        featuresStart = start
        self.count = count
    }

    /// Just after the `[` of `features` when the top-level object says it is a FeatureCollection
    /// before its `features` member, found without reading the array; `nil` otherwise.
    static func featuresStart(_ b: UnsafeRawBufferPointer) -> Int? {
        var isCollection = false
        var start: Int?
        _ = members(b) { key, i in
            if key == "features" {
                if isCollection, b[i] == UInt8(ascii: "[") { start = i + 1 }
                return nil
            }
            let end = skipValue(b, i)
            if key == "type", let end { isCollection = saysFeatureCollection(b, i..<end) }
            return end
        }
        return start
    }

    /// Whether the JSON value at `range` is the string "FeatureCollection".
    private static func saysFeatureCollection(_ b: UnsafeRawBufferPointer, _ range: Range<Int>) -> Bool {
        String(decoding: UnsafeRawBufferPointer(rebasing: b[range]), as: UTF8.self) == "\"FeatureCollection\""
    }

    /// Walks the members of the top-level object (after an optional UTF-8 byte order mark):
    /// `visit(key, offset of the value)` gives the offset after the value, or `nil` to stop.
    /// - Returns: the offset after the object's `}`; `nil` when stopped or malformed.
    private static func members(_ b: UnsafeRawBufferPointer, _ visit: (String, Int) -> Int?) -> Int? {
        var i = skipSpace(b, 0)
        if i + 3 <= b.count, b[i] == 0xEF, b[i + 1] == 0xBB, b[i + 2] == 0xBF { i = skipSpace(b, i + 3) }
        guard i < b.count, b[i] == UInt8(ascii: "{") else { return nil }
        i = skipSpace(b, i + 1)
        if i < b.count, b[i] == UInt8(ascii: "}") { return nil }
        while true {
            guard i < b.count, b[i] == UInt8(ascii: "\""), let keyEnd = skipString(b, i) else { return nil }
            let key = String(decoding: UnsafeRawBufferPointer(rebasing: b[(i + 1)..<(keyEnd - 1)]), as: UTF8.self)
            i = skipSpace(b, keyEnd)
            guard i < b.count, b[i] == UInt8(ascii: ":") else { return nil }
            i = skipSpace(b, i + 1)
            guard i < b.count, let end = visit(key, i) else { return nil }
            i = skipSpace(b, end)
            guard i < b.count else { return nil }
            if b[i] == UInt8(ascii: ",") { i = skipSpace(b, i + 1); continue }
            guard b[i] == UInt8(ascii: "}") else { return nil }
            return i + 1
        }
    }

    static func skipSpace(_ b: UnsafeRawBufferPointer, _ from: Int) -> Int {
        var i = from
        while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
        return i
    }

    /// The offset after the string starting with `"` at `from`; `nil` when unterminated.
    static func skipString(_ b: UnsafeRawBufferPointer, _ from: Int) -> Int? {
        var i = from + 1
        while i < b.count {
            switch b[i] {
            case UInt8(ascii: "\\"): i += 2
            case UInt8(ascii: "\""): return i + 1
            default: i += 1
            }
        }
        return nil
    }

    /// The offset after the JSON value at `from` (its structure only: scalars are checked by the
    /// decoder); `nil` when it does not close.
    static func skipValue(_ b: UnsafeRawBufferPointer, _ from: Int) -> Int? {
        guard from < b.count else { return nil }
        switch b[from] {
        case UInt8(ascii: "\""):
            return skipString(b, from)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            // The open brackets as bits (1: object), the innermost lowest; deeper than 64
            // levels in an array, which only deep input needs.
            var bits: UInt64 = 0
            var deeper: [Bool] = []
            var depth = 0
            var i = from
            while i < b.count {
                let c = b[i]
                switch c {
                case UInt8(ascii: "\""):
                    guard let end = skipString(b, i) else { return nil }
                    i = end
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    if depth >= 64 { deeper.append(bits >> 63 != 0) }
                    bits = bits << 1 | (c == UInt8(ascii: "{") ? 1 : 0)
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    guard depth > 0, (bits & 1 == 1) == (c == UInt8(ascii: "}")) else { return nil }
                    bits >>= 1
                    depth -= 1
                    if depth >= 64, let outer = deeper.popLast() { bits |= (outer ? 1 : 0) << 63 }
                    if depth == 0 { return i + 1 }
                default: break
                }
                i += 1
            }
            return nil
        default:
            var i = from
            while i < b.count {
                switch b[i] {
                case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x0A, 0x0D, 0x09: return i > from ? i : nil
                default: i += 1
                }
            }
            return i > from ? i : nil
        }
    }
}
