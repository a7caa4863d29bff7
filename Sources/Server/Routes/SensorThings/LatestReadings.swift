import Sensing
import TwinStore

extension CityTwinServer {
    /// The read-time join of latest readings onto features, when the store keeps SensorThings data.
    var latestReadings: SensorFeatureLinks? {
        (store as? any SensingStore).map { SensorFeatureLinks(store: store, sensing: $0) }
    }
}
