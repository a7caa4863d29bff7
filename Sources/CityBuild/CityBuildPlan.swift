import CityModel
import DataSources
import Foundation
import GeoCore
import TwinStore

/// A city build read and checked, before anything is written: the one path of `citytwin city build`,
/// whether the sources are a manifest's or an OpenStreetMap extract's (`--osm`, the manifest
/// `{"osm": …}`). Roads from any source are derived alike (`RoadNetworkDraft`: topology at shared
/// vertices, ids, lengths in the metric CRS, class defaults); tagged OpenStreetMap objects become
/// layers by `FeatureRule`; a manifest's other layers are mapped by their `fields`, `values` and
/// `defaults` and validated against their schema when written. A layer the manifest names is taken
/// from its sources instead of the extract.
public struct CityBuildPlan {
    public let manifest: CityManifest
    /// What the report calls the sources: the extract's file name, or the manifest's.
    public let source: String
    public private(set) var ways: [RoadNetworkDraft.Way] = []
    public private(set) var signals: [Position] = []
    public private(set) var stops: [Position] = []
    public private(set) var objects: [CityFeatureDraft.Object] = []
    /// A manifest's layers other than roads, in longitude/latitude, mapped.
    public private(set) var layers: [(id: String, features: [Feature])] = []
    /// Counted while reading: dropped features, defaulted values, unreadable areas.
    public private(set) var report: [String: Int] = [:]
    /// The extent of everything read, degrees.
    public private(set) var extent: Envelope?
    public private(set) var drainage: SWMMInput?
    public private(set) var water: (input: EPANETInput, valves: [EPANETInput.IsolationValve])?

    /// Reads every source, checking the manifest against `catalog` (the layers the store holds or
    /// can create) first.
    /// - Throws: `ManifestError` naming the member (unknown layer or field, missing file, unreadable
    ///   CRS, required value without a source or default); `ImportError` from an extract or model GDAL,
    ///   SWMM or EPANET cannot read.
    public init(_ manifest: CityManifest, catalog: LayerCatalog, source: String) throws {
        self.manifest = manifest
        self.source = source
        // Every member is checked before any file is read in full.
        var readers: [(id: String, readers: [ManifestLayerReader])] = []
        for (id, sources) in manifest.layers {
            guard id != "intersections" else {
                throw ManifestError(path: "layers.intersections", "is derived from the roads (their ends and shared vertices), not read",
                                    allowed: "roads and the other layers: \(Self.layerIDs(catalog))")
            }
            guard let definition = catalog[id] else {
                throw ManifestError(path: "layers.\(id)", "is not a layer CityTwin knows", allowed: Self.layerIDs(catalog))
            }
            readers.append((id, try sources.map { try ManifestLayerReader($0, layer: id, definition: definition) }))
        }
        try checkRasterAndModels(manifest)
        if let osm = manifest.osm {
            let extract = try OSMExtract(file: osm)
            guard extract.extent != nil else { throw ImportError(.malformed, file: osm.lastPathComponent, "holds no ways: nothing to build") }
            (ways, signals, stops, objects, extent) = (extract.ways, extract.signals, extract.stops, extract.objects, extract.extent)
            if extract.unreadableAreas > 0 { report["areas left out: a geometry GDAL cannot read (an open ring)"] = extract.unreadableAreas }
        }
        for (id, layerReaders) in readers {
            var features: [Feature] = []
            var roadWays: [RoadNetworkDraft.Way] = []
            for (n, var reader) in layerReaders.enumerated() {
                let prefix = layerReaders.count > 1 && n > 0 ? "\(n + 1)/" : ""
                let read = try reader.read()
                if id == "roads" {
                    roadWays += try reader.ways(read, prefix: prefix)
                } else {
                    features += read.map { f in
                        var f = f
                        if !prefix.isEmpty { f.id = .string(prefix + (f.id.map { "\($0)" } ?? "")) }
                        return f
                    }
                }
                report.merge(reader.report) { $0 + $1 }
            }
            for f in features { if let e = f.geometry?.envelope { widen(e) } }
            for w in roadWays { for p in w.positions { widen(Envelope(minX: p.x, minY: p.y, maxX: p.x, maxY: p.y)) } }
            if id == "roads" { ways = roadWays } else { layers.append((id, features)) }
        }
    }

    private mutating func widen(_ e: Envelope) {
        if var x = extent { x.expand(toInclude: Position(x: e.minX, y: e.minY)); x.expand(toInclude: Position(x: e.maxX, y: e.maxY)); extent = x } else { extent = e }
    }

