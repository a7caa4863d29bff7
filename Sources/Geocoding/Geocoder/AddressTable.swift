import GeoCore

/// The standard address records of a geocoder, stored in columns, where an array of `AddressRecord`
/// takes about 1.5 KB a record (four heap strings, an array of former names, an optional third
/// coordinate). With the geocoder's name indexes the whole index measures about 150 bytes an address:
/// 343 MiB for the 2,252,836 addresses of 100× the sample district.
///
/// - Texts (code, name, former names) are UTF-8 in one byte array, each record's run found by its
///   offset; a length is a LEB128 varint.
/// - A full address is stored only where it is not its parent's full address followed by the
///   record's own name (the standard tree's rule, which the sample's records follow); otherwise it is
///   read back by walking up the tree.
/// - The parent code is not stored: it is the parent record's code.
/// - A code finds its record through an open-addressing hash table of record numbers.
struct AddressTable: Sendable {
    private static let inUseFlag: UInt8 = 1, fullAddressFlag: UInt8 = 2, formerNamesFlag: UInt8 = 4

    private(set) var levels: [AddressLevel] = []
    private var flags: [UInt8] = []
    private var xs: [Double] = []
    private var ys: [Double] = []
    /// The parent's record number, `-1` for a root or (while building) a parent not seen yet.
    private(set) var parents: [Int32] = []
    /// Where each record's texts start in `bytes`.
    private var offsets: [UInt32] = []
    private var bytes: [UInt8] = []
    /// Record number + 1 by code hash (0: empty), a power of two long, at most half full.
    private var slots: [Int32] = []
    /// The last parent's full address (records come grouped under their parent).
    private var lastParent: (index: Int32, fullAddress: String) = (-1, "")

    var count: Int { levels.count }

    /// Bytes the columns hold (their capacity), for the index's memory report.
    var memoryBytes: Int {
        levels.capacity + flags.capacity + 8 * (xs.capacity + ys.capacity) + 4 * (parents.capacity + offsets.capacity + slots.capacity)
            + bytes.capacity
    }

    // MARK: reading

    func level(_ i: Int32) -> AddressLevel { levels[Int(i)] }
    func inUse(_ i: Int32) -> Bool { flags[Int(i)] & Self.inUseFlag != 0 }
    func position(_ i: Int32) -> Position { Position(x: xs[Int(i)], y: ys[Int(i)]) }
    func parent(_ i: Int32) -> Int32 { parents[Int(i)] }

    func code(_ i: Int32) -> String { texts(i) { cursor in cursor.string() } }
    func name(_ i: Int32) -> String { texts(i) { cursor in cursor.skip(); return cursor.string() } }

    /// Former names (曾用名), usually none.
    func formerNames(_ i: Int32) -> [String] {
        let f = flags[Int(i)]
        guard f & Self.formerNamesFlag != 0 else { return [] }
        return texts(i) { cursor in
            cursor.skip()
            cursor.skip()
            if f & Self.fullAddressFlag != 0 { cursor.skip() }
            return (0..<cursor.varint()).map { _ in cursor.string() }
        }
    }

    /// The full address: stored, or the parent's full address followed by the record's name.
    func fullAddress(_ i: Int32) -> String {
        var names: [String] = []
        var n = i
        while n >= 0 {
            if flags[Int(n)] & Self.fullAddressFlag != 0 {
                let stored = texts(n) { cursor in cursor.skip(); cursor.skip(); return cursor.string() }
                return names.reversed().reduce(stored, +)
            }
            names.append(name(n))
            n = parents[Int(n)]
        }
        return names.reversed().joined()
    }

    /// The record as the geocoder answers it.
    func record(_ i: Int32) -> AddressRecord {
        let p = parents[Int(i)]
        return AddressRecord(code: code(i), parentCode: p >= 0 ? code(p) : nil, level: levels[Int(i)], name: name(i),
                             fullAddress: fullAddress(i), formerNames: formerNames(i), position: position(i), inUse: inUse(i))
    }

    /// The record numbered by `code`, if any (a hash lookup).
    func index(code: String) -> Int32? {
        var code = code
        return code.withUTF8 { find($0) }
    }

    // MARK: building

