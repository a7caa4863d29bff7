import ArgumentParser
import CityModel
import Foundation
import GeoCore
import ProcessRuntime
import Scenarios
import SWMMFormat
import TwinStore

/// `citytwin import FILE --layer ID`: one file into one layer, in one transaction. SWMM `.inp`
/// models and pipeline survey tables fill several drainage layers (one transaction per layer,
/// all checked before any is written).
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import GeoJSON(-seq), CSV, SWMM or EPANET .inp, pipeline survey tables, or any vector file GDAL reads (GeoPackage, Shapefile, FileGDB, DXF, MapInfo, KML, OSM…) into the store.",
        discussion: """
            Geometries are transformed to EPSG:4490 from the file's CRS (GeoJSON: CRS84; what GDAL reads from a .prj, \
            a GeoPackage srs_id, a FileGDB…) or --source-crs. Each layer is written in one transaction: a failing row writes nothing.
            Into a layer that already holds features, say what to do with them (--mode): without it the import \
            refuses ids the layer holds and features without ids, so importing a file twice never doubles a layer.
            Survey tables: citytwin import 管线点.csv --lines 管线段.csv --format survey (fields Exp_No, X, Y, High, …).
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case geojson, geojsonseq, csv, shapefile, geopackage, gdal, swmm, epanet, survey
    }

    @Argument(help: "The file to import.")
    var file: String

    @Option(help: "Target layer id (required except for swmm, epanet and survey, which fill the drainage or water-supply layers).")
    var layer: String?

    @OptionGroup var storeOption: StoreOption
    var store: String { storeOption.path }

    @Option(help: "File format (default: from the extension: .geojson .geojsonl .csv .shp .gpkg .inp (SWMM or EPANET by its sections); gdal for .gdb .dxf .tab .mif .kml .gml .fgb .osm .pbf and any other format GDAL reads).")
    var format: Format?

    @Option(help: "CRS of the coordinates when the file does not say (or to override it), e.g. EPSG:4547.")
    var sourceCRS: String?

    @Option(help: "Text encoding of CSV / DBF text: UTF-8 or GBK (GB2312, CP936, GB18030); a Shapefile's .cpg says it otherwise.")
    var encoding: TextEncoding?

    @Option(help: "CSV column holding x (longitude or easting).")
    var x: String?

    @Option(help: "CSV column holding y (latitude or northing).")
    var y: String?

    @Option(help: "CSV column holding WKT geometries.")
    var wkt: String?

    @Option(name: [.customLong("source-layer"), .customLong("gpkg-table")],
            help: "The layer of a file that holds several to read: a GeoPackage table, a FileGDB feature class, an OSM extract's lines/points/multipolygons.")
    var sourceLayer: String?

    @Option(help: "SWMM, EPANET: place a model in local metres with its (0, 0) at LON,LAT (EPSG:4490 degrees).")
    var origin: String?

    @Option(help: "EPANET: the isolation valves (CSV: link,node[,status] per valve, as wntr writes a valve layer) into water_valves.")
    var valves: String?

    @Option(help: "Survey: the line table (管线段) CSV; FILE is the point table (管线点).")
    var lines: String?

    @Option(help: "Survey: drainage system code of the network (YS 雨水, WS 污水, HS 合流).")
    var system: String = "YS"

    @Option(help: "Directory of layer definitions, used to create a target layer the store does not have yet.")
    var layers: String = ProjectFiles.path("Layers")

    @Option(help: """
        What to do with the features the layer holds: append (add the file's; ids the layer holds are refused), \
        replace (the file becomes the layer), upsert (replace the features matched by --key, add the rest). \
        Default: add, refusing any feature the layer may already hold.
        """)
    var mode: String?

    @Option(help: "upsert: the field that identifies a feature in both the file and the layer (default: the feature id).")
    var key: String?

    @Option(help: "Rename source fields: SRC=DST,... (e.g. outlet_dia=outlet_diameter_mm for a Shapefile's 10-character DBF names; DST id makes the value the feature id).")
    var fieldMap: String?

    @Flag(help: "Write features that lie outside the city's extent (the store's catalogue extent widened by 10 km), which are otherwise refused: for data that really lies there.")
    var allowOutsideExtent = false

    func validate() throws {
        do {
            _ = try ImportMode(name: mode, key: key)
            _ = try fieldMap.map(FieldMap.init(parsing:))
        } catch let e as ImportError {
            throw ValidationError(e.reason + (e.field.map { " (\($0))" } ?? ""))
        }
    }

    func run() async throws {
        let url = URL(fileURLWithPath: file)
        let chosen = try format ?? Self.format(of: url)
        let location = try StoreLocation(store)
        let featureStore = try await location.open()
        let crs = try sourceCRS.map { text in
            do { return try CoordinateReferenceSystem(parsing: text) } catch {
                throw ValidationError("--source-crs: \(error)")
            }
        }
        let bar = ProgressBar("importing \(url.lastPathComponent)")
        do {
            switch chosen {
            case .swmm, .epanet, .survey:
                // A model's coordinates are metres in the city's metric CRS unless --source-crs says
                // otherwise; the first data of a city placed by --origin is in the zone of its origin.
                var modelCRS = crs
                if modelCRS == nil { modelCRS = try await CityRecord.metricCRS(of: featureStore) }
                if modelCRS == nil, let o = try origin.map({ try Self.position($0, option: "--origin") }) {
                    modelCRS = CoordinateReferenceSystem.metricZone(for: Envelope(minX: o.x, minY: o.y, maxX: o.x, maxY: o.y))
                }
                let placedIn = modelCRS ?? .districtMetric
                guard mode == nil, fieldMap == nil else {
                    throw ValidationError("--mode and --field-map apply to single-layer imports, not \(chosen.rawValue) models (their features carry ids: a repeat is refused)")
                }
                let network: NetworkImport
                if chosen == .swmm {
                    let placement = try origin.map { try Self.position($0, option: "--origin") }
                    network = try SWMMInput(file: url).network(origin: placement, crs: placedIn)
                } else if chosen == .epanet {
                    let placement = try origin.map { try Self.position($0, option: "--origin") }
                    let table = try valves.map { try EPANETInput.isolationValves(csv: URL(fileURLWithPath: $0), encoding: encoding ?? .utf8) } ?? []
                    network = try EPANETInput(file: url).network(origin: placement, crs: placedIn, valves: table)
                } else {
                    guard let lines else { throw ValidationError("--format survey needs --lines <管线段.csv> (FILE is the 管线点 table)") }
                    network = try PipelineSurvey(points: url, lines: URL(fileURLWithPath: lines), encoding: encoding ?? .utf8,
                                                 system: system).network(crs: placedIn)
                }
                let selected = try network.selecting(layer)
                let catalog = try await resolvedCatalog(featureStore, creating: selected.layers.map(\.id))
                let summaries = try await selected.run(catalog: catalog, store: featureStore, by: .admin) { bar.update($0) }
                let count = Double(summaries.reduce(0) { $0 + $1.count })
                bar.finish(WorkProgress(stage: "done", completed: count, total: count, unit: "features"))
                for s in summaries { print("Imported \(s.count) features into \(s.layer) (from \(s.sourceCRS))") }
            default:
                guard let layer else { throw ValidationError("--layer is required for \(chosen.rawValue) files") }
                guard let definition = try await resolvedCatalog(featureStore, creating: [layer])[layer] else {
                    throw ValidationError("no layer \"\(layer)\" in the store or in \(layers)/")
                }
                let importMode = try ImportMode(name: mode, key: key)
                let map = try fieldMap.map(FieldMap.init(parsing:)) ?? FieldMap()
                try map.check(against: definition)
                let options = SourceOptions(encoding: encoding, xColumn: x, yColumn: y, wktColumn: wkt, table: sourceLayer,
                                            attributesOnly: !definition.hasGeometry)
                let formatValue = ImportFormat(rawValue: chosen.rawValue) ?? .geojson
                let keepsID = definition.schema.properties["id"] != nil
                var source = FieldMappedSource(try formatValue.open(url, options: options, keepIDColumn: keepsID), map: map, keepsIDProperty: keepsID)
                let extent = allowOutsideExtent ? nil : try await CityExtent.of(featureStore)
                let summary = try await LayerImport.run(&source, into: definition, store: featureStore, by: .admin, sourceCRS: crs,
                                                        mode: importMode, within: extent) { bar.update($0) }
                bar.finish(WorkProgress(stage: "done", completed: Double(summary.count), total: Double(summary.count), unit: "features"))
                let verb = switch importMode {
                case .new, .append: "Imported"
                case .replace: "Replaced the layer with"
                case .upsert: "Upserted"
                }
                let total = try await featureStore.count(layer: summary.layer, FeatureQuery(), by: .admin)
                print("\(verb) \(summary.count) features into \(summary.layer) (from \(summary.sourceCRS)); it now holds \(total)")
            }
            // The planner's statistics of what was just loaded (PostGIS: ANALYZE), before serve queries it.
            try await featureStore.refreshStatistics()
            // The first data of a city places it: its metric CRS is the zone of where the data lies, kept from now on.
            if let city = try await CityRecord.recordIfAbsent(in: featureStore, name: nil, by: .admin) {
                print("Recorded the city's metric CRS: \(city.metricCRS) (the zone of where its data lies; lengths, areas, routing and flood grids use it)")
            }
        } catch let e as ImportError {
            throw CommandFailure(presenting: e, in: "import failed, nothing written")
        } catch let e as StoreError {
            throw CommandFailure(presenting: e, in: "import failed, nothing written")
        }
    }

    private func resolvedCatalog(_ store: any FeatureStore, creating targets: [String]) async throws -> LayerCatalog {
        try await LayerDefinitions.catalog(store, creating: targets, from: URL(fileURLWithPath: layers, isDirectory: true))
    }

    static func format(of url: URL) throws -> Format {
        if url.pathExtension.lowercased() == "inp" { return Self.isEPANET(url) ? .epanet : .swmm }
        guard let f = ImportFormat(file: url), let c = Format(rawValue: f.rawValue) else {
            throw ValidationError("cannot tell the format of \(url.lastPathComponent) from its extension; give --format (\(Format.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        return c
    }

    /// Whether a `.inp` file is an EPANET model rather than a SWMM one: it has a section only
    /// EPANET's format has ([PIPES], [RESERVOIRS], [TANKS], [VALVES]).
    static func isEPANET(_ url: URL) -> Bool {
        guard let data = FileManager.default.contents(atPath: url.path) else { return false }
        let text = String(decoding: data.prefix(4 << 20), as: UTF8.self).uppercased()
        return ["[PIPES]", "[RESERVOIRS]", "[TANKS]", "[VALVES]"].contains { text.contains($0) }
    }

    static func position(_ text: String, option: String) throws -> Position {
        let parts = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let lon = parts[0], let lat = parts[1], (-180...180).contains(lon), (-90...90).contains(lat) else {
            throw ValidationError("\(option) must be LON,LAT in degrees, e.g. 114.80,30.84")
        }
        return Position(x: lon, y: lat)
    }
}