    static func layerIDs(_ catalog: LayerCatalog) -> String {
        catalog.definitions.map(\.id).filter { $0 != "intersections" }.sorted().joined(separator: ", ")
    }

    /// The DEM opens as a raster with a CRS; the models parse (and the valves table reads).
    private mutating func checkRasterAndModels(_ manifest: CityManifest) throws {
        if let dem = manifest.dem {
            let raster: RasterDataset
            do { raster = try RasterDataset(file: dem.file) } catch let e as DataSourceError {
                throw ManifestError(path: "\(dem.path)\(dem.path.hasPrefix("--") ? "" : ".file")", "\(dem.file.lastPathComponent): \(e.reason)", allowed: "any raster GDAL reads")
            }
            guard dem.crs != nil || raster.crs != nil else {
                throw ManifestError(path: dem.path.hasPrefix("--") ? dem.path : "\(dem.path).crs", "\(dem.file.lastPathComponent) names no CRS PROJ can identify",
                                    allowed: "the raster's CRS, e.g. EPSG:3067 (in a manifest's dem.crs)")
            }
            if let r = dem.resampling, RasterDataset.Resampling(rawValue: r) == nil {
                throw ManifestError(path: "\(dem.path).resampling", "is not a resampling GDAL's warper does",
                                    allowed: RasterDataset.Resampling.allCases.map(\.rawValue).joined(separator: ", "))
            }
        }
        func member(_ m: CityManifest.ModelSource, _ e: ImportError) -> ManifestError {
            ManifestError(path: m.path.hasPrefix("--") ? m.path : "\(m.path).file", "\(e)")
        }
        if let m = manifest.drainage {
            do { drainage = try SWMMInput(file: m.file) } catch let e as ImportError { throw member(m, e) }
        }
        if let m = manifest.water {
            do {
                water = (try EPANETInput(file: m.file), try m.valves.map { try EPANETInput.isolationValves(csv: $0) } ?? [])
            } catch let e as ImportError { throw member(m, e) }
        }
    }

    /// The layers the sources fill, derived in the city's metric CRS: the road network (roads and
    /// intersections) first, then the others, all in longitude/latitude; and every count of the build.
    /// - Parameter metric: longitude/latitude to the city's metric CRS (lengths, areas).
    public func layers(metric: CoordinateTransformer) throws -> (imports: NetworkImport, report: [String: Int]) {
        var counts = report
        var out: [(id: String, records: [SourceRecord])] = []
        if !ways.isEmpty || manifest.osm != nil || manifest.layers.contains(where: { $0.id == "roads" }) {
            let roads = try RoadNetworkDraft.build(ways: ways, signals: signals, stops: stops, metric: metric)
            out += roads.layers(file: source).layers
            counts.merge(roads.report) { a, _ in a }
        }
        var others: [(id: String, features: [Feature])] = []
        if manifest.osm != nil {
            let features = try CityFeatureDraft.build(objects, metric: metric)
            others = features.layers.filter { layer in !layers.contains { $0.id == layer.id } }
            counts.merge(features.report) { a, _ in a }
        }
        for (id, features) in layers {
            var measured = features
            for i in measured.indices {
                guard let g = measured[i].geometry, let (property, value) = try CityFeatureDraft.measured(id, g, metric: metric),
                      measured[i].properties[property] == nil else { continue }
                measured[i].properties[property] = value
                counts["\(id) with \(property) derived (measured)", default: 0] += 1
            }
            others.append((id, measured))
            counts[id] = measured.count
        }
        out += others.map { layer in
            (layer.id, layer.features.map { SourceRecord(location: "\(layer.id) \($0.id.map { "\($0)" } ?? "")", feature: $0) })
        }
        return (NetworkImport(file: source, crs: CoordinateReferenceSystem(epsg: 4326), layers: out), counts)
    }

    /// The layers besides the road network the build writes, with what each requires
    /// (`ManifestLayerReader.required`): the store's definition is relaxed to it.
    public static func requirements(_ imports: NetworkImport, catalog: LayerCatalog) -> [(layer: String, required: [String])] {
        imports.layers.compactMap { entry in
            guard entry.id != "roads", entry.id != "intersections", let d = catalog[entry.id] else { return nil }
            return (entry.id, ManifestLayerReader.required(entry.id, d))
        }
    }
}
