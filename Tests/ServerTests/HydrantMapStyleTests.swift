import Foundation
import GeoCore
@testable import Server
import Testing
import TwinStore

/// Issue 54 §3: the web map tells working hydrants (完好) from those out of service (待维修), in
/// the circles' colour and the legend, from the colours of `Layers/hydrants.json`'s style.
@Suite struct HydrantMapStyleTests {
    @Test("hydrants are drawn by status: 完好 and 待维修 in different colours, each with a legend label")
    func workingAndOutOfServiceApart() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Layers/hydrants.json").standardizedFileURL
        let definition = try JSONDecoder().decode(LayerDefinition.self, from: Data(contentsOf: file))
        let info = LayerInfo(definition: definition, extent: nil, count: 1, lastChange: 0)
        let layers = MapStyle(layers: [info], audience: .public, url: { "http://x" + $0 }, fontstack: nil).document["layers"]?.arrayValue ?? []
        let circle = try #require(layers.first { $0["id"]?.stringValue == "hydrants-circle" })
        let colour = try #require(circle["paint"]?["circle-color"]?.arrayValue)
        #expect(colour.first == "match" && colour.dropFirst().first == ["get", "status"], "\(colour)")
        func colourOf(_ status: String) -> JSONValue? { colour.firstIndex(of: .string(status)).map { colour[$0 + 1] } }
        let working = try #require(colourOf("完好")), broken = try #require(colourOf("待维修"))
        #expect(working != broken)
        #expect(colour.last != working, "a status the style does not know is not drawn as working")
        let labels = circle["metadata"]?["citytwin:labels"]?.objectValue ?? [:]
        #expect(labels["完好"] != nil && labels["待维修"] != nil, "\(circle)")
    }
}
