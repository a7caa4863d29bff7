@testable import FloodSim
import Foundation
import SWMMFormat
import Testing

/// Parameters SWMM 5.2.4 refuses are refused here with the same SWMM error number, the section
/// and the field. Each file of Fixtures/swmm/errors was run through swmm-toolkit 0.17.0 by
/// Scripts/reference/make_swmm_error_fixtures.py, which checked SWMM stops with exactly that error
/// and recorded it in errors.json; the base model those files vary (ok.inp) runs in both.
@Suite("SWMM input SWMM refuses is refused with SWMM's error number")
struct SWMMValidationTests {
    struct Expected: Decodable { var error: Int; var section: String; var field: String }

    static let expected: [String: Expected] = {
        guard let url = Bundle.module.url(forResource: "errors", withExtension: "json", subdirectory: "Fixtures/swmm/errors"),
              let data = try? Data(contentsOf: url), let table = try? JSONDecoder().decode([String: Expected].self, from: data)
        else { return [:] }
        return table
    }()

    static func url(_ name: String) throws -> URL {
        try #require(Bundle.module.url(forResource: name, withExtension: "inp", subdirectory: "Fixtures/swmm/errors"))
    }

    @Test("every SWMM error case is listed (Scripts/reference/make_swmm_error_fixtures.py)")
    func listed() {
        #expect(Self.expected.count >= 20)
        #expect(Set(Self.expected.values.map(\.error)) == [113, 138, 171, 173, 191, 235])
    }

    @Test("the base model SWMM runs is read and run")
    func base() throws {
        let url = try Self.url("ok")
        let result = try DrainageRun.run(try SWMMModel(contentsOf: url), baseDirectory: url.deletingLastPathComponent())
        #expect(result.runoff.rainfall > 0)
    }

    @Test("refused as SWMM refuses it", arguments: expected.keys.sorted())
    func refused(_ name: String) throws {
        let want = try #require(Self.expected[name])
        #expect(name.hasPrefix("error\(want.error)_"), "the case names its SWMM error number")
        let url = try Self.url(name)
        do {
            _ = try SWMMModel(contentsOf: url)
            Issue.record("\(name): read without an error; SWMM stops with ERROR \(want.error)")
        } catch let e as SWMMInputError {
            #expect(e.reason.contains("SWMM's ERROR \(want.error)"), "\(name): \(e)")
            #expect(e.section == want.section, "\(name): \(e)")
            #expect(e.field == want.field, "\(name): \(e)")
        }
    }
}
