import GeoCore
import Testing
@testable import CityModel
import TestSupport

@Suite("Standard address tree")
struct AddressTreeTests {
    /// Depth of each level in the DB42/T 2175 tree (街路巷 and 院落 share a depth).
    static let depth: [String: Int] = ["区县": 0, "乡镇街道": 1, "社区/村": 2, "街路巷": 3, "院落": 3, "门牌": 4,
                                       "楼栋": 5, "单元": 6, "楼层": 7, "户室": 8]

    func depth(_ level: String) -> Int { Self.depth[level] ?? -99 }

    @Test("codes are unique, every parent resolves, and children extend their parent's code one level down")
    func strictTree() throws {
        let addresses = try generatedDistrict()[layer: "addresses"]
        var byCode: [String: [String: JSONValue]] = [:]
        for a in addresses {
            let code = try #require(a.properties["address_code"]?.stringValue)
            #expect(byCode[code] == nil, "duplicate \(code)")
            byCode[code] = a.properties
        }
        var roots = 0, children: [String: Int] = [:]
        for (code, p) in byCode {
            guard let parent = p["parent_code"]?.stringValue else {
                roots += 1
                #expect(p["level"] == "区县")
                continue
            }
            children[parent, default: 0] += 1
            let up = try #require(byCode[parent], "\(code) has no parent \(parent)")
            #expect(code.hasPrefix(parent) && code.count > parent.count)
            let level = p["level"]?.stringValue ?? "", parentLevel = up["level"]?.stringValue ?? ""
            // One level down, except a whole road (街路巷) under the 乡镇街道: it crosses communities.
            #expect(depth(level) == depth(parentLevel) + 1 || (level == "街路巷" && parentLevel == "乡镇街道"),
                    "\(code): \(parentLevel) → \(level)")
            let full = p["full_address"]?.stringValue ?? "", parentFull = up["full_address"]?.stringValue ?? ""
            #expect(full.hasPrefix(parentFull) && full.hasSuffix(p["name"]?.stringValue ?? "?"))
        }
        #expect(roots == 1)
        for (code, p) in byCode { #expect(p["is_leaf"]?.boolValue == (children[code] == nil), "\(code) leaf flag") }
    }

    @Test("the tree reaches 户室 under every residential 楼栋 and every building links to its 楼栋")
    func buildingsLinkToTheTree() throws {
        let d = try generatedDistrict()
        let byCode = Dictionary(uniqueKeysWithValues: d[layer: "addresses"].compactMap { a in
            a.properties["address_code"]?.stringValue.map { ($0, a.properties) }
        })
        for b in d[layer: "buildings"] {
            let code = b.properties["address_code"]?.stringValue ?? ""
            #expect(byCode[code]?["level"] == "楼栋", "\(b.id?.description ?? "") links to \(code)")
        }
        let rooms = d[layer: "addresses"].filter { $0.properties["level"] == "户室" }
        #expect(rooms.count > 10_000)
        // Retired rooms keep their code, carry an end date and are not counted as households.
        let retired = rooms.filter { $0.properties["status"] == "停用" }
        #expect(!retired.isEmpty && retired.allSatisfy { $0.properties["valid_to"]?.stringValue != nil })
        let counted = Set(d[layer: "population_by_address"].compactMap { $0.properties["address_code"]?.stringValue })
        #expect(retired.allSatisfy { !counted.contains($0.properties["address_code"]?.stringValue ?? "") })
        #expect(counted.count == rooms.count - retired.count)
    }

    @Test("geocodes follow the GB/T 39609 region layout and 12-digit community codes match the divisions")
    func geocodes() throws {
        let d = try generatedDistrict()
        let divisions = Set(d[layer: "admin_divisions"].compactMap { $0.properties["code"]?.stringValue })
        for a in d[layer: "addresses"].prefix(3000) {
            let g = a.properties["geocode"]?.stringValue ?? ""
            #expect(g.split(separator: "-").map(\.count) == [12, 4, 7, 9], "\(g)")
            if a.properties["level"] == "社区/村" { #expect(divisions.contains(a.properties["address_code"]?.stringValue ?? "")) }
        }
    }
}
