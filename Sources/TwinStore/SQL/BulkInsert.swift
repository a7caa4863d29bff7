import Foundation
import GeoCore

/// Hands out the next chunk of features of a bulk insert, or `nil` at the end. It is called
/// repeatedly on one background thread (never concurrently), so it may read a file.
public typealias FeatureChunkReader = @Sendable () throws -> [Feature]?

/// A store that loads a large insert chunk by chunk inside ONE transaction: the whole set lands
/// or nothing does, exactly as `FeatureStore.insert` with all the features at once (the same
/// validation, versions, audit chain and change events, in the same order), without holding
/// every feature in memory. Both SQL backends conform.
public protocol BulkFeatureLoading: FeatureStore {
    /// Inserts every feature `next` hands out into `layer` at one instant (`at`, default now).
    ///
    /// Chunks are read on one thread and validated, encoded and hashed on another while the
    /// previous chunk is written, so reading, preparing and writing overlap.
    /// - Returns: the number of features inserted.
    /// - Throws: the reader's error (nothing written), `StoreError` as `insert` does.
    func insert(layer: String, chunks next: @escaping FeatureChunkReader, by caller: Caller, at: Date?) async throws -> Int
}

extension BulkFeatureLoading {
    /// Inserts `features`, held in memory, through the bulk path `chunkSize` at a time: the same
    /// result as `insert(layer:features:by:at:)`, with the bulk path's prepared statements and
    /// set-wise spatial index (a generated district's layers, say).
    /// - Returns: the number of features inserted.
    public func insert(layer: String, features: [Feature], chunkSize: Int, by caller: Caller, at: Date?) async throws -> Int {
        let chunks = ArrayChunks(features, size: max(1, chunkSize))
        return try await insert(layer: layer, chunks: { chunks.next() }, by: caller, at: at)
    }
}

/// An array's features handed out `size` at a time to a bulk insert's reading thread.
private final class ArrayChunks: @unchecked Sendable {
    private let features: [Feature]
    private let size: Int
    private var offset = 0
    private let lock = NSLock()

    init(_ features: [Feature], size: Int) {
        self.features = features
        self.size = size
    }

    func next() -> [Feature]? {
        lock.withLock {
            guard offset < features.count else { return nil }
            let end = min(offset + size, features.count)
            defer { offset = end }
            return Array(features[offset..<end])
        }
    }
}

extension WriteBatch {
    /// The insert batch of one chunk, at the instant and by the author of `template` (the
    /// checked, empty batch of the whole bulk insert).
    init(chunk: [PreparedFeature], of template: WriteBatch) {
        self.layer = template.layer
        self.time = template.time
        self.actor = template.actor
        self.department = template.department
        self.role = template.role
        self.features = chunk
        self.sources = []
        self.caller = template.caller
        self.deletions = []
        self.isInsert = true
    }

    /// The checked, empty insert batch a bulk insert's chunks copy their instant and author from.
    static func bulkTemplate(layer definition: LayerDefinition?, named layer: String, by caller: Caller, at: Date?) throws -> WriteBatch {
        let template = try WriteBatch(layer: definition, named: layer, mode: .insert([]), by: caller, at: at)
        // A bulk load writes features as given: into a co-built layer, only for those who write every feature.
        guard template.layer.coBuilt == nil || template.writesEveryFeature else {
            throw StoreError(.forbidden, "a bulk load into co-built layer \"\(layer)\" is for \(template.layer.owner)'s editors or the admin; other departments insert their features one batch at a time", layer: layer)
        }
        return template
    }
}

/// One chunk of a bulk insert, prepared: the features and, in the same order, the hash of
/// each one's audit entry (an insert: no before hash), chained from the entry before it, and
/// the rows as the backend sends them (`PreparedChunks`' `encode`; `Void` when it has none).
struct PreparedChunk<Encoded: Sendable>: Sendable {
    var features: [PreparedFeature]
    var entryHashes: [String]
    var encoded: Encoded
}

