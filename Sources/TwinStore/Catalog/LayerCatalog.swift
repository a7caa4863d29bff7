import Foundation
import GeoCore

/// The layer definitions of a city, loaded from the `Layers/` directory at start-up.
public struct LayerCatalog: Sendable {
    /// Definitions in id order.
    public var definitions: [LayerDefinition]

    public init(_ definitions: [LayerDefinition]) {
        self.definitions = definitions.sorted { $0.id < $1.id }
    }

    public subscript(id: String) -> LayerDefinition? { definitions.first { $0.id == id } }

    /// Reads every `*.json` file of `directory` (not recursive) as a `LayerDefinition`.
    /// A file that does not parse, lacks a catalogue field, or whose id differs from its file
    /// name throws a `StoreError` naming the file and field; duplicate ids are rejected.
    public static func load(directory: URL) throws -> LayerCatalog {
        let names: [String]
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw StoreError(.invalidLayerDefinition, "no layer definitions at \(directory.path): give --layers DIR (CityTwin's Layers folder), "
                             + "run from the CityTwin folder, or set CITYTWIN_HOME to it")
        }
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw StoreError(.invalidLayerDefinition, "cannot list the layer directory \(directory.path) (\((error as NSError).localizedDescription))")
        }
        var defs = [LayerDefinition]()
        var seen = Set<String>()
        for name in names.sorted() where name.hasSuffix(".json") {
            let url = directory.appendingPathComponent(name)
            let def: LayerDefinition
            do {
                let data = try Data(contentsOf: url)
                let json = try JSONDecoder().decode(JSONValue.self, from: data)
                def = try LayerDefinition(json: json)
            } catch var e as StoreError {
                e.message = "\(name): \(e.message)"
                throw e
            } catch {
                throw StoreError(.invalidLayerDefinition, "\(name): not valid JSON (\(error))")
            }
            guard name == def.id + ".json" else {
                throw StoreError(.invalidLayerDefinition, "\(name): the file name must be \(def.id).json", layer: def.id, field: "id")
            }
            guard seen.insert(def.id).inserted else {
                throw StoreError(.invalidLayerDefinition, "\(name): duplicate layer id", layer: def.id, field: "id")
            }
            defs.append(def)
        }
        return LayerCatalog(defs)
    }
}

/// A catalogue entry as a caller sees it: the definition plus what the store computed.
public struct LayerInfo: Sendable, Hashable {
    public var definition: LayerDefinition
    /// Extent of the current features in EPSG:4490 lon/lat degrees (same numbers as CRS84);
    /// `nil` when the layer has no geometry or no features. Never smaller than the features'
    /// (on a large layer, larger after removals at its edge until the store is next opened: `LayerStats`).
    public var extent: Envelope?
    /// Number of current features.
    public var count: Int
    /// Sequence number of the last change to this layer (0 when never written).
    public var lastChange: Int64

    public init(definition: LayerDefinition, extent: Envelope?, count: Int, lastChange: Int64) {
        self.definition = definition
        self.extent = extent
        self.count = count
        self.lastChange = lastChange
    }
}
