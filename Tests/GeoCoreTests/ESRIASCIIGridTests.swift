import Foundation
import Testing
@testable import GeoCore

/// What `gdalinfo -stats -json` reported for a fixture (Scripts/fixtures/make_grid_fixtures.sh).
private struct GDALInfo: Decodable {
    struct Band: Decodable {
        var noDataValue: Double?
        var metadata: [String: [String: String]]
    }
    var size: [Int]
    var geoTransform: [Double]
    var bands: [Band]

    func statistic(_ name: String) throws -> Double {
        let text = try #require(bands.first?.metadata[""]?["STATISTICS_\(name)"])
        return try #require(Double(text))
    }
}

private func fixture(_ name: String, _ ext: String) throws -> URL {
    try #require(Bundle.module.url(forResource: name, withExtension: ext, subdirectory: "Fixtures/grids"))
}

private func expectParseError(_ text: String, message: String, position: String,
                              sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(sourceLocation: sourceLocation) {
        _ = try Grid(esriASCII: text)
    } throws: { error in
        guard let e = error as? GeometryError else { return false }
        #expect(e.code == .parse, sourceLocation: sourceLocation)
        #expect(e.message == message, sourceLocation: sourceLocation)
        #expect(e.position == position, sourceLocation: sourceLocation)
        return true
    }
}

private let header = """
    ncols 3
    nrows 2
    xllcorner 528000
    yllcorner 3380000
    cellsize 5
    NODATA_value -9999

    """

@Suite struct ESRIASCIIGridTests {
    // MARK: GDAL fixtures

    @Test(arguments: ["dem_float", "dem_rectangular", "landuse_int"])
    func readsWhatGDALReadsBack(_ name: String) throws {
        let grid = try Grid.read(esriASCIIAt: try fixture(name, "asc"))
        let info = try JSONDecoder().decode(GDALInfo.self, from: Data(contentsOf: try fixture(name, "json")))

        #expect([grid.width, grid.height] == info.size)
        #expect(grid.geoTransform.gdalCoefficients == info.geoTransform)
        #expect(grid.noData.map(Double.init) == info.bands.first?.noDataValue)

        let stats = try #require(grid.statistics)
        // gdalinfo prints 14 significant digits: enough to name a Float exactly.
        #expect(stats.minimum == Float(try info.statistic("MINIMUM")))
        #expect(stats.maximum == Float(try info.statistic("MAXIMUM")))
        #expect(abs(stats.mean - (try info.statistic("MEAN"))) < 1e-11 * abs(stats.mean))
        #expect(abs(stats.standardDeviation - (try info.statistic("STDDEV"))) < 1e-11 * stats.standardDeviation)
        let validPercent = try info.statistic("VALID_PERCENT")
        #expect(abs(Double(stats.count) / Double(grid.cellCount) * 100 - validPercent) < 0.01)

        // Every cell centre and value as `gdal_translate -of XYZ` listed them, top row first.
        let xyz = try String(contentsOf: try fixture(name, "xyz"), encoding: .utf8)
            .split(whereSeparator: \.isNewline).map { $0.split(separator: " ").compactMap { Double($0) } }
        #expect(xyz.count == grid.cellCount)
        for (i, line) in xyz.enumerated() {
            let (column, row) = (i % grid.width, i / grid.width)
            #expect(grid.cellCenter(column: column, row: row) == Position(line[0], line[1]))
            #expect(grid[column: column, row: row] == Float(line[2]), "cell (\(column), \(row))")
        }
    }

    // MARK: Dialect

    @Test func keysAreCaseInsensitiveAndValuesMayWrap() throws {
        let text = "NCOLS 3\r\nNRows 2\r\nXLLCorner 528000\r\nyllCORNER 3380000\r\nCellSize 5\r\nnodata_VALUE -9999\r\n"
            + "1.5\t2\n  3 4\r\n\n5 -9999 \n"
        let grid = try Grid(esriASCII: text)
        #expect(grid.width == 3 && grid.height == 2)
        #expect(grid.values == [1.5, 2, 3, 4, 5, -9999])
        #expect(grid.noData == -9999)
        #expect(grid.geoTransform == .northUp(west: 528_000, north: 3_380_010, cellWidth: 5, cellHeight: 5))
    }

    @Test func cellCentreOriginIsHalfACellInside() throws {
        // gdalinfo reports origin (527997.5, 3380007.5) for this header.
        let grid = try Grid(esriASCII: "ncols 3\nnrows 2\nxllcenter 528000\nyllcenter 3380000\ncellsize 5\n1 2 3 4 5 6\n")
        #expect(grid.geoTransform.gdalCoefficients == [527_997.5, 5, 0, 3_380_007.5, 0, -5])
        #expect(grid.cellCenter(column: 0, row: 1) == Position(528_000, 3_380_000))
        #expect(grid.noData == nil)
    }

