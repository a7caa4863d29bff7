import Testing
@testable import GeoCore

/// A 4 × 3 north-up DEM tile in Gauss-Krüger CM 114°E metres, 10 m cells, top-left corner at
/// (528000, 3380030); heights rise 1 m per column eastward and fall 10 m per row southward.
private func slopeTile(noData: Float? = -9999) throws -> Grid {
    try Grid(width: 4, height: 3, geoTransform: .northUp(west: 528_000, north: 3_380_030, cellWidth: 10, cellHeight: 10),
             noData: noData) { column, row in Float(100 + column - 10 * row) }
}

@Suite struct GridTests {
    @Test func emptyGridHasNoCellsAndNoStatistics() throws {
        let empty = try Grid(width: 0, height: 0, geoTransform: .northUp(west: 0, north: 0, cellWidth: 1, cellHeight: 1))
        #expect(empty.isEmpty)
        #expect(empty.cellCount == 0)
        #expect(empty.statistics == nil)
        #expect(empty.value(at: Position(0, 0)) == nil)
        #expect(empty.bilinear(at: Position(0, 0)) == nil)
        #expect(empty.cell(containing: Position(0, 0)) == nil)
        #expect(empty.envelope == Envelope(minX: 0, minY: 0, maxX: 0, maxY: 0))
    }

