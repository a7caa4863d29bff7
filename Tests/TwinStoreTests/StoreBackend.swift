import Foundation
import TestSupport
import Testing
import TwinStore

/// The backends the store suite runs against. Every `@Test(arguments: StoreBackend.available)`
/// runs once per backend, so SpatiaLite and PostGIS are held to the same behaviour.
///
/// PostGIS runs when `CITYTWIN_TEST_POSTGRES_URL` names a test database (`Scripts/test.sh`
/// starts one). Under CI (`CI` set) the URL is mandatory: its absence fails every PostGIS
/// case instead of silently skipping them.
enum StoreBackend: String, CaseIterable, CustomStringConvertible, Sendable {
    case spatiaLite
    case postGIS

    var description: String { rawValue }

    static var postgresURL: String? {
        ProcessInfo.processInfo.environment["CITYTWIN_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    static var available: [StoreBackend] {
        postgresURL != nil || ProcessInfo.processInfo.environment["CI"] != nil ? allCases : [.spatiaLite]
    }

    /// The audit key of every store the suite makes, on both backends: their chains are keyed, and
    /// two stores given the same writes hold the same audit entries (hashes included).
    static let auditKey: AuditKey = {
        do { return try AuditKey(text: "the TwinStore suite's audit key, not a secret") } catch { fatalError("\(error)") }
    }()

    /// A new, empty store with the fixture layers created, removed when the test case ends
    /// (`.dropsTestSchemas`); its audit chain keyed with `auditKey`.
    func makeStore(layers: [LayerDefinition] = Fixtures.allLayers) async throws -> any FeatureStore {
        let store: any FeatureStore
        switch self {
        case .spatiaLite:
            store = try TemporaryDirectory.forTestCase("twinstore").openStore(auditKey: .key(Self.auditKey))
        case .postGIS:
            // A fresh schema per store on one shared pool.
            let schema = "twin_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(24)
            let pg = try await TestDatabase.shared.pool().store(inSchema: String(schema), auditKey: .key(Self.auditKey))
            await CreatedSchemas.current?.add(pg)
            store = pg
        }
        for def in layers { try await store.createLayer(def) }
        return store
    }
}

/// One connection pool to the test database for the whole test process.
actor TestDatabase {
    static let shared = TestDatabase()
    private var base: PostGISStore?

    func pool() async throws -> PostGISStore {
        if let base { return base }
        guard let url = StoreBackend.postgresURL else {
            throw TestDatabaseMissing()
        }
        // Every case of the process shares these 8 connections: one may wait behind others' bulk
        // loads far longer than a server request would (`unavailable` after the default 5 s).
        let store = try await PostGISStore.connect(url: url, schema: "twin_pool", maximumConnections: 8, connectionWait: .seconds(600))
        base = store
        return store
    }
}

struct TestDatabaseMissing: Error, CustomStringConvertible {
    var description: String {
        "CI is set but CITYTWIN_TEST_POSTGRES_URL is not: the PostGIS backend must be tested in CI (Scripts/test.sh starts it)"
    }
}

/// The PostGIS schemas made by one test case, dropped when it ends (`DropsTestSchemas`).
actor CreatedSchemas {
    @TaskLocal static var current: CreatedSchemas?
    private var stores: [PostGISStore] = []

    func add(_ store: PostGISStore) { stores.append(store) }

    func dropAll() async {
        for s in stores { try? await s.dropSchema() }
        stores = []
    }
}

/// Drops the schemas `StoreBackend.postGIS.makeStore` created in each test case once the case
/// ends, passed or failed, so the test database does not fill with `twin_…` schemas; closes and
/// removes its SpatiaLite stores likewise (`TemporaryDirectory.forTestCase`).
struct DropsTestSchemas: TestTrait, SuiteTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        guard testCase != nil else { return try await function() }
        let created = CreatedSchemas()
        try await TemporaryDirectory.withTestCaseScope {
            try await CreatedSchemas.$current.withValue(created) {
                do {
                    try await function()
                } catch {
                    await created.dropAll()
                    throw error
                }
                await created.dropAll()
            }
        }
    }
}

extension Trait where Self == DropsTestSchemas {
    /// Drops the PostGIS test schemas of each test case when it ends.
    static var dropsTestSchemas: Self { DropsTestSchemas() }
}
