import Foundation
import GeoCore
import MapRendering
import Testing
import TestSupport
import TwinStore

/// `citytwin export map` writes the page `GET /map/print` serves: the same checks by pixels, the
/// public's view unless a department is named, and a bad value refused naming it.
@Suite("citytwin export map", .serialized)
struct MapPrintCommandTests {
    @Test("a PDF page of the lakes and shelters passes the page checks; the wells need their department; A5 is refused naming paper")
    func exportMap() async throws {
        try await withTemporaryDirectory("citytwin-print-cli") { dir in
            let store = try await ServerFixture.makeStore(in: dir)
            try await store.createLayer(try JSONDecoder().decode(LayerDefinition.self, from: Data(MapPrintTests.lakesJSON.utf8)))
            try await store.insert(layer: "lakes", features: [
                Feature(id: .string("east"), geometry: MapPrintTests.square(MapPrintTests.lake.west, MapPrintTests.lake.south,
                                                                            MapPrintTests.lake.east, MapPrintTests.lake.north), properties: ["name": "东湖"]),
                Feature(id: .string("west"), geometry: MapPrintTests.square(114.28, 30.58, 114.30, 30.63), properties: ["name": "西湖"]),
            ], by: .admin, at: nil)
            let path = dir.appending("city.sqlite").path
            func citytwin(_ arguments: [String]) async throws -> CommandProcess {
                try await CommandProcess.run(try OutageHarness.binary(), ["export", "map"] + arguments + ["--bbox", MapPrintTests.bbox, "--store", path],
                                             directory: dir.url.path, within: 120)
            }
            let done = try await citytwin(["page.pdf", "--layers", "lakes,shelters", "--title", "汉口避难场所"])
            #expect(done.exitStatus == 0, "\(done.output)")
            try MapPrintTests.expectPage(try MapPrintPage(pdf: Array(try Data(contentsOf: dir.appending("page.pdf")))))
            let hidden = try await citytwin(["wells.pdf", "--layers", "wells"])
            #expect(hidden.exitStatus != 0 && hidden.output.contains("wells"), "\(hidden.output)")
            let owner = try await citytwin(["wells.png", "--layers", "wells", "--department", "水务局", "--dpi", "72"])
            #expect(owner.exitStatus == 0, "\(owner.output)")
            #expect(try PNGImage(Array(try Data(contentsOf: dir.appending("wells.png")))).width == 842)
            let bad = try await citytwin(["a5.pdf", "--layers", "lakes", "--paper", "A5"])
            #expect(bad.exitStatus != 0 && bad.output.contains("paper") && bad.output.contains("A4, A3"), "\(bad.output)")
        }
    }
}