    @Test func sizeAndValueCountAreChecked() {
        let t = GeoTransform.northUp(west: 0, north: 0, cellWidth: 1, cellHeight: 1)
        #expect(throws: GeometryError.self) { _ = try Grid(width: -1, height: 2, geoTransform: t) }
        #expect(throws: GeometryError.self) { _ = try Grid(width: Int.max, height: 2, geoTransform: t) }
        #expect {
            _ = try Grid(width: 2, height: 2, geoTransform: t, values: [1, 2, 3])
        } throws: { error in
            (error as? GeometryError)?.code == .invalidArgument
                && (error as? GeometryError)?.message == "a 2 x 2 grid needs 4 values, got 3"
        }
    }

    @Test func valuesAreRowMajorFromTheNorthRow() throws {
        var tile = try slopeTile()
        #expect(tile.values == [100, 101, 102, 103, 90, 91, 92, 93, 80, 81, 82, 83])
        #expect(tile[column: 3, row: 0] == 103)
        #expect(tile[column: 0, row: 2] == 80)
        tile[column: 1, row: 2] = 7
        #expect(tile.values[2 * 4 + 1] == 7)
    }

    @Test func cellCentresAndContainingCellsInvertEachOther() throws {
        let tile = try slopeTile()
        #expect(tile.cellCenter(column: 0, row: 0) == Position(528_005, 3_380_025))
        #expect(tile.cellCenter(column: 3, row: 2) == Position(528_035, 3_380_005))
        for row in 0..<3 {
            for column in 0..<4 {
                let c = try #require(tile.cell(containing: tile.cellCenter(column: column, row: row)))
                #expect(c.column == column && c.row == row)
            }
        }
        // Half-open cells: the north-west corner is in cell (0, 0); the east and south edges are outside.
        #expect(tile.cell(containing: Position(528_000, 3_380_030))! == (0, 0))
        #expect(tile.cell(containing: Position(528_010, 3_380_020))! == (1, 1))
        #expect(tile.cell(containing: Position(528_040, 3_380_020)) == nil)
        #expect(tile.cell(containing: Position(528_020, 3_380_000)) == nil)
        #expect(tile.cell(containing: Position(527_999.9, 3_380_020)) == nil)
        #expect(tile.cell(containing: Position(.nan, 3_380_020)) == nil)
        #expect(tile.envelope == Envelope(minX: 528_000, minY: 3_380_000, maxX: 528_040, maxY: 3_380_030))
    }

    @Test func rotatedTransformMapsBothWays() throws {
        // GDAL's general affine: 30° rotation, 2 m cells.
        let c = 3.0.squareRoot()
        let t = GeoTransform(originX: 1000, pixelWidth: c, rowRotation: -1, originY: 2000, columnRotation: 1, pixelHeight: -c)
        #expect(!t.isNorthUp)
        #expect(GeoTransform(gdalCoefficients: t.gdalCoefficients) == t)
        let grid = try Grid(width: 5, height: 4, geoTransform: t, repeating: 1)
        for row in 0..<4 {
            for column in 0..<5 {
                let cell = try #require(grid.cell(containing: grid.cellCenter(column: column, row: row)))
                #expect(cell.column == column && cell.row == row)
            }
        }
        let p = t.position(column: 2.25, row: 1.5)
        let back = try #require(t.cellCoordinates(of: p))
        #expect(abs(back.column - 2.25) < 1e-12 && abs(back.row - 1.5) < 1e-12)
        // The envelope holds all four outer corners.
        for (column, row) in [(0.0, 0.0), (5.0, 0.0), (0.0, 4.0), (5.0, 4.0)] {
            #expect(grid.envelope.contains(t.position(column: column, row: row)))
        }
        #expect(GeoTransform(originX: 0, pixelWidth: 1, rowRotation: 1, originY: 0, columnRotation: 1, pixelHeight: 1)
            .cellCoordinates(of: Position(1, 1)) == nil)
    }

    @Test func nearestSamplingSkipsNoData() throws {
        var tile = try slopeTile()
        #expect(tile.value(at: Position(528_012, 3_380_018)) == 91)
        tile[column: 1, row: 1] = -9999
        #expect(tile.value(at: Position(528_012, 3_380_018)) == nil)
        tile[column: 1, row: 1] = .nan
        #expect(tile.value(at: Position(528_012, 3_380_018)) == nil)
        #expect(tile.value(at: Position(528_050, 3_380_018)) == nil)
    }

    @Test func bilinearReproducesAPlaneAndCellCentres() throws {
        let tile = try slopeTile()
        // Heights are the plane z = 100 + (x - 528005)/10 - (3380025 - y); bilinear is exact on it
        // between cell centres and equal to the edge cells beyond them.
        for (x, y) in [(528_005.0, 3_380_025.0), (528_012.5, 3_380_017.0), (528_033.0, 3_380_006.0), (528_020.0, 3_380_020.0)] {
            let expected = 100 + (x - 528_005) / 10 - (3_380_025 - y)
            let got = try #require(tile.bilinear(at: Position(x, y)))
            #expect(abs(Double(got) - expected) < 1e-4)
        }
        for row in 0..<3 {
            for column in 0..<4 {
                #expect(tile.bilinear(at: tile.cellCenter(column: column, row: row)) == tile[column: column, row: row])
            }
        }
        // Outer edge: the edge cell value is extended; just outside: nothing.
        #expect(tile.bilinear(at: Position(528_000, 3_380_025)) == 100)
        #expect(tile.bilinear(at: Position(528_040, 3_380_000)) == 83)
        #expect(tile.bilinear(at: Position(528_040.1, 3_380_010)) == nil)
    }

    @Test func bilinearLeavesNoDataNeighboursOut() throws {
        var tile = try slopeTile()
        tile[column: 1, row: 0] = -9999
        // Midway between the centres of (0,0) 100, (1,0) hole, (0,1) 90, (1,1) 91.
        let mid = Position(528_010, 3_380_020)
        #expect(tile.bilinear(at: mid) == Float((100.0 + 90 + 91) / 3))
        // A position inside the hole itself has no value.
        #expect(tile.bilinear(at: Position(528_014, 3_380_026)) == nil)
    }

    @Test func statisticsSkipNoDataAndNaN() throws {
        var tile = try slopeTile()
        let all = try #require(tile.statistics)
        #expect(all.count == 12 && all.minimum == 80 && all.maximum == 103)
        #expect(abs(all.mean - 91.5) < 1e-12)
        // Population deviation: columns add variance 1.25, rows 66.67.
        #expect(abs(all.standardDeviation - (1.25 + 200.0 / 3).squareRoot()) < 1e-12)

        tile[column: 0, row: 2] = -9999
        tile[column: 3, row: 0] = .nan
        let some = try #require(tile.statistics)
        #expect(some.count == 10 && some.minimum == 81 && some.maximum == 102)
        #expect(abs(some.mean - (1098.0 - 80 - 103) / 10) < 1e-12)

        tile.fill(-9999)
        #expect(tile.statistics == nil)
        #expect(try slopeTile(noData: nil).statistics?.count == 12)
    }

    @Test func mapTransformsValidCellsOnly() throws {
        var tile = try slopeTile()
        tile[column: 2, row: 1] = -9999
        let feet = tile.map { $0 / 0.3048 }
        #expect(feet[column: 2, row: 1] == -9999)
        #expect(feet[column: 0, row: 0] == Float(100) / 0.3048)
        #expect(feet.geoTransform == tile.geoTransform && feet.noData == tile.noData)
        #expect(tile[column: 0, row: 0] == 100)   // value semantics: the original is untouched
    }

    @Test func fiveThousandSquareDEMFitsInOneBuffer() throws {
        var dem = try Grid(width: 5000, height: 5000,
                           geoTransform: .northUp(west: 500_000, north: 3_400_000, cellWidth: 2, cellHeight: 2),
                           noData: -9999, repeating: 25)
        #expect(dem.cellCount == 25_000_000)
        dem[column: 4999, row: 4999] = 40
        dem[column: 0, row: 0] = -9999
        let stats = try #require(dem.statistics)
        #expect(stats.count == 24_999_999 && stats.maximum == 40 && stats.minimum == 25)
        #expect(dem.value(at: Position(509_999, 3_390_001)) == 40)
    }
}
