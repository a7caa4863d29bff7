import Foundation

/// A tile of an explicit 3D Tiles hierarchy: a bounding box in the tileset's `LocalFrame`
/// (x east, y north, z up, metres), the error (metres) a viewer makes by drawing it instead of
/// its children, and either content (a leaf: one `.glb`) or children.
public struct TileNode: Sendable, Equatable {
    public var box: (min: SIMD3<Double>, max: SIMD3<Double>)
    public var geometricError: Double
    public var content: String?
    public var children: [TileNode]

    public init(box: (min: SIMD3<Double>, max: SIMD3<Double>), geometricError: Double, content: String? = nil, children: [TileNode] = []) {
        self.box = box
        self.geometricError = geometricError
        self.content = content
        self.children = children
    }

    public static func == (a: TileNode, b: TileNode) -> Bool {
        a.box.min == b.box.min && a.box.max == b.box.max && a.geometricError == b.geometricError
            && a.content == b.content && a.children == b.children
    }

    /// The 3D Tiles `box`: centre, then the three half-axis vectors.
    var boxArray: [Double] {
        let c = (box.min + box.max) / 2, h = (box.max - box.min) / 2
        return [c.x, c.y, c.z, Swift.max(h.x, 0.01), 0, 0, 0, Swift.max(h.y, 0.01), 0, 0, 0, Swift.max(h.z, 0.01)]
    }

    func json(contentPrefix: String) -> [String: Any] {
        var o: [String: Any] = ["boundingVolume": ["box": boxArray], "geometricError": geometricError]
        if let content { o["content"] = ["uri": contentPrefix + content] }
        if !children.isEmpty { o["children"] = children.map { $0.json(contentPrefix: contentPrefix) } }
        return o
    }
}

/// `tileset.json` (3D Tiles 1.1): the root carries the frame's transform to ECEF; children
/// add to their parents (`refine: ADD`) where a feature is drawn in its leaf only, or replace
/// them (`REPLACE`) where each level draws the whole surface coarser (terrain).
public enum TilesetDocument {
    /// The document's bytes. `contentPrefix` is put before each content's name (relative URIs
    /// resolve against the tileset's own URL: `3dtiles/` when it is served at `…/3dtiles`).
    public static func encode(root: TileNode, frame: LocalFrame, contentPrefix: String = "",
                              refine: String = "ADD", properties: [String: Any] = [:]) throws -> [UInt8] {
        var rootJSON = root.json(contentPrefix: contentPrefix)
        rootJSON["transform"] = frame.transform
        rootJSON["refine"] = refine
        var document: [String: Any] = [
            "asset": ["version": "1.1", "generator": "CityTwin CityTiles3D"],
            "geometricError": root.geometricError * 2,
            "root": rootJSON,
        ]
        if !properties.isEmpty { document["extras"] = properties }
        return Array(try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes]))
    }
}
