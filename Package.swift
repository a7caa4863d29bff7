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
        .library(name: "TwinStore", targets: ["TwinStore"]),
        .library(name: "CityModel", targets: ["CityModel"]),
        .executable(name: "citytwin", targets: ["citytwin"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.5.0"),
    ],
    targets: [
        // C libraries, found through pkg-config.
        .systemLibrary(name: "CGEOS", path: "Sources/CGEOS", pkgConfig: "geos",
                       providers: [.apt(["libgeos-dev"])]),
        .systemLibrary(name: "CPROJ", path: "Sources/CPROJ", pkgConfig: "proj",
                       providers: [.apt(["libproj-dev", "proj-data"])]),
        .systemLibrary(name: "CSpatiaLite", path: "Sources/CSpatiaLite", pkgConfig: "spatialite",
                       providers: [.apt(["libspatialite-dev", "libsqlite3-mod-spatialite"])]),

        // Geometry core: value types, GEOS bridge, codecs, CRS and transforms, rasters, STRtree.
        .target(name: "GeoCore", dependencies: ["CGEOS", "CPROJ"], swiftSettings: strict),

        // The one-map store: FeatureStore protocol, SpatiaLite (embedded) and PostGIS backends,
        // layer catalog, versions, audit log, change feed, access rules.
        .target(
            name: "TwinStore",
            dependencies: [
                "GeoCore", "CSpatiaLite",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),

        // The CIM domain: layer schemas, network topology checks, importers, the sample district.
        .target(name: "CityModel", dependencies: ["GeoCore", "TwinStore"], swiftSettings: strict),

        // The command-line interface.
        .executableTarget(
            name: "citytwin",
            dependencies: [
                "GeoCore", "TwinStore", "CityModel", "CSpatiaLite",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict),

        // Benchmarks (Benchmarks/README.md): the Swift side of each peer comparison.
        .executableTarget(name: "geocore-bench", dependencies: ["GeoCore"],
                          path: "Benchmarks/GeoCoreBench", swiftSettings: strict),

        .testTarget(name: "GeoCoreTests", dependencies: ["GeoCore"],
                    resources: [.copy("Fixtures")], swiftSettings: strict),
        .testTarget(name: "TwinStoreTests", dependencies: ["TwinStore"], swiftSettings: strict),
        .testTarget(name: "CityModelTests", dependencies: ["CityModel"], swiftSettings: strict),
    ]
)
