import ArgumentParser
import CityModel
import Foundation
import GeoCore
import TwinStore

/// `citytwin layers`: the store's catalogue as JSON (id, title, category, count, extent).
struct LayersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "layers",
        abstract: "Print the store's layer catalogue as JSON: id, title, category, count, extent (EPSG:4490 degrees).")

    @OptionGroup var storeOption: StoreOption
    var store: String { storeOption.path }

    func run() async throws {
        let infos = try await StoreLocation(store).openExisting().layers(for: .admin)
        let entries: [JSONValue] = infos.map { info in
            let d = info.definition
            return [
                "id": .string(d.id),
                "title": ["zh": .string(d.title.zh), "en": .string(d.title.en)],
                "category": .string(d.category.rawValue),
                "count": .integer(Int64(info.count)),
                "extent": info.extent.map { e in [.number(e.minX), .number(e.minY), .number(e.maxX), .number(e.maxY)] } ?? .null,
            ]
        }
        let encoder = JSONOutput.encoder(.pretty)
        print(String(decoding: try encoder.encode(JSONValue.array(entries)), as: UTF8.self))
    }
}
