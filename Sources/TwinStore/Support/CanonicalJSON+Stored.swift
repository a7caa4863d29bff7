import Foundation
import GeoCore
import QueryLanguage

extension CanonicalJSON {
    /// Parses the `props` column back; the store wrote it, so failure means corruption.
    static func parseObject(_ text: String, layer: String, feature: String) throws -> [String: JSONValue] {
        do {
            let v = try JSONValue(json: text)
            guard let o = v.objectValue else { throw StoreError(.backend, "stored properties are not an object", layer: layer, feature: feature) }
            return o
        } catch let e as StoreError {
            throw e
        } catch {
            throw StoreError(.backend, "stored properties do not parse: \(error)", layer: layer, feature: feature)
        }
    }
}
