import Foundation
import Testing
@testable import TwinStore

/// Ids of features that come without one are UUID version 7 (RFC 9562): valid UUIDs whose text
/// sorts in the order they were made, stamped with the current time.
@Suite("Generated feature ids: UUID version 7")
struct FeatureIDGeneratorTests {
    @Test
    func idsAreVersionSevenUUIDsStampedNow() throws {
        let before = UInt64(Date().timeIntervalSince1970 * 1000)
        let id = FeatureIDGenerator().next()
        let after = UInt64(Date().timeIntervalSince1970 * 1000)
        #expect(id.count == 36)
        #expect(id == id.lowercased())
        let uuid = try #require(UUID(uuidString: id))
        let bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
        #expect(bytes[6] >> 4 == 7)            // version
        #expect(bytes[8] >> 6 == 0b10)         // variant
        let stamp = bytes[0..<6].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        #expect(stamp >= before && stamp <= after + 1)
    }

    @Test
    func idsFromOneGeneratorIncreaseEvenWithinAMillisecond() {
        // Far more ids than the 12-bit counter holds in one millisecond: the counter runs out
        // and the timestamp moves on, and the order still holds.
        let g = FeatureIDGenerator()
        let ids = (0..<50_000).map { _ in g.next() }
        #expect(zip(ids, ids.dropFirst()).allSatisfy { $0 < $1 })
        #expect(Set(ids).count == ids.count)
    }

    @Test
    func theSharedGeneratorGivesDistinctIdsAcrossThreads() async {
        let ids = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<4 { group.addTask { (0..<5_000).map { _ in FeatureIDGenerator.next() } } }
            var all = [String]()
            for await part in group {
                #expect(zip(part, part.dropFirst()).allSatisfy { $0 < $1 })
                all += part
            }
            return all
        }
        #expect(Set(ids).count == 20_000)
    }

    @Test
    func theTextIsTheFieldsInOrder() {
        let text = FeatureIDGenerator.text(millisecond: 0x0189_0A1B_2C3D, counter: 0xABC, random: 0xFFFF_FFFF_FFFF_FFFF)
        #expect(text == "01890a1b-2c3d-7abc-bfff-ffffffffffff")
    }
}
