import ArgumentParser
import CityModel
import Emergency
import GeoCore
import Scenarios

/// `citytwin network coverage`: the district against the emergency standards (the `coverage`
/// process run on a local store as the admin), printed as JSON.
struct CoverageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coverage",
        abstract: "Fire-station 5-minute and shelter 500 m coverage, shelter capacity per community (≥ 15 %), gaps and suggested sites (JSON).")

    @Option(help: "Fire-station drive time in minutes.")
    var fireMinutes: Double = 5
    @Option(help: "Shelter walking distance in metres.")
    var shelterWalkMetres: Double = 500
    @Option(help: "Address level counted as demand: 门牌, 楼栋, 单元 or 户室.")
    var addressLevel: String = "门牌"
    @Option(help: "Share of the population shelters must hold.")
    var capacityShare: Double = 0.15
    @Option(help: "New fire-station and shelter sites to suggest (0…5).")
    var suggestions: Int = 1
    @Option(help: "At most this many uncovered ids listed per gap.")
    var listLimit: Int = 100
    @Option(help: "How far in metres a point may lie from the nearest road and still be routed (default 500).")
    var maxSnapMetres: Double = StoreRoadGraph.defaultMaximumSnapMetres
    @OptionGroup var storeOption: StoreOption
    var store: String { storeOption.path }

    func run() async throws {
        let inputs: [String: JSONValue] = [
            "fireMinutes": .number(fireMinutes), "shelterWalkMetres": .number(shelterWalkMetres), "addressLevel": .string(addressLevel),
            "capacityShare": .number(capacityShare), "suggestions": .integer(Int64(suggestions)), "listLimit": .integer(Int64(listLimit)),
            "maximumSnapMetres": .number(maxSnapMetres),
        ]
        try printJSONDocument(try await ProcessRunner(store: store).run("coverage", inputs))
    }
}
