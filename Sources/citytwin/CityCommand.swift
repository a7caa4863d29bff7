import ArgumentParser
import CityBuild
import CityModel
import Foundation
import GeoCore
import ProcessRuntime
import TwinStore

/// `citytwin city build`: a city's one map from its own data. `--osm EXTRACT` derives the road
/// network (roads split where OpenStreetMap joins them, intersections with their control) by the
/// rules of `RoadRules`, and the emergency resources, parking lots and buildings by `FeatureRule`,
/// in the city's metric CRS (the zone of the extract's centre, recorded in the store).
struct CityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "city",
        abstract: "Build a city's layers from its own data (OpenStreetMap extracts).",
        subcommands: [Build.self, BaseMap.self])

    struct Build: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Build a city's layers from a manifest of its own sources, or from an OpenStreetMap extract (--osm).",
            discussion: """
                MANIFEST.json names the city (name, metric_crs), per layer its sources (file: any vector source GDAL \
                reads; layer, crs, where, x/y of a CSV; fields: target <- source field or constant; values: source value -> \
                target value; defaults), a DEM (any raster GDAL reads, imported as the managed raster 'dem' in the city's \
                metric CRS), a SWMM drainage model and an EPANET water network (docs/capabilities/city-build.md). \
                --osm EXTRACT is the manifest {"osm": EXTRACT} with --dem, --drainage, --water and --name. \
                Roads from any source are split where lines share a vertex on the same level (OpenStreetMap: a node two \
                drivable ways share; never where a bridge or tunnel merely crosses), classed by CJJ 37, with speeds, lanes and \
                one-way from their fields or tags or the documented class defaults; lengths in the city's metric CRS (the \
                CGCS2000 3-degree Gauss-Krüger zone in China, the UTM zone elsewhere, unless metric_crs), which the store \
                records. Fire stations, hydrants, hospitals, assembly points, parking lots, buildings and water come from \
                their tags (FeatureRule) or the manifest's layers; what a source cannot say is left empty, never invented: \
                a required value without a source or a default is an error. The whole manifest is checked before \
                anything is written; each layer is written whole in one transaction, replacing what a previous build wrote; \
                the report lists what was derived, defaulted and dropped, and why.
                """)

        @Argument(help: "The city's manifest (JSON), when not --osm.")
        var manifest: String?

        @Option(help: "An OpenStreetMap extract (.osm.pbf or .osm): the shortcut for the manifest {\"osm\": EXTRACT}.")
        var osm: String?

        @Option(help: "With --osm: a DEM (any raster GDAL reads, in any CRS) imported as the managed raster 'dem'.")
        var dem: String?

        @Option(help: "With --osm: a SWMM model (.inp) into the drainage layers, its coordinates in the city's metric CRS.")
        var drainage: String?

        @Option(help: "With --osm: an EPANET network (.inp) into the water-supply layers, its coordinates in the city's metric CRS.")
        var water: String?

        @Option(help: "The city's name, recorded in the store (default: the manifest's name, else the file name).")
        var name: String?

        @Option(help: "Also write the build's report (features written per layer; values derived, defaulted, objects dropped and why) as JSON to this file.")
        var report: String?

        @OptionGroup var storeOption: StoreOption

        @Option(help: "Directory of layer definitions (layers the store lacks are created from it).")
        var layers: String = ProjectFiles.path("Layers")

        func validate() throws {
            guard (manifest == nil) != (osm == nil) else { throw ValidationError("give a MANIFEST.json or --osm EXTRACT (one of them)") }
            if manifest != nil, dem != nil || drainage != nil || water != nil {
                throw ValidationError("--dem, --drainage and --water go with --osm; a manifest names them itself (dem, drainage, water)")
            }
        }

        func run() async throws {
            let cityManifest: CityManifest
            let source: String
            do {
                if let osm {
                    let url = URL(fileURLWithPath: osm)
                    let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
                    cityManifest = CityManifest(osm: url, name: name ?? Self.cityName(url), dem: dem.map(URL.init(fileURLWithPath:)),
                                                drainage: drainage.map(URL.init(fileURLWithPath:)), water: water.map(URL.init(fileURLWithPath:)),
                                                directory: here)
                    source = url.lastPathComponent
                } else {
                    let url = URL(fileURLWithPath: manifest!)
                    var read = try CityManifest(file: url)
                    read.name = name ?? read.name ?? Self.cityName(url)
                    cityManifest = read
                    source = url.lastPathComponent
                }
            } catch let e as ManifestError {
                throw CommandFailure("city build failed, nothing written: \(e)")
            }
            try await CityBuildRun(manifest: cityManifest, source: source, store: storeOption.path,
                                   layers: URL(fileURLWithPath: layers, isDirectory: true), report: report).run()
        }

        /// `helsinki` for `Helsinki.osm.pbf`, `tampere` for `tampere.json`.
        static func cityName(_ url: URL) -> String {
            var name = url.lastPathComponent
            for suffix in [".pbf", ".osm", ".bz2", ".json"] where name.lowercased().hasSuffix(suffix) { name = String(name.dropLast(suffix.count)) }
            return name
        }
    }
}
