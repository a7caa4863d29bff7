import Foundation

/// A tile's content as binary glTF 2.0 (`.glb`), the content type of 3D Tiles 1.1 (no b3dm
/// wrapper): one mesh primitive of triangles with POSITION, NORMAL and `_FEATURE_ID_0`, its
/// feature ids declared by `EXT_mesh_features` and pointing at the `EXT_structural_metadata`
/// property table that holds the features' attributes.
///
/// glTF is y-up: a `LocalFrame`'s (east, north, up) is written as (east, up, −north), which the
/// 3D Tiles runtime turns back (its y-up to z-up rotation) before applying the tileset's transform.
public enum GLBWriter {
    /// glTF component types and buffer-view targets (glTF 2.0 §5).
    static let float = 5126, unsignedInt = 5125, arrayBuffer = 34962, elementArrayBuffer = 34963

    /// The `.glb` bytes of `mesh` with `table` (one row per feature id), coloured `color` (linear RGBA).
    public static func encode(_ mesh: TileMesh, table: PropertyTable, color: [Double]) throws -> [UInt8] {
        var binary = BinaryChunk()
        var accessors: [[String: Any]] = []
        func yUp(_ p: SIMD3<Float>) -> SIMD3<Float> { SIMD3(p.x, p.z, -p.y) }
        let positions = mesh.positions.map(yUp)
        var lo = positions.first ?? .zero, hi = lo
        for p in positions { lo = pointwiseMin(lo, p); hi = pointwiseMax(hi, p) }
        let positionView = binary.append(floats: positions.flatMap { [$0.x, $0.y, $0.z] }, target: arrayBuffer)
        accessors.append(["bufferView": positionView, "componentType": float, "count": positions.count, "type": "VEC3",
                          "min": [lo.x, lo.y, lo.z].map(Double.init), "max": [hi.x, hi.y, hi.z].map(Double.init)])
        let normalView = binary.append(floats: mesh.normals.map(yUp).flatMap { [$0.x, $0.y, $0.z] }, target: arrayBuffer)
        accessors.append(["bufferView": normalView, "componentType": float, "count": mesh.normals.count, "type": "VEC3"])
        let idView = binary.append(floats: mesh.featureIDs.map { Float($0) }, target: arrayBuffer)
        accessors.append(["bufferView": idView, "componentType": float, "count": mesh.featureIDs.count, "type": "SCALAR"])
        let indexView = binary.append(uint32s: mesh.indices, target: elementArrayBuffer)
        accessors.append(["bufferView": indexView, "componentType": unsignedInt, "count": mesh.indices.count, "type": "SCALAR"])

        var classProperties: [String: Any] = [:]
        var tableProperties: [String: Any] = [:]
        for (name, column) in table.columns {
            switch column {
            case .strings(let values):
                classProperties[name] = ["type": "STRING"]
                var text: [UInt8] = [], offsets: [UInt32] = [0]
                for v in values { text += Array(v.utf8); offsets.append(UInt32(text.count)) }
                if text.isEmpty { text = [0] }  // a buffer view is at least one byte long
                tableProperties[name] = ["values": binary.append(bytes: text), "stringOffsets": binary.append(uint32s: offsets),
                                         "stringOffsetType": "UINT32"]
            case .numbers(let values):
                classProperties[name] = ["type": "SCALAR", "componentType": "FLOAT64", "noData": PropertyTable.noData]
                tableProperties[name] = ["values": binary.append(doubles: values.map { $0 ?? PropertyTable.noData })]
            }
        }
        let featureIDs: [String: Any] = ["featureCount": table.count, "attribute": 0, "propertyTable": 0]
        let primitive: [String: Any] = [
            "attributes": ["POSITION": 0, "NORMAL": 1, "_FEATURE_ID_0": 2], "indices": 3, "mode": 4, "material": 0,
            "extensions": ["EXT_mesh_features": ["featureIds": [featureIDs]]],
        ]
        let document: [String: Any] = [
            "asset": ["version": "2.0", "generator": "CityTwin CityTiles3D"],
            "extensionsUsed": ["EXT_mesh_features", "EXT_structural_metadata"],
            "extensions": ["EXT_structural_metadata": [
                "schema": ["id": "citytwin", "classes": [table.className: ["properties": classProperties]]],
                "propertyTables": [["class": table.className, "count": table.count, "properties": tableProperties]],
            ]],
            "scene": 0, "scenes": [["nodes": [0]]], "nodes": [["mesh": 0]],
            "meshes": [["primitives": [primitive]]],
            "materials": [["pbrMetallicRoughness": ["baseColorFactor": color, "metallicFactor": 0.0, "roughnessFactor": 1.0]]],
            "buffers": [["byteLength": binary.bytes.count]],
            "bufferViews": binary.views,
            "accessors": accessors,
        ]
        var json = Array(try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes]))
        while json.count % 4 != 0 { json.append(0x20) }
        var bin = binary.bytes
        while bin.count % 4 != 0 { bin.append(0) }
        var out: [UInt8] = []
        out.reserveCapacity(12 + 8 + json.count + 8 + bin.count)
        func word(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { out += $0 } }
        word(0x4654_6C67)  // "glTF"
        word(2)
        word(UInt32(12 + 8 + json.count + 8 + bin.count))
        word(UInt32(json.count)); word(0x4E4F_534A)  // "JSON"
        out += json
        word(UInt32(bin.count)); word(0x004E_4942)  // "BIN\0"
        out += bin
        return out
    }
}

/// The glTF binary chunk being filled: each buffer view starts on an 8-byte boundary (what
/// EXT_structural_metadata asks of its FLOAT64 columns; more than the 4 vertex data need).
struct BinaryChunk {
    var bytes: [UInt8] = []
    var views: [[String: Any]] = []

    private mutating func view<T>(_ values: [T], target: Int?) -> Int {
        while bytes.count % 8 != 0 { bytes.append(0) }
        let offset = bytes.count
        values.withUnsafeBytes { bytes += $0 }
        var v: [String: Any] = ["buffer": 0, "byteOffset": offset, "byteLength": bytes.count - offset]
        if let target { v["target"] = target }
        views.append(v)
        return views.count - 1
    }

    mutating func append(floats: [Float], target: Int? = nil) -> Int { view(floats.map { $0.bitPattern.littleEndian }, target: target) }
    mutating func append(doubles: [Double]) -> Int { view(doubles.map { $0.bitPattern.littleEndian }, target: nil) }
    mutating func append(uint32s: [UInt32], target: Int? = nil) -> Int { view(uint32s.map(\.littleEndian), target: target) }
    mutating func append(bytes values: [UInt8]) -> Int { view(values, target: nil) }
}
