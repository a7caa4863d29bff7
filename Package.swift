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
        .executable(name: "citytwin", targets: ["citytwin"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
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

        // The command-line interface.
        .executableTarget(
            name: "citytwin",
            dependencies: [
                "GeoCore", "CSpatiaLite",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict),

        // Benchmarks (Benchmarks/README.md): the Swift side of each peer comparison.
        .executableTarget(name: "geocore-bench", dependencies: ["GeoCore"],
                          path: "Benchmarks/GeoCoreBench", swiftSettings: strict),

        .testTarget(name: "GeoCoreTests", dependencies: ["GeoCore"],
                    resources: [.copy("Fixtures")], swiftSettings: strict),
    ]
)