    @Test func headerKeysMayComeInAnyOrderAndNaNIsAValue() throws {
        let grid = try Grid(esriASCII: "cellsize 1\nyllcorner 0\nxllcorner 0\nnrows 1\nncols 3\nnan 1e-3 -INF\n")
        #expect(grid.values[0].isNaN && grid.values[1] == 0.001 && grid.values[2] == -.infinity)
        #expect(grid.statistics?.count == 2)
    }

    @Test func bytesWithAByteOrderMarkParseLikeText() throws {
        let text = header + "1 2 3\n4 5 6\n"
        let grid = try Grid(esriASCIIData: Data([0xEF, 0xBB, 0xBF] + Array(text.utf8)))
        #expect(grid == (try Grid(esriASCII: text)))
    }

    // MARK: Writing

    @Test func writeThenReadIsExact() throws {
        var rng = SplitMix(seed: 7)   // TransformTests' generator
        let grid = try Grid(width: 37, height: 23,
                            geoTransform: .northUp(west: 528_000.25, north: 3_380_115.75, cellWidth: 2.5, cellHeight: 2.5),
                            noData: -9999) { column, row in
            (column + row) % 11 == 0 ? -9999 : Float(bitPattern: 0x41A0_0000 | UInt32(rng.next() * 0x10_0000))
        }
        let back = try Grid(esriASCII: try grid.esriASCII())
        #expect(back == grid)
    }

