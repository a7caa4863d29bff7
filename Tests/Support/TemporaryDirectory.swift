import Foundation
import Testing
import TwinStore

/// A directory of the tests' own under the system's temporary directory, removed with everything
/// in it when its owner ends, passed, failed or thrown: the tests' one way to use temporary files
/// (a dev machine's /tmp held thousands of stores and files that earlier runs left behind).
///
/// - `withTemporaryDirectory("name") { dir in … }`: for what one closure uses.
/// - `TemporaryDirectory.forTestCase("name")`: for a fixture that hands out something living in it
///   (a store): made inside the running test case's directory and removed when the case ends. The
///   case's suite carries the `.temporaryDirectories` trait (`.dropsTestSchemas` in TwinStoreTests).
/// - `TemporaryDirectory.forProcess("name")`: for a fixture the whole run shares (a `static let`
///   task): removed when the test process exits.
///
/// A store is opened in it with `openStore(_:)`, which closes the store before the directory is
/// removed: an SQLite file is never removed under an open connection.
public final class TemporaryDirectory: @unchecked Sendable {
    public let url: URL
    private let lock = NSLock()
    /// Run (newest first) before the directory is removed: stores to close, directories made inside.
    private var closers: [@Sendable () -> Void] = []

    /// The directory of the running test case (`.temporaryDirectories`), if any.
    @TaskLocal static var testCase: TemporaryDirectory?

    /// A new directory `<prefix>-<UUID>` in `parent` (by default the system's temporary directory).
    init(_ prefix: String, in parent: URL = FileManager.default.temporaryDirectory) throws {
        url = parent.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public var path: String { url.path }

    /// The URL of `name` in the directory.
    public func appending(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// Runs `close` before the directory is removed (after what was registered later).
    public func closeBeforeRemoval(_ close: @escaping @Sendable () -> Void) {
        lock.withLock { closers.append(close) }
    }

    /// A SpatiaLite store in the file `name` of the directory, closed before the directory is removed;
    /// its audit key as `SpatiaLiteStore` finds it, unless given.
    public func openStore(_ name: String = "city.sqlite", auditKey: AuditKeySource = .automatic) throws -> SpatiaLiteStore {
        let store = try SpatiaLiteStore(path: appending(name).path, auditKey: auditKey)
        closeBeforeRemoval { try? store.close() }
        return store
    }

    /// Closes what was registered, then removes the directory with everything in it.
    func remove() {
        let pending = lock.withLock {
            defer { closers = [] }
            return closers
        }
        for close in pending.reversed() { close() }
        try? FileManager.default.removeItem(at: url)
    }

    /// A new directory inside the running test case's one, removed when the case ends.
    public static func forTestCase(_ prefix: String) throws -> TemporaryDirectory {
        guard let parent = testCase else {
            throw HarnessFailure("a temporary directory for a test case needs the .temporaryDirectories trait on its suite")
        }
        let directory = try TemporaryDirectory(prefix, in: parent.url)
        parent.closeBeforeRemoval { directory.remove() }
        return directory
    }

    /// A new directory removed when the test process exits, for a fixture shared by the whole run.
    public static func forProcess(_ prefix: String) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory(prefix)
        ProcessDirectories.add(directory)
        return directory
    }

    /// Runs `body` with a directory of its own for each test case (`forTestCase`), removed when it ends.
    public static func withTestCaseScope(_ body: @Sendable () async throws -> Void) async throws {
        try await withTemporaryDirectory("citytwin-test") { directory in
            try await $testCase.withValue(directory) { try await body() }
        }
    }
}

/// Runs `body` with a new temporary directory `<prefix>-<UUID>`; removes it (after closing the
/// stores opened in it) when `body` returns or throws.
public func withTemporaryDirectory<T>(_ prefix: String, isolation: isolated (any Actor)? = #isolation,
                                      _ body: (TemporaryDirectory) async throws -> T) async throws -> T {
    let directory = try TemporaryDirectory(prefix)
    defer { directory.remove() }
    return try await body(directory)
}

/// Runs `body` with a new temporary directory `<prefix>-<UUID>`; removes it when `body` returns or throws.
public func withTemporaryDirectory<T>(_ prefix: String, _ body: (TemporaryDirectory) throws -> T) throws -> T {
    let directory = try TemporaryDirectory(prefix)
    defer { directory.remove() }
    return try body(directory)
}

/// The directories of `TemporaryDirectory.forProcess`, removed by an `atexit` handler.
private enum ProcessDirectories {
    nonisolated(unsafe) static var directories: [TemporaryDirectory] = []
    nonisolated(unsafe) static var registered = false
    static let lock = NSLock()

    static func add(_ directory: TemporaryDirectory) {
        lock.withLock {
            if !registered { atexit { ProcessDirectories.removeAll() } }
            registered = true
            directories.append(directory)
        }
    }

    static func removeAll() {
        let all = lock.withLock {
            defer { directories = [] }
            return directories
        }
        for directory in all.reversed() { directory.remove() }
    }
}

/// Gives every test case of the suite (or the test) its own temporary directory
/// (`TemporaryDirectory.forTestCase`), removed when the case ends, passed or failed.
public struct TemporaryDirectories: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        guard testCase != nil else { return try await function() }
        try await TemporaryDirectory.withTestCaseScope(function)
    }
}

extension Trait where Self == TemporaryDirectories {
    /// Each test case has a temporary directory of its own, removed when it ends.
    public static var temporaryDirectories: Self { TemporaryDirectories() }
}
