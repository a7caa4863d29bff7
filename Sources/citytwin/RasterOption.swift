import ArgumentParser
import Flood
import Foundation
import Scenarios

/// `--rasters DIR`: where runs write the rasters beside their result layers (a flood run's
/// maximum-depth grid) and where `serve` finds them to serve at
/// `/collections/{collectionId}/rasters/{rasterName}`. `serve`, `worker` and `simulate flood`
/// take it so the three agree; by default `rasters/` beside a SpatiaLite store, none for PostGIS.
struct RasterOption: ParsableArguments {
    @Option(name: .customLong("rasters"),
            help: "Directory of the rasters runs write beside their result layers (default: rasters/ beside a SpatiaLite store; none for PostGIS).")
    var directory: String?

    /// The rasters of `location`'s runs, or nil when there is nowhere to keep them.
    func rasters(for location: StoreLocation) -> ResultRasters? {
        if let directory { return ResultRasters(directory: URL(fileURLWithPath: directory, isDirectory: true)) }
        return location.directory.map(ResultRasters.beside(storeDirectory:))
    }
}
