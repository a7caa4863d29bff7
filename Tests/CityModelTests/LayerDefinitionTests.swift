import GeoCore
import Testing
@testable import CityModel
import TestSupport
import TwinStore

@Suite("Layer definitions")
struct LayerDefinitionTests {
    @Test("every definition file carries the eight catalogue fields of the Huangshi plan")
    func catalogueFields() throws {
        let files = try LayerDefinitionFile.all()
        #expect(files.count >= 31)
        for f in files {
            let j = f.json
            #expect(j["id"]?.stringValue == f.id, "\(f.id): id must match the file name")
            #expect(j["title"]?["zh"]?.stringValue?.isEmpty == false, "\(f.id): title.zh")
            #expect(j["title"]?["en"]?.stringValue?.isEmpty == false, "\(f.id): title.en")
            // 分类, 责任方, 格式, 属性, 更新时限, 共享类型, 共享方式, 使用要求.
            #expect(["时空基础", "资源调查", "规划管控", "工程建设项目", "公共专题", "物联感知"].contains(j["category"]?.stringValue ?? ""), "\(f.id): category")
            #expect(j["owner"]?.stringValue?.hasSuffix("局") == true || j["owner"]?.stringValue?.hasSuffix("委员会") == true
                    || j["owner"]?.stringValue?.hasSuffix("大队") == true, "\(f.id): owner")
            #expect(j["format"]?.stringValue == "vector", "\(f.id): format")
            #expect((j["schema"]?["properties"]?.objectValue?.count ?? 0) > 0, "\(f.id): attributes")
            #expect(["realtime", "daily", "monthly", "quarterly", "yearly", "as-needed"].contains(j["updateFrequency"]?.stringValue ?? ""), "\(f.id): updateFrequency")
            #expect(["open", "shared", "conditional", "not-shared"].contains(j["sharing"]?["type"]?.stringValue ?? ""), "\(f.id): sharing.type")
            #expect(["api", "download", "sandbox"].contains(j["sharing"]?["method"]?.stringValue ?? ""), "\(f.id): sharing.method")
            #expect(j["sharing"]?["requirements"]?.stringValue?.isEmpty == false, "\(f.id): sharing.requirements")
            #expect(j["storageCRS"]?.stringValue == "EPSG:4490")
            #expect(j["negativeList"]?.boolValue != nil)
            #expect(j["sensitive"]?.arrayValue != nil)
            // Every required attribute is declared, and every sensitive attribute exists.
            let declared = j["schema"]?["properties"]?.objectValue ?? [:]
            for case .string(let r) in j["schema"]?["required"]?.arrayValue ?? [] { #expect(declared[r] != nil, "\(f.id): required \(r) undeclared") }
            for s in j["sensitive"]?.arrayValue ?? [] {
                #expect(declared[s["attribute"]?.stringValue ?? ""] != nil, "\(f.id): sensitive attribute undeclared")
                #expect(MaskRule(rawValue: s["mask"]?.stringValue ?? "") != nil, "\(f.id): unknown mask")
            }
        }
    }

    @Test("the resident-population layer is on the negative list and never shared")
    func negativeList() throws {
        let files = try LayerDefinitionFile.all()
        let negative = files.filter { $0.json["negativeList"]?.boolValue == true }
        #expect(negative.map(\.id) == ["population_by_address"])
        #expect(negative.first?.json["sharing"]?["type"]?.stringValue == "not-shared")
    }

    @Test("shelter phones, water-account holders and plates are masked, each by its kind's rule (issue 78 §18)")
    func sensitiveAttributes() throws {
        let files = Dictionary(uniqueKeysWithValues: try LayerDefinitionFile.all().map { ($0.id, $0.json) })
        let shelter = files["shelters"]?["sensitive"]?.arrayValue ?? []
        #expect(shelter.contains { $0["attribute"] == "contact_phone" && $0["mask"] == "phone" })
        let water = (files["water_connections"]?["sensitive"]?.arrayValue ?? []).compactMap { $0["attribute"]?.stringValue }
        #expect(Set(water) == ["account_holder", "phone"])
        let masks = files.values.flatMap { $0["sensitive"]?.arrayValue ?? [] }.map { ($0["attribute"]?.stringValue ?? "", $0["mask"]?.stringValue ?? "") }
        #expect(masks.allSatisfy { $0.1 != "partial" }, "a sample attribute still masked by the generic rule: \(masks)")
        #expect(masks.contains { $0 == ("plate", "plate") } && masks.contains { $0 == ("account_holder", "name") })
    }

    @Test("every generated feature satisfies its layer's schema and geometry type")
    func featuresMatchSchemas() throws {
        let district = try generatedDistrict()
        let files = try LayerDefinitionFile.all()
        // A planner's LID plan is the city's to draw, a road closure the duty officer's: the sample district ships neither.
        let emptyByDesign: Set<String> = ["lid_facilities", "road_closures"]
        #expect(Set(district.layers.keys).union(emptyByDesign) == Set(files.map(\.id)), "one generated layer per definition")
        for f in files {
            guard let schema = f.schema else { Issue.record("\(f.id) has no schema"); continue }
            let features = district[layer: f.id]
            #expect(!features.isEmpty || emptyByDesign.contains(f.id), "\(f.id) is empty")
            var reported = 0
            for feature in features {
                let problems = schemaViolations(feature.properties, schema: schema)
                let geometry = geometryTypeName(feature.geometry)
                if (!problems.isEmpty || geometry != f.geometryType) && reported < 3 {
                    reported += 1
                    Issue.record("\(f.id) \(feature.id?.description ?? "?"): \(problems) geometry \(geometry ?? "null") vs \(f.geometryType ?? "null")")
                }
            }
        }
    }

    @Test("the schema check rejects a missing field, a wrong type and a value outside the enum")
    func schemaCheckCanFail() throws {
        let shelters = try #require(try LayerDefinitionFile.all().first { $0.id == "shelters" }?.schema)
        let problems = schemaViolations(["name": 3, "class": "临时", "extra": true], schema: shelters)
        #expect(problems.contains("missing required capacity"))
        #expect(problems.contains { $0.hasPrefix("name:") })
        #expect(problems.contains("class: \(JSONValue.string("临时")) not in enum"))
        #expect(problems.contains("undeclared property extra"))
    }
}
