/// Grids the raster tests write as files for GDAL's tools and CityTwin to read.
public enum SampleGrids {
    /// A 6 × 5 ESRI ASCII terrain of 0.001° cells in CGCS2000 degrees near Wuhan, with one nodata
    /// cell (row 3, column 3): elevations 19–23.5 m.
    public static let wuhanDegrees = """
        ncols 6
        nrows 5
        xllcorner 114.30
        yllcorner 30.60
        cellsize 0.001
        NODATA_value -9999
        21.0 21.5 22.0 22.5 23.0 23.5
        20.5 21.0 21.5 22.0 22.5 23.0
        20.0 20.5 -9999 21.5 22.0 22.5
        19.5 20.0 20.5 21.0 21.5 22.0
        19.0 19.5 20.0 20.5 21.0 21.5
        """
}
