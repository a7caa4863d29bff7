/// The grade of a layer's model in the Ministry of Housing's CIM guide (住房和城乡建设部《城市信息
/// 模型（CIM）基础平台技术导则》, revised 2021): CIM1 the surface (DEM, imagery and 2D vectors) up to
/// CIM7 parts. A layer's definition states the level its data reaches (`cim_level`), and each 3D
/// tileset the level its solids reach.
public enum CIMLevel: String, Codable, Sendable, CaseIterable, Comparable {
    case cim1 = "CIM1", cim2 = "CIM2", cim3 = "CIM3", cim4 = "CIM4", cim5 = "CIM5", cim6 = "CIM6", cim7 = "CIM7"

    /// The guide's name of the level.
    public var name: String {
        switch self {
        case .cim1: "地表模型"
        case .cim2: "框架模型"
        case .cim3: "标准模型"
        case .cim4: "精细模型"
        case .cim5: "功能模型"
        case .cim6: "构件模型"
        case .cim7: "零件模型"
        }
    }

    /// What a model of the level holds (the guide's table, in short).
    public var content: String {
        switch self {
        case .cim1: "terrain, imagery and 2D vectors"
        case .cim2: "simple volumes (≈ LOD1 boxes)"
        case .cim3: "standard shells with roof forms and textures (≈ LOD2)"
        case .cim4: "detailed exteriors (≈ LOD3)"
        case .cim5: "main functional and indoor spaces"
        case .cim6: "building components (BIM)"
        case .cim7: "parts"
        }
    }

    public static func < (a: CIMLevel, b: CIMLevel) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}