/// The chunks of a bulk insert, read on one thread (the reader is never called concurrently),
/// validated and prepared (`PreparedFeature`: canonical properties, WKB, envelope, hash) with
/// their audit entries hashed on a second, at most `depth` chunks ahead of the writer and the
/// reader at most one chunk ahead of the preparation: reading (parsing, transforming) and
/// preparing cost about the same, and each alone is slower than the writer. A backend that
/// sends rows as bytes (PostGIS's COPY text) has them encoded there too (`encode`), so its
/// writer only streams them and the server never waits for the encoding. The audit chain
/// starts at the newest entry inside the writer's transaction, so the writer hands it over
/// with `start(chain:key:)`; the thread reads and validates the first chunk meanwhile. The writer
/// calls `next()` until `nil` and `stop()` when it leaves (also on error), which ends the thread.
///
/// A bulk insert only inserts: its plan is one new version and one insert change per feature
/// in order, or an error, so the audit hashes computed here are the ones
/// `WriteBatch.auditRows` gives for the same plan.
final class PreparedChunks<Encoded: Sendable>: @unchecked Sendable {
    /// Encodes a prepared chunk's features and audit entry hashes for the writer.
    typealias Encode = @Sendable (_ features: [PreparedFeature], _ entryHashes: [String]) -> Encoded
    private let condition = NSCondition()
    private var ready: [PreparedChunk<Encoded>] = []
    private var finished = false
    private var stopped = false
    private var chainStart: String?
    /// The key the entries are signed with (`nil`: an unkeyed chain), handed over with `chainStart`.
    private var chainKey: AuditKey?
    private var failure: (any Error)?
    private let depth: Int
    /// Chunks read and not yet taken for preparation (at most one), and how reading ended:
    /// `readFailure` once the reader threw (after the chunks before it are taken).
    private var read: [[Feature]] = []
    private var readEnded = false
    private var readFailure: (any Error)?
    /// The reading thread is inside the reader: `stop()` waits for it to come out, so the
    /// reader's owner may use it again once the bulk insert returns.
    private var inReader = false
    /// A writer awaiting the next chunk (`nextChunk()`), resumed when one is ready or the
    /// preparation ends.
    private var waiter: CheckedContinuation<Void, Never>?

