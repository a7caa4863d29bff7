import Emergency
import FireRescue
import Flood
import Foundation
import Geocoding
import Parking
import ProcessRuntime
import Signals
import Sponge
import Utilities

extension ProcessRegistry {
    /// Every process CityTwin ships. The flood scenario reads its DEM from the store's managed
    /// rasters and writes its result rasters beside a SpatiaLite store (`forStore(directory:)`);
    /// without a directory it writes no raster.
    public static let standard = forStore(directory: nil)

    /// The standard processes for a store whose files live in `directory` (the result rasters in
    /// `rasters`, by default `ResultRasters.beside(storeDirectory:)`).
    public static func forStore(directory: URL?, rasters: ResultRasters? = nil) -> ProcessRegistry {
        let flood = FloodScenarioProcess(rasters: rasters ?? directory.map(ResultRasters.beside(storeDirectory:)))
        return ProcessRegistry([
            FeaturesInArea(), RouteProcess(), GeocodingProcess(),
            NearestResourcesProcess(), ServiceAreaProcess(), CoverageProcess(), HazardOverlayProcess(),
            HydrantCoverageProcess(), FirePrePlanProcess(), FireStationCoverageProcess(),
            NetworkTraceProcess(), ValveIsolationProcess(),
            ParkingGuidanceProcess(), ParkingForecastProcess(), ParkingSimulationProcess(),
            flood, ScenarioRunProcess(flood: flood), CompareScenariosProcess(),
            SignalTimingProcess(), GreenWaveProcess(), SignalEvaluateProcess(),
            SpongeDesignRainfallProcess(), SpongeEvaluateProcess(),
        ])
    }
}
