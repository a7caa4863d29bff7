import CityModel
import Foundation
import GeoCore
import TestSupport
import TwinStore

/// The sample district in a SpatiaLite store of the governance suites' own, built once per test process.
enum GovernanceDistrict {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A district store of its own for each name (one suite seeds defects into its copy).
    static func store(_ name: String) async throws -> (SpatiaLiteStore, String) {
        let dir = try TemporaryDirectory.forProcess("governance-" + name)
        let path = dir.appending("district.sqlite").path
        let store = try SpatiaLiteStore(path: path)
        dir.closeBeforeRemoval { try? store.close() }
        try await DistrictLoader.build(into: store, layersDirectory: repository.appendingPathComponent("Layers"), dem: false)
        return (store, path)
    }

    /// Runs `sql` on the store's file with the `sqlite3` shell: a change made behind the store's
    /// back, as data edited outside CityTwin or imported before a rule existed would be.
    static func sqlite(_ path: String, _ sql: String) async throws {
        let shell = try await CommandProcess.run("/usr/bin/sqlite3", ["-batch", path, sql], separateErrors: true, within: 120)
        guard shell.exitStatus == 0 else { throw HarnessFailure("sqlite3 \(sql): exit \(shell.exitStatus): \(shell.errors)") }
    }
}