    /// Starts reading at once.
    init(template: WriteBatch, depth: Int = 2, reader: @escaping FeatureChunkReader, encode: @escaping Encode) {
        self.depth = depth
        let reading = Thread { [self] in readAll(reader) }
        reading.name = "citytwin.bulk-read"
        reading.stackSize = 8 << 20
        reading.start()
        let thread = Thread { [self] in produce(template, encode) }
        thread.name = "citytwin.bulk-insert"
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// The reading thread: chunk after chunk, at most one waiting, until the end, an error or `stop()`.
    private func readAll(_ reader: FeatureChunkReader) {
        while true {
            condition.lock()
            while read.count >= 1 && !stopped { condition.wait() }
            let stop = stopped
            if !stop { inReader = true }
            condition.unlock()
            if stop { break }
            let chunk: [Feature]?
            do {
                chunk = try reader()
            } catch {
                condition.lock()
                inReader = false
                readFailure = error
                readEnded = true
                condition.broadcast()
                condition.unlock()
                return
            }
            condition.lock()
            inReader = false
            if let chunk { read.append(chunk) } else { readEnded = true }
            condition.broadcast()
            condition.unlock()
            if chunk == nil { return }
        }
        condition.lock()
        readEnded = true
        condition.broadcast()
        condition.unlock()
    }

    /// The next chunk read, in order; `nil` at the end or once stopped.
    private func nextRead() throws -> [Feature]? {
        condition.lock()
        defer { condition.unlock() }
        while read.isEmpty && !readEnded && !stopped { condition.wait() }
        if stopped { return nil }
        if !read.isEmpty {
            condition.broadcast()
            return read.removeFirst()
        }
        if let readFailure { throw readFailure }
        return nil
    }

    private func produce(_ template: WriteBatch, _ encode: Encode) {
        let layer = template.layer
        var offset = 0
        var chain: String?
        var key: AuditKey?
        let ids = FeatureIDGenerator()
        do {
            while true {
                condition.lock()
                while ready.count >= depth && !stopped { condition.wait() }
                let stop = stopped
                condition.unlock()
                if stop { break }
                guard let features = try nextRead() else { break }
                var prepared = [PreparedFeature]()
                prepared.reserveCapacity(features.count)
                for (i, f) in features.enumerated() {
                    prepared.append(try PreparedFeature(f, layer: layer, index: offset + i, newID: ids.next))
                }
                offset += features.count
                if chain == nil {
                    condition.lock()
                    while chainStart == nil && !stopped { condition.wait() }
                    chain = chainStart
                    key = chainKey
                    condition.unlock()
                }
                guard var previous = chain else { break }
                var hashes = [String]()
                hashes.reserveCapacity(prepared.count)
                for f in prepared {
                    previous = AuditChain.entryHash(previous: previous, at: template.time, actor: template.actor,
                                                    department: template.department, role: template.role, layer: layer.id,
                                                    featureID: f.id, kind: .insert, before: nil, after: f.hash, key: key)
                    hashes.append(previous)
                }
                chain = previous
                let encoded = encode(prepared, hashes)
                condition.lock()
                ready.append(PreparedChunk(features: prepared, entryHashes: hashes, encoded: encoded))
                condition.broadcast()
                let writer = takeWaiter()
                condition.unlock()
                writer?.resume()
            }
            finish(nil)
        } catch {
            finish(error)
        }
    }

    private func finish(_ error: (any Error)?) {
        condition.lock()
        failure = error
        finished = true
        condition.broadcast()
        let writer = takeWaiter()
        condition.unlock()
        writer?.resume()
    }

    /// The waiting writer, no longer waiting (called with the lock held; resumed after it is released).
    private func takeWaiter() -> CheckedContinuation<Void, Never>? {
        defer { waiter = nil }
        return waiter
    }

    /// Hands over the newest audit entry hash (read inside the writer's transaction, or the
    /// genesis hash): the first chunk's entries chain from it.
    func start(chain previous: String, key: AuditKey?) {
        condition.lock()
        chainStart = previous
        chainKey = key
        condition.broadcast()
        condition.unlock()
    }

    /// The next prepared chunk in reading order (waits for it, blocking the calling thread); `nil`
    /// at the end. For a writer on a thread of its own (SpatiaLite's writer queue).
    /// - Throws: the reader's or validation's error once the chunks before it are taken.
    func next() throws -> PreparedChunk<Encoded>? {
        condition.lock()
        defer { condition.unlock() }
        while ready.isEmpty && !finished { condition.wait() }
        return try take()
    }

    /// `next()` for a writer in a Swift task: it is suspended, not parked on a thread, while the
    /// chunk is prepared. (Waiting on a Dispatch thread instead takes a thread of the pool the
    /// cooperative executor runs on, on Linux; several bulk inserts at once took all of them.)
    func nextChunk() async throws -> PreparedChunk<Encoded>? {
        while true {
            let outcome = condition.withLock { () -> Result<PreparedChunk<Encoded>?, any Error>? in
                guard !ready.isEmpty || finished else { return nil }
                return Result { try take() }
            }
            if let outcome { return try outcome.get() }
            await withCheckedContinuation { (k: CheckedContinuation<Void, Never>) in
                let now = condition.withLock { () -> Bool in
                    guard ready.isEmpty && !finished else { return true }
                    waiter = k
                    return false
                }
                if now { k.resume() }
            }
        }
    }

    /// The first ready chunk, or the end (`nil`, or the failure); called with the lock held once
    /// a chunk is ready or the preparation finished.
    private func take() throws -> PreparedChunk<Encoded>? {
        if !ready.isEmpty {
            let chunk = ready.removeFirst()
            condition.broadcast()
            return chunk
        }
        if let failure { throw failure }
        return nil
    }

    /// Tells the threads to end (after their current chunk); returns once the reading thread
    /// is out of the reader.
    func stop() {
        condition.lock()
        stopped = true
        ready.removeAll()
        read.removeAll()
        condition.broadcast()
        while inReader { condition.wait() }
        condition.unlock()
    }
}

extension PreparedChunks where Encoded == Void {
    /// Chunks the writer binds itself (nothing encoded ahead).
    convenience init(template: WriteBatch, depth: Int = 2, reader: @escaping FeatureChunkReader) {
        self.init(template: template, depth: depth, reader: reader) { _, _ in () }
    }
}