    @Test func rectangularCellsAreWrittenAsDxDy() throws {
        let grid = try Grid(width: 2, height: 2, geoTransform: .northUp(west: 100, north: 250, cellWidth: 20, cellHeight: 25),
                            values: [1, 2.5, -3.25, 1e-5])
        let text = try grid.esriASCII()
        #expect(text == """
            ncols         2
            nrows         2
            xllcorner     100
            yllcorner     200
            dx            20
            dy            25
            1 2.5
            -3.25 1e-05

            """)
        #expect(try Grid(esriASCII: text) == grid)
    }

    @Test func precisionFixesDecimalPlaces() throws {
        let grid = try Grid(width: 4, height: 1, geoTransform: .northUp(west: 0, north: 1, cellWidth: 1, cellHeight: 1),
                            noData: -9999, values: [21.456, -0.001, -9999, 7])
        let text = try grid.esriASCII(precision: 2)
        #expect(text.hasSuffix("NODATA_value -9999.00\n21.46 0.00 -9999.00 7.00\n"))
        #expect(try Grid(esriASCII: text).values == [21.46, 0, -9999, 7])
        #expect(throws: GeometryError.self) { _ = try grid.esriASCII(precision: 12) }
    }

    @Test func gridsTheFormatCannotHoldAreRefused() throws {
        let rotated = try Grid(width: 2, height: 2,
                               geoTransform: GeoTransform(originX: 0, pixelWidth: 1, rowRotation: 0.1, originY: 0,
                                                          columnRotation: 0, pixelHeight: -1),
                               repeating: 1)
        #expect(throws: GeometryError.self) { _ = try rotated.esriASCII() }
        let empty = try Grid(width: 0, height: 3, geoTransform: .northUp(west: 0, north: 0, cellWidth: 1, cellHeight: 1))
        #expect(throws: GeometryError.self) { _ = try empty.esriASCII() }
    }

    @Test func filesRoundTrip() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("citytwin-grid-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("dem.asc")
        let grid = try Grid.read(esriASCIIAt: try fixture("dem_float", "asc"))
        try grid.write(esriASCIITo: url)
        #expect(try Grid.read(esriASCIIAt: url) == grid)
        #expect(throws: (any Error).self) { _ = try Grid.read(esriASCIIAt: directory.appendingPathComponent("missing.asc")) }
    }

    // MARK: Errors

    @Test func emptyInputNamesTheFirstMissingKey() {
        expectParseError("", message: "missing header key 'ncols'", position: "line 1")
    }

    @Test func missingKeysAreNamed() {
        expectParseError("ncols 3\nnrows 2\nxllcorner 0\ncellsize 5\n1 2 3 4 5 6\n",
                         message: "missing header key 'yllcorner' (or 'yllcenter')", position: "line 5")
        expectParseError("ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\n1 2 3 4 5 6\n",
                         message: "missing header key 'cellsize' (or 'dx' and 'dy')", position: "line 5")
        expectParseError("ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\ndx 5\n1 2 3 4 5 6\n",
                         message: "missing header key 'dy' (given 'dx')", position: "line 6")
    }

    @Test func sizesMustBePositive() {
        expectParseError("ncols 3\nnrows 0\nxllcorner 0\nyllcorner 0\ncellsize 5\n",
                         message: "'nrows' must be a positive whole number, got 0.0", position: "line 2")
        expectParseError("ncols -3\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 5\n1 2 3 4 5 6\n",
                         message: "'ncols' must be a positive whole number, got -3.0", position: "line 1")
        expectParseError("ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize -5\n1 2 3 4 5 6\n",
                         message: "'cellsize' must be positive, got -5.0", position: "line 5")
    }

    @Test func badHeaderLinesAreNamed() {
        expectParseError("ncols 3\nnrows 2\nxllcorner abc\n", message: "header key 'xllcorner' has a non-numeric value",
                         position: "line 3")
        expectParseError("ncols 3\nncols 3\n", message: "header key 'ncols' appears twice", position: "line 2")
        expectParseError("ncols 3\nrows 2\n", message: "not an ESRI ASCII grid header key (expected ncols, nrows, xllcorner, xllcenter, yllcorner, yllcenter, cellsize, dx, dy, nodata_value)",
                         position: "line 2")
        // A file that is not a grid (a password file, say) is refused without quoting a byte of it.
        expectParseError("root:x:0:0:root:/root:/bin/bash\n", message: "not an ESRI ASCII grid header key (expected ncols, nrows, xllcorner, xllcenter, yllcorner, yllcenter, cellsize, dx, dy, nodata_value)",
                         position: "line 1")
        expectParseError("ncols\n3\n", message: "header key 'ncols' has no value", position: "line 1")
        expectParseError(header.replacingOccurrences(of: "xllcorner", with: "xllcenter 0\nxllcorner"),
                         message: "header has both 'xllcorner' and 'xllcenter'", position: "line 3")
    }

    /// Found by `fuzz-asciigrid` (its input is in Fuzz/corpus/asciigrid/nodata_beyond_float.asc):
    /// a finite marker that no 32-bit cell can hold was read as -inf, which the writer then wrote
    /// as a header value the reader refuses.
    @Test func aNoDataValueBeyondTheCellsRangeIsRefused() {
        expectParseError("ncols 1\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize 1\nNODATA_value -9e99\n-9999\n",
                         message: "header key 'nodata_value' is outside the range of the grid's 32-bit cell values",
                         position: "line 6")
    }

    @Test func tooFewValuesAreCounted() {
        expectParseError(header + "1 2 3\n4 5\n", message: "expected 6 values (2 rows of 3), found 5", position: "line 9")
        expectParseError(header, message: "expected 6 values (2 rows of 3), found 0", position: "line 7")
    }

    @Test func tooManyValuesAreCounted() {
        expectParseError(header + "1 2 3\n4 5 6\n7 8\n", message: "expected 6 values (2 rows of 3), found 8",
                         position: "line 9, column 1")
    }

    @Test func nonNumericValueIsLocatedByLineAndColumn() {
        expectParseError(header + "1 2 3\n4 5x 6\n", message: "non-numeric value for cell (column 1, row 1)",
                         position: "line 8, column 3")
        expectParseError(header + "1 2 3\n4 0x1p3 6\n", message: "non-numeric value for cell (column 1, row 1)",
                         position: "line 8, column 3")
        expectParseError(header + "1 2 - 4 5 6\n", message: "non-numeric value for cell (column 2, row 0)",
                         position: "line 7, column 5")
    }

    @Test func hugeHeaderOverATinyBodyIsAnErrorNotAnAllocation() {
        expectParseError("ncols 2000000000\nnrows 2000000000\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2 3\n",
                         message: "expected 4000000000000000000 values (2000000000 rows of 2000000000), found 3",
                         position: "line 7")
    }

    @Test func numbersParseAsGDALDoes() throws {
        // GDAL writes Float32 cells as their exact decimal expansion (20+ digits); the fast path
        // must agree with strtod-then-Float on those and on everything else.
        var rng = SplitMix(seed: 42)   // TransformTests' generator
        var tokens: [String] = ["0", "-0", "1e-45", "3.4028235e38", "16777217", "0.1", "-9999.0",
                                "22.04325103759765625", "1.00000005960464477539062500001", "7.038531e-26",
                                "123456789012345678901234567890", "0.000000000000000000000000000000001"]
        for _ in 0..<2000 {
            let f = Float(bitPattern: UInt32(rng.next() * 0x1_0000_0000))
            guard f.isFinite else { continue }
            tokens.append(f.description)
            tokens.append(String(format: "%.25g", Double(f)))
            tokens.append(String(format: "%.12e", Double(f)))
        }
        let grid = try Grid(esriASCII: "ncols \(tokens.count)\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize 1\n"
                                + tokens.joined(separator: " "))
        for (token, value) in zip(tokens, grid.values) {
            #expect(value.bitPattern == Float(try #require(Double(token))).bitPattern, "\(token)")
        }
    }
}
