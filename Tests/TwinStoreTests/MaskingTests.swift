import Foundation
import GeoCore
import Testing
@testable import TwinStore

@Suite("Access rules and attribute masking")
struct MaskingTests {
    @Test func partialMaskingKeepsOnlyTheEnds() {
        #expect(AttributeMask.partial("13812345678") == "138****5678")
        #expect(AttributeMask.partial("张三") == "张*")
        #expect(AttributeMask.partial("欧阳娜娜") == "欧***")
        #expect(AttributeMask.partial("") == "")
        #expect(AttributeMask.partial(nil) == nil)
    }

    @Test func theAccessTableFollowsSharingClassAndNegativeList() throws {
        let layers = Dictionary(uniqueKeysWithValues: Fixtures.allLayers.map { ($0.id, $0) })
        let shelters = try #require(layers["shelters"]), districts = try #require(layers["districts"])
        let wells = try #require(layers["wells"]), reserves = try #require(layers["reserves"])
        #expect(AccessPolicy.canRead(shelters, .anonymous))
        #expect(!AccessPolicy.canRead(districts, .anonymous))
        #expect(AccessPolicy.canRead(districts, Fixtures.water))
        #expect(!AccessPolicy.canRead(wells, Fixtures.emergency))
        #expect(AccessPolicy.canRead(wells, Fixtures.water))
        #expect(!AccessPolicy.canRead(reserves, .anonymous))
        #expect(!AccessPolicy.canRead(reserves, Fixtures.fire))
        #expect(AccessPolicy.canRead(reserves, Fixtures.emergencyViewer))
        #expect(AccessPolicy.canRead(reserves, .admin))
        #expect(AccessPolicy.canWrite(shelters, Fixtures.emergency))
        #expect(!AccessPolicy.canWrite(shelters, Fixtures.emergencyViewer))
        #expect(!AccessPolicy.canWrite(shelters, Fixtures.fire))
        #expect(AccessPolicy.canWrite(shelters, .admin))
    }

    @Test func sha256MatchesTheFIPSVectors() {
        #expect(SHA256.hex([UInt8]()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }
}

@Suite("SHA-256 over data fed in pieces")
struct SHA256StreamingTests {
    @Test func aMillionAsInUnevenPiecesMatchesTheFIPSVector() {
        var h = SHA256()
        let piece = [UInt8](repeating: UInt8(ascii: "a"), count: 997)
        var fed = 0
        while fed < 1_000_000 {
            let n = min(piece.count - fed % 13, 1_000_000 - fed)
            h.update(piece.prefix(n))
            fed += n
        }
        #expect(SHA256.hexString(h.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}