    /// Appends a record. Its parent is linked now when already appended, else by `link`.
    /// - Returns: the parent code still to link, if any.
    /// - Throws: `AddressDataError` when the code is already taken, or the texts reach 4 GB (the offsets are 32-bit).
    mutating func append(_ r: AddressRecord, record label: @autoclosure () -> String) throws -> String? {
        guard count < Int(Int32.max) - 1 else {
            throw AddressDataError(record: label(), "the address index holds \(count) records: more than one index can number")
        }
        let number = Int32(count)
        if index(code: r.code) != nil {
            throw AddressDataError(record: label(), field: "address_code", "duplicate address code \(r.code)")
        }
        let parent = r.parentCode.flatMap { index(code: $0) } ?? -1
        var f: UInt8 = r.inUse ? Self.inUseFlag : 0
        if parent >= 0 && lastParent.index != parent { lastParent = (parent, fullAddress(parent)) }
        let derived = parent >= 0 ? lastParent.fullAddress + r.name : r.name
        // A record whose parent comes later keeps its full address: the parent's is not known yet.
        if r.fullAddress != derived || (r.parentCode != nil && parent < 0) { f |= Self.fullAddressFlag }
        if !r.formerNames.isEmpty { f |= Self.formerNamesFlag }
        guard bytes.count < Int(UInt32.max) - (1 << 20) else {
            throw AddressDataError(record: label(), "the address index's texts reach 4 GB (\(count) records): more than one index can hold")
        }
        offsets.append(UInt32(bytes.count))
        put(r.code)
        put(r.name)
        if f & Self.fullAddressFlag != 0 { put(r.fullAddress) }
        if f & Self.formerNamesFlag != 0 {
            putVarint(r.formerNames.count)
            for n in r.formerNames { put(n) }
        }
        levels.append(r.level)
        flags.append(f)
        xs.append(r.position.x)
        ys.append(r.position.y)
        parents.append(parent)
        insert(number)
        return parent < 0 ? r.parentCode : nil
    }

    /// Links a record to a parent appended after it.
    /// - Returns: `false` when no record has `parentCode`.
    mutating func link(_ i: Int32, parentCode: String) -> Bool {
        guard let p = index(code: parentCode) else { return false }
        parents[Int(i)] = p
        return true
    }

    /// Releases the columns' spare capacity once every record is in.
    mutating func shrink() {
        func fit<T>(_ a: inout [T]) { a = Array(a) }
        fit(&levels); fit(&flags); fit(&xs); fit(&ys); fit(&parents); fit(&offsets); fit(&bytes)
        lastParent = (-1, "")
    }

    // MARK: storage

    private func texts<T>(_ i: Int32, _ read: (inout Cursor) -> T) -> T {
        bytes.withUnsafeBufferPointer { buffer in
            var cursor = Cursor(buffer: buffer, at: Int(offsets[Int(i)]))
            return read(&cursor)
        }
    }

    private mutating func put(_ s: String) {
        var s = s
        s.withUTF8 { utf8 in
            putVarint(utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }

    private mutating func putVarint(_ n: Int) {
        var v = UInt(n)
        while v >= 0x80 {
            bytes.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    private struct Cursor {
        let buffer: UnsafeBufferPointer<UInt8>
        var at: Int

        mutating func varint() -> Int {
            var v = 0, shift = 0
            while true {
                let b = buffer[at]
                at += 1
                v |= Int(b & 0x7F) << shift
                if b < 0x80 { return v }
                shift += 7
            }
        }

        mutating func string() -> String {
            let n = varint()
            defer { at += n }
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[at..<(at + n)]), as: UTF8.self)
        }

        mutating func skip() { at += varint() }

        /// The next text's bytes, without decoding them.
        mutating func raw() -> UnsafeBufferPointer<UInt8> {
            let n = varint()
            defer { at += n }
            return UnsafeBufferPointer(rebasing: buffer[at..<(at + n)])
        }
    }

    private static func hash(_ utf8: UnsafeBufferPointer<UInt8>) -> Int {
        var h = Hasher()
        h.combine(bytes: UnsafeRawBufferPointer(utf8))
        return h.finalize()
    }

    private func find(_ utf8: UnsafeBufferPointer<UInt8>) -> Int32? {
        guard !slots.isEmpty else { return nil }
        let mask = slots.count - 1
        var s = Self.hash(utf8) & mask
        while slots[s] != 0 {
            let candidate = slots[s] - 1
            let equal = texts(candidate) { cursor in cursor.raw().elementsEqual(utf8) }
            if equal { return candidate }
            s = (s + 1) & mask
        }
        return nil
    }

    private mutating func insert(_ i: Int32) {
        if 2 * count > slots.count { rehash(Swift.max(1024, 4 * count)) ; return }
        place(i)
    }

    private mutating func place(_ i: Int32) {
        let mask = slots.count - 1
        var s = texts(i) { cursor in Self.hash(cursor.raw()) } & mask
        while slots[s] != 0 { s = (s + 1) & mask }
        slots[s] = i + 1
    }

    private mutating func rehash(_ size: Int) {
        var n = 1
        while n < size { n <<= 1 }
        slots = [Int32](repeating: 0, count: n)
        for i in 0..<Int32(count) { place(i) }
    }
}
