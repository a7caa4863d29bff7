import Foundation
import Testing
import TwinStore

/// Issue 54: the fire-rescue one map is co-built by the eleven departments of Huangshi's plan; each
/// must be in the store's department register (`KnownDepartments`), or no token can name it.
@Suite("The department register of the sample district")
struct DepartmentRegisterTests {
    /// 消防, 公安, 应急, 水利, 气象, 民政, 卫健, 自然资源和规划, 住建, 城管, 发改 as the district's bureaus are named (Layers/README.md).
    static let elevenDepartments = ["消防救援大队", "公安局", "应急管理局", "水务和湖泊局", "气象局", "民政局", "卫生健康局",
                                    "自然资源和规划局", "住房和城市更新局", "城市管理执法委员会", "发展和改革局"]

    @Test("the eleven departments of the one map are all known, 气象局 as a co-builder of the IoT register though it owns no layer")
    func elevenDepartmentsAreKnown() async throws {
        let (store, _) = try await GovernanceDistrict.store("departments")
        let known = try await KnownDepartments.of(store)
        #expect(Set(Self.elevenDepartments).subtracting(known).isEmpty, "missing: \(Set(Self.elevenDepartments).subtracting(known).sorted())")
        let layers = try await store.layers(for: .admin)
        #expect(!layers.contains { $0.definition.owner == "气象局" })
        #expect(layers.first { $0.definition.id == "iot_devices" }?.definition.coBuilt?.contributors?.contains("气象局") == true)
        // Nothing beyond the definitions: a department no layer names stays unknown.
        #expect(!known.contains("财政局"))
    }
}
