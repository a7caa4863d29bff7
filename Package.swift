// swift-tools-version:6.0
import PackageDescription

/// Settings every CityTwin target shares: Swift 6 language mode (the default for
/// tools-version 6) plus the upcoming features that keep existentials explicit.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "CityTwin",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "GeoCore", targets: ["GeoCore"]),
        .library(name: "DataSources", targets: ["DataSources"]),
        .library(name: "TwinStore", targets: ["TwinStore"]),
        .library(name: "CityModel", targets: ["CityModel"]),
        .library(name: "CityBuild", targets: ["CityBuild"]),
        .library(name: "Tiles", targets: ["Tiles"]),
        .library(name: "CityTiles3D", targets: ["CityTiles3D"]),
        .library(name: "SWMMFormat", targets: ["SWMMFormat"]),
        .library(name: "EPANETFormat", targets: ["EPANETFormat"]),
        .library(name: "FloodSim", targets: ["FloodSim"]),
        .library(name: "NetworkAnalysis", targets: ["NetworkAnalysis"]),
        .library(name: "SignalSim", targets: ["SignalSim"]),
        .library(name: "ParkingSim", targets: ["ParkingSim"]),
        .library(name: "ProcessRuntime", targets: ["ProcessRuntime"]),
        .library(name: "Emergency", targets: ["Emergency"]),
        .library(name: "FireRescue", targets: ["FireRescue"]),
        .library(name: "Flood", targets: ["Flood"]),
        .library(name: "Parking", targets: ["Parking"]),
        .library(name: "Utilities", targets: ["Utilities"]),
        .library(name: "Geocoding", targets: ["Geocoding"]),
        .library(name: "Signals", targets: ["Signals"]),
        .library(name: "Sensing", targets: ["Sensing"]),
        .library(name: "Scenarios", targets: ["Scenarios"]),
        .library(name: "Sponge", targets: ["Sponge"]),
        .library(name: "MQTTBroker", targets: ["MQTTBroker"]),
        .library(name: "Server", targets: ["Server"]),
        .executable(name: "citytwin", targets: ["citytwin"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.65.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.0.0"..<"5.0.0"),
        // Child processes (SUMO, the tests' commands): each watched through its own pidfd, never
        // Foundation's shared process-manager thread (see Tests/Support/CommandProcess.swift).
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
        // The service commands' options from the environment and a configuration file (Sources/citytwin/ServiceConfiguration.swift).
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        // The identity provider's discovery document and key set (Sources/Server/Access/OIDCKeySet.swift).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.5.0"),
        // JSON Web Tokens: CityTwin's own HS256 tokens and an OpenID Connect provider's RS256/ES256 ones (Access/).
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.7.1"),
    ],
    targets: [
        // C libraries, found through pkg-config.
        .systemLibrary(name: "CGEOS", path: "Sources/CGEOS", pkgConfig: "geos",
                       providers: [.apt(["libgeos-dev"])]),
        .systemLibrary(name: "CPROJ", path: "Sources/CPROJ", pkgConfig: "proj",
                       providers: [.apt(["libproj-dev", "proj-data"])]),
        .systemLibrary(name: "CGDAL", path: "Sources/CGDAL", pkgConfig: "gdal",
                       providers: [.apt(["libgdal-dev"])]),
        .systemLibrary(name: "CSpatiaLite", path: "Sources/CSpatiaLite", pkgConfig: "spatialite",
                       providers: [.apt(["libspatialite-dev", "libsqlite3-mod-spatialite"])]),

        // Geometry core: value types, GEOS bridge, codecs, CRS and transforms, rasters, STRtree.
        .target(name: "GeoCore", dependencies: ["CGEOS", "CPROJ"], swiftSettings: strict),

        // Every vector and raster format GDAL reads (GeoPackage, Shapefile with its encoding, FileGDB,
        // DXF, MapInfo, KML, OpenStreetMap, GeoTIFF/COG, ASCII grids…), with its CRS: the one reader
        // of a city's own files, as plain GeoCore values.
        .target(name: "DataSources", dependencies: ["GeoCore", "CGDAL"], swiftSettings: strict),

        // The query languages clients filter with, parsed into plain values and evaluated without a
        // store: CQL2 (OGC API Features Part 3) into `FilterExpression`, SensorThings `$filter`.
        // Apart from the store so the parsers' fuzz harnesses build without it.
        .target(name: "QueryLanguage", dependencies: ["GeoCore"], swiftSettings: strict),

        // The one-map store: FeatureStore protocol, SpatiaLite (embedded) and PostGIS backends,
        // layer catalog, versions, audit log, change feed, access rules.
        .target(
            name: "TwinStore",
            dependencies: [
                "GeoCore", "QueryLanguage", "CSpatiaLite",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ],
            swiftSettings: strict),

        // The CIM domain: layer schemas, network topology checks, importers, the sample district. Reads SWMM `.inp` files and sizes pipes with SWMMFormat, not the kernels.
        .target(
            name: "CityModel",
            dependencies: ["GeoCore", "DataSources", "TwinStore", "SWMMFormat", "EPANETFormat", "SignalSim", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strict),

        // The SWMM 5 model as data: the one `.inp` reader and writer with its checks, and the
        // storm-intensity formulas design storms and pipe sizing start from. Below FloodSim and
        // CityModel, so the district and the importers need no kernel.
        .target(name: "SWMMFormat", swiftSettings: strict),

        // The EPANET 2 water network model as data: the `.inp` reader (nodes, links, placement; SI
        // units), for importing a water utility's network. Tokens as SWMMFormat splits them (EPA's rules).
        .target(name: "EPANETFormat", dependencies: ["SWMMFormat"], swiftSettings: strict),

        // Urban flood kernels: design rainfall, runoff, SWMM-compatible 1D hydraulics, the 2D
        // local-inertial surface and 1D-2D coupling. Pure: plain inputs in, plain results out.
        .target(name: "FloodSim", dependencies: ["GeoCore", "SWMMFormat", "CLibm", "CSurfaceSweeps"], swiftSettings: strict),
        // glibc's sincos, which Swift's Glibc module does not declare (FloodSim's circle geometry).
        .systemLibrary(name: "CLibm", path: "Sources/CLibm"),
        // The 2D surface kernel's row sweeps (SurfaceKernel), compiled for the baseline and for AVX2
        // and chosen at run time: C, because Swift compiles a function for one instruction set only.
        .target(name: "CSurfaceSweeps"),

        // Traffic-signal timing kernels: Webster/HCM plans, time-of-day periods, the corridor green
        // wave (exact two-way bandwidth), adaptive re-timing, time–space diagrams. Pure.
        .target(name: "SignalSim", dependencies: ["GeoCore"], swiftSettings: strict),

        // Parking guidance kernels: occupancy cleaning, per-lot forecasts at 15–120 min with their
        // backtest, lot ranking by generalised cost with capacity feedback, guided-vs-unguided
        // simulation over a travel-time matrix. Pure.
        .target(name: "ParkingSim", dependencies: ["GeoCore"], swiftSettings: strict),

        // Road and utility graphs: routing (contraction hierarchies), nearest-N, isochrones,
        // upstream/downstream traces and valve isolation. Pure kernels over plain graphs.
        .target(name: "NetworkAnalysis", dependencies: ["GeoCore"], swiftSettings: strict),

        // How a process runs: the process protocol, the registry's one `run` (validate, then
        // execute), input reading, jobs and the worker that runs them, progress, graceful stop.
        // No capability: the processes live with their capabilities and register above them.
        .target(
            name: "ProcessRuntime",
            dependencies: ["GeoCore", "TwinStore",
                           .product(name: "Logging", package: "swift-log"),
                           // The worker's and the server's graceful stop on SIGTERM/SIGINT (GracefulStop).
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")],
            swiftSettings: strict),

        // Emergency analyses: the store's road network as routing graphs (cached per store and
        // profile), emergency resources and their road access, nearest resources, service areas,
        // coverage and site suggestions, hazard overlays, features in an area, and their processes.
        .target(name: "Emergency", dependencies: ["GeoCore", "TwinStore", "NetworkAnalysis", "ProcessRuntime"],
                swiftSettings: strict),

        // The fire-rescue one map (消防救援一张图): hydrant coverage by GB 50974 along the streets;
        // the hydrant-coverage process.
        .target(name: "FireRescue", dependencies: ["GeoCore", "TwinStore", "QueryLanguage", "NetworkAnalysis", "Emergency", "Sensing", "ProcessRuntime", "Governance"],
                swiftSettings: strict),

        // Urban flood runs over the district: the drainage model and the surface read from the
        // store and the managed DEM, design and observed rainfall, flood scenarios and their runs
        // (FloodRunCatalog), result layers and rasters, the resources a flood cuts off, nowcast
        // alerts; the flood-scenario and hazard-overlay processes.
        .target(name: "Flood", dependencies: ["GeoCore", "TwinStore", "SWMMFormat", "FloodSim", "NetworkAnalysis", "Emergency", "ProcessRuntime"],
                swiftSettings: strict),

        // Live sensor data without HTTP: the threshold alerts a Datastream's readings raise and clear
        // (AlertMonitor, Thresholds), the alert feed that follows the store's change feed, and the
        // in-process fan-out of live features (FeatureBroadcast) the parking screens are pushed by.
        .target(name: "Sensing", dependencies: ["GeoCore", "QueryLanguage", "TwinStore"], swiftSettings: strict),

        // Parking guidance over the district: lots and occupancy read from the store, availability
        // and the live view the signs show (ParkingLiveService keeps it in step and pushes it), the
        // district's guided-vs-unguided scenario, the SUMO export; the parking-guidance, parking-forecast and parking-simulation processes.
        .target(name: "Parking", dependencies: ["GeoCore", "TwinStore", "NetworkAnalysis", "ParkingSim", "Emergency", "ProcessRuntime", "Sensing"],
                swiftSettings: strict),

        // Utility networks (drainage, water): the store's network layers read as the tracing
        // kernel's graphs, valve isolation's report and critical customers, and the network-trace
        // and valve-isolation processes.
        .target(name: "Utilities", dependencies: ["GeoCore", "TwinStore", "CityModel", "NetworkAnalysis", "ProcessRuntime"],
                swiftSettings: strict),

        // Address geocoding: the geocoder over the district's address points (forward, reverse,
        // batch CSV), the cached geocoders per store, and the geocoding process.
        .target(name: "Geocoding", dependencies: ["GeoCore", "TwinStore", "CityModel", "ProcessRuntime"],
                swiftSettings: strict),

        // Traffic signals over the district: intersections' plans from counts (SignalPlanning), stored
        // corridors, the SUMO bridge (export, netconvert, evaluation runs), and the signal-timing,
        // green-wave and signal-evaluate processes. The signal layers' codecs stay in CityModel
        // (Signals/): the sample district writes its plans with them.
        .target(
            name: "Signals",
            dependencies: ["GeoCore", "TwinStore", "CityModel", "SignalSim", "ProcessRuntime",
                           // SUMO's programs as child processes (SumoTools).
                           .product(name: "Subprocess", package: "swift-subprocess")],
            swiftSettings: strict),

        // The sponge city (海绵城市) by GB/T 51345-2018: rainfall records (CSV, SensorThings), the
        // design rainfall for an annual runoff volume capture rate, and the capture rate of a SWMM
        // model's subcatchments, drainage zones and whole from a continuous runoff simulation.
        .target(name: "Sponge", dependencies: ["GeoCore", "TwinStore", "SWMMFormat", "FloodSim", "ProcessRuntime",
                                               "Flood"],  // the district's drainage model as the flood runs build it (DistrictSponge)
                swiftSettings: strict),
        .testTarget(name: "SpongeTests", dependencies: ["Sponge", "GeoCore", "TwinStore", "SWMMFormat", "FloodSim", "TestSupport",
                                                        "CityModel", "Flood", "ProcessRuntime", "Scenarios"],  // the district's processes
                    resources: [.copy("Fixtures")], swiftSettings: strict),

        // What-if scenarios: the scenario catalog, their runs (flood, signal, parking) and their
        // comparison, and the standard registry of every capability's processes
        // (`ProcessRegistry.standard`). No HTTP: the server, `citytwin worker` and the CLI share it.
        .target(
            name: "Scenarios",
            dependencies: ["GeoCore", "TwinStore", "CityModel", "NetworkAnalysis", "SignalSim", "ParkingSim",
                           "ProcessRuntime", "Emergency", "FireRescue", "Flood", "Parking", "Utilities", "Geocoding", "Signals",
                           "Sponge"],  // sponge-design-rainfall, sponge-evaluate; compare-scenarios of LID plans
            swiftSettings: strict),

        // Data governance: per-layer quality checks (validity, completeness, codes and ranges,
        // duplicates, network topology, freshness, extent) and the sandbox's approved aggregate
        // queries (数据可用不可见: small counts suppressed, isolating queries refused, all audited).
        .target(name: "Governance", dependencies: ["GeoCore", "TwinStore"], swiftSettings: strict),

        // A city's one map from its own data: the road network derived from OpenStreetMap by one
        // table of rules (RoadRules), in the city's metric zone.
        .target(name: "CityBuild", dependencies: ["GeoCore", "DataSources", "CityModel", "TwinStore"], swiftSettings: strict),

        // Tile matrix sets (WebMercatorQuad, WorldCRS84Quad, CGCS2000 Tianditu-compatible), MVT
        // encoding, per-zoom generalization, tile cache and invalidation, PMTiles/MBTiles export.
        .target(
            name: "Tiles",
            dependencies: [
                "GeoCore", "TwinStore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "CompressNIO", package: "compress-nio"),
                // ByteBuffer: a cached tile's bytes are handed to every response without a copy.
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strict),

        // The city in 3D (issue 56): OGC 3D Tiles 1.1 tilesets (glTF 2.0 content with EXT_mesh_features
        // and EXT_structural_metadata, explicit quadtrees in a local ENU frame with the root's transform
        // to ECEF) of the layers' solids, kept per caller and rebuilt leaf by leaf from the change feed.
        .target(name: "CityTiles3D", dependencies: ["GeoCore", "TwinStore"], swiftSettings: strict),
        .testTarget(name: "CityTiles3DTests", dependencies: ["CityTiles3D", "GeoCore", "TwinStore", "CityModel", "TestSupport"],
                    swiftSettings: strict),

        // MQTT 3.1.1 control packets as plain values, their encoding and checked decoding, topic
        // filters. No dependency, so its fuzz harness builds alone.
        .target(name: "MQTTCodec", swiftSettings: strict),

        // An MQTT 3.1.1 broker on SwiftNIO whose behaviour is its delegate's (authentication,
        // subscriptions, what a PUBLISH means): the connections and their limits, no SensorThings.
        .target(
            name: "MQTTBroker",
            dependencies: [
                "MQTTCodec",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"), .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),

        // render: server-side map drawing (issue 55 §1). Cairo draws (PNG, PDF), pango lays out
        // the Chinese labels (fonts-wqy-microhei); MapRendering draws features from the layers'
        // MapLibre style (WebMap/MapStyle.swift) for any bbox, size and CRS, JPEG through GDAL.
        .systemLibrary(name: "CCairo", path: "Sources/CCairo", pkgConfig: "cairo",
                       providers: [.apt(["libcairo2-dev"])]),
        .systemLibrary(name: "CPango", path: "Sources/CPango", pkgConfig: "pangocairo",
                       providers: [.apt(["libpango1.0-dev"])]),
        .target(name: "MapRendering", dependencies: ["GeoCore", "DataSources", "CCairo", "CPango", "CGDAL"], swiftSettings: strict),
        .testTarget(name: "MapRenderingTests", dependencies: ["MapRendering", "GeoCore"], swiftSettings: strict),

        // HTTP (Hummingbird 2): OGC API Features/Tiles/Processes routes, auth, problem+json errors,
        // the OpenAPI document, the web map, metrics.
        .target(
            name: "Server",
            dependencies: [
                "GeoCore", "TwinStore", "CityModel", "SWMMFormat", "Tiles", "ProcessRuntime", "Emergency", "Flood", "Parking", "Utilities", "Geocoding", "Signals", "Sensing", "Scenarios",
                "Governance",  // quality reports and the sandbox (Routes/QualityRoutes.swift, Routes/SandboxRoutes.swift)
                "MQTTBroker",  // SensorThings over MQTT (Routes/SensorThings/MQTT*.swift)
                "MapRendering",  // render: WMS GetMap/GetLegendGraphic (Routes/OWS/)
                "DataSources", "CityBuild", "EPANETFormat",  // every module's errors in the one mapping (Error/Problem+Mapping.swift)
                "CityTiles3D",  // 3D Tiles: /collections/{id}/3dtiles (Routes/Tiles3DRoutes.swift)
                .product(name: "Hummingbird", package: "hummingbird"),
                // ServiceGroup: SIGTERM/SIGINT start a graceful stop bounded by a grace period.
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "CompressNIO", package: "compress-nio"),
                // HTTPParserError and the parser's parts: ahead of Hummingbird (Connection/).
                .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ],
            resources: [.copy("WebMap/map.js"), .copy("WebMap/map-analyses.js"), .copy("WebMap/map-tools.js"), .copy("WebMap/map-3d.js"), .copy("WebMap/basemap.js"),
                        .copy("WebMap/map.css")],  // the web map's scripts and stylesheet (Bundle.module)
            swiftSettings: strict),

        // The command-line interface.
        .executableTarget(
            name: "citytwin",
            dependencies: [
                "GeoCore", "DataSources", "TwinStore", "CityModel", "CityBuild", "Server", "CSpatiaLite", "SWMMFormat", "FloodSim", "NetworkAnalysis",
                "ProcessRuntime", "Emergency", "Flood", "Parking", "Utilities", "Geocoding", "Signals", "Scenarios", "Tiles", "SignalSim", "ParkingSim", "Governance",
                "CityTiles3D",  // citytwin tiles3d export
                "Sponge",  // citytwin sponge design-rainfall|evaluate
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strict),

        // Benchmarks (Benchmarks/README.md): the Swift side of each peer comparison.
        .executableTarget(name: "geocore-bench", dependencies: ["GeoCore", "CGEOS"],
                          path: "Benchmarks/GeoCoreBench", swiftSettings: strict),
        .executableTarget(name: "flood-bench", dependencies: ["FloodSim", "SWMMFormat"],
                          path: "Benchmarks/FloodBench", swiftSettings: strict),
        .executableTarget(name: "network-bench", dependencies: ["NetworkAnalysis", "CityModel", "GeoCore"],
                          path: "Benchmarks/NetworkBench", swiftSettings: strict),
        .executableTarget(name: "emergency-bench", dependencies: ["ProcessRuntime", "Emergency", "Scenarios", "CityModel", "TwinStore", "GeoCore"],
                          path: "Benchmarks/EmergencyBench", swiftSettings: strict),
        .executableTarget(name: "signal-bench", dependencies: ["SignalSim", "GeoCore"],
                          path: "Benchmarks/SignalBench", swiftSettings: strict),
        .executableTarget(name: "parking-bench", dependencies: ["ProcessRuntime", "Parking", "Scenarios", "CityModel", "TwinStore", "GeoCore"],
                          path: "Benchmarks/ParkingBench", swiftSettings: strict),

        .testTarget(name: "MQTTBrokerTests", dependencies: ["MQTTBroker", "MQTTCodec",
                                                            .product(name: "NIOCore", package: "swift-nio"),
                                                            .product(name: "NIOPosix", package: "swift-nio")],
                    swiftSettings: strict),
        .testTarget(name: "EPANETFormatTests", dependencies: ["EPANETFormat", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "DataSourcesTests", dependencies: ["DataSources", "GeoCore", "CityBuild", "TwinStore", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "GeoCoreTests", dependencies: ["GeoCore"],
                    resources: [.copy("Fixtures")], swiftSettings: strict),
        .testTarget(name: "TwinStoreTests", dependencies: ["TwinStore", "QueryLanguage", "TestSupport"], resources: [.copy("Fixtures")],
                    swiftSettings: strict),
        .testTarget(name: "CityModelTests", dependencies: ["CityModel", "SWMMFormat", "TestSupport"], resources: [.copy("Fixtures")],
                    swiftSettings: strict),
        .testTarget(name: "TilesTests", dependencies: ["Tiles", "TestSupport"], resources: [.copy("Fixtures")],
                    swiftSettings: strict),
        .testTarget(name: "FloodSimTests", dependencies: ["FloodSim", "SWMMFormat", "CSurfaceSweeps"], resources: [.copy("Fixtures")],
                    swiftSettings: strict),
        .testTarget(name: "SignalSimTests", dependencies: ["SignalSim", "GeoCore"], swiftSettings: strict),
        .testTarget(name: "ParkingSimTests", dependencies: ["ParkingSim", "GeoCore"],
                    swiftSettings: strict),
        .testTarget(name: "NetworkAnalysisTests", dependencies: ["NetworkAnalysis", "GeoCore"], resources: [.copy("Fixtures")],
                    swiftSettings: strict),
        // The tests' one way to run a program (a command, a server, curl, psql) and talk HTTP to it,
        // and to use a temporary directory.
        .target(name: "TestSupport", dependencies: ["TwinStore", "CityModel", .product(name: "Subprocess", package: "swift-subprocess")],
                path: "Tests/Support", swiftSettings: strict),
        .testTarget(name: "GovernanceTests", dependencies: ["Governance", "CityModel", "TwinStore", "GeoCore", "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "UtilitiesTests", dependencies: ["Utilities", "CityModel", "TwinStore", "GeoCore", "NetworkAnalysis", "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "GeocodingTests", dependencies: ["Geocoding", "Scenarios", "ProcessRuntime", "CityModel", "TwinStore", "GeoCore", "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "EmergencyTests", dependencies: ["Emergency", "Flood", "Scenarios", "ProcessRuntime", "CityModel", "TwinStore", "GeoCore",
                                                           "NetworkAnalysis", "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "FireRescueTests", dependencies: ["FireRescue", "NetworkAnalysis", "GeoCore"], swiftSettings: strict),
        .testTarget(name: "FloodTests", dependencies: ["Flood", "Emergency", "Scenarios", "ProcessRuntime", "CityModel", "TwinStore", "GeoCore",
                                                       "SWMMFormat", "FloodSim", "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "SignalsTests", dependencies: ["Signals", "Scenarios", "ProcessRuntime", "CityModel", "TwinStore", "GeoCore", "SignalSim",
                                                         "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "ParkingTests", dependencies: ["Parking", "ParkingSim", "Scenarios", "ProcessRuntime", "CityModel", "TwinStore", "GeoCore",
                                                         "Emergency", "TestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "ScenariosTests", dependencies: ["Scenarios", "ProcessRuntime", "Emergency", "Flood", "Parking", "Utilities", "Geocoding", "Signals", "CityModel", "TwinStore", "SWMMFormat", "FloodSim", "NetworkAnalysis", "ParkingSim",
                                                           "TestSupport"],
                    swiftSettings: strict),
        .testTarget(
            name: "ServerTests",
            dependencies: [
                "Server", "ProcessRuntime", "Flood", "Parking", "Geocoding", "Signals", "Sensing", "Scenarios", "CityModel", "GeoCore", "TwinStore", "ParkingSim", "SignalSim", "TestSupport",
                // The kernels' errors, to check the one mapping reads them (AnalysisFailureMappingTests).
                "FloodSim", "NetworkAnalysis",
                // One error of each module through the one mapping (ErrorMappingTests.everyModuleMapped).
                "DataSources", "CityBuild", "EPANETFormat", "SWMMFormat", "Tiles", "QueryLanguage", "MQTTBroker", "Sponge",
                "MapRendering",  // render: rendered tiles read back by pixels (RenderedTileCacheTests)
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                // The connection handlers ahead of Hummingbird, fed bytes on an EmbeddedChannel.
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // The test OpenID provider's keys and tokens (OIDCProviderTests).
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            // The recorded process answers (ProcessAnswerRecordings) are read and re-recorded in the source tree.
            exclude: ["Fixtures"],
            swiftSettings: strict),

        // Fuzz harnesses (Scripts/fuzz.sh): one per parser. Built normally they replay corpus files;
        // built with -DFUZZING and -sanitize=fuzzer they are libFuzzer targets. A new harness goes
        // here as `fuzz-<name>` with its source in Fuzz/<Name>/ and seeds in Fuzz/corpus/<name>/
        .target(name: "FuzzSupport", path: "Fuzz/Support", swiftSettings: strict),
        .executableTarget(name: "fuzz-wkt", dependencies: ["GeoCore", "FuzzSupport"], path: "Fuzz/WKT", swiftSettings: strict),
        .executableTarget(name: "fuzz-wkb", dependencies: ["GeoCore", "FuzzSupport"], path: "Fuzz/WKB", swiftSettings: strict),
        .executableTarget(name: "fuzz-geojson", dependencies: ["GeoCore", "FuzzSupport"], path: "Fuzz/GeoJSON", swiftSettings: strict),
        .executableTarget(name: "fuzz-asciigrid", dependencies: ["GeoCore", "FuzzSupport"], path: "Fuzz/FuzzESRIASCII", swiftSettings: strict),
        .executableTarget(name: "fuzz-cql2", dependencies: ["QueryLanguage", "FuzzSupport"], path: "Fuzz/CQL2", swiftSettings: strict),
        .executableTarget(name: "fuzz-swmm", dependencies: ["SWMMFormat", "FuzzSupport"], path: "Fuzz/SWMMInput", swiftSettings: strict),
        .executableTarget(name: "fuzz-epanet", dependencies: ["EPANETFormat", "FuzzSupport"], path: "Fuzz/EPANETInput", swiftSettings: strict),
        .executableTarget(name: "fuzz-signal", dependencies: ["SignalSim", "FuzzSupport"], path: "Fuzz/SignalInput", swiftSettings: strict),
        .executableTarget(name: "fuzz-mqtt", dependencies: ["MQTTCodec", "FuzzSupport"], path: "Fuzz/MQTT", swiftSettings: strict),
        .executableTarget(name: "fuzz-stafilter", dependencies: ["QueryLanguage", "GeoCore", "FuzzSupport"], path: "Fuzz/STAFilter", swiftSettings: strict),
    ]
)
