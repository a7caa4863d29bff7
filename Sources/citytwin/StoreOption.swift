import ArgumentParser
import CityModel

/// `--store`, the one store option of every command that opens a store: a SpatiaLite file
/// path, `spatialite:PATH` or `postgresql://…` (PostGIS), parsed by `StoreLocation`.
struct StoreOption: ParsableArguments {
    @Option(name: .customLong("store"),
            help: "The store: a SpatiaLite file path, spatialite:PATH or postgresql://… (PostGIS).")
    var path: String = DistrictLoader.defaultStorePath
}
