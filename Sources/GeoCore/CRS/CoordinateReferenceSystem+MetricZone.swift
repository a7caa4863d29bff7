extension CoordinateReferenceSystem {
    /// The metric CRS a city's lengths, areas, buffers, routing costs and grids are computed in,
    /// chosen from where its data lies (`extent`, longitude/latitude degrees): inside China the
    /// CGCS2000 3-degree Gauss–Krüger zone of the extent's centre, by central meridian without
    /// the zone prefix (EPSG:4534–4554, CM 75°E–135°E; the sample district's EPSG:4547 is CM
    /// 114°E); elsewhere the WGS 84 UTM zone of its centre (EPSG:326zz north, 327zz south).
    ///
    /// China is taken as the box 73–135°E, 18–54°N (its mainland and Hainan; the zones' own areas
    /// of use); a centre outside it gets UTM.
    public static func metricZone(for extent: Envelope) -> CoordinateReferenceSystem {
        let lon = (extent.minX + extent.maxX) / 2, lat = (extent.minY + extent.maxY) / 2
        if (73...135).contains(lon) && (18...54).contains(lat) {
            let meridian = min(135, max(75, Int((lon / 3).rounded()) * 3))
            return CoordinateReferenceSystem(epsg: 4534 + (meridian - 75) / 3)
        }
        let zone = min(60, max(1, Int(((lon + 180) / 6).rounded(.down)) + 1))
        return CoordinateReferenceSystem(epsg: (lat >= 0 ? 32600 : 32700) + zone)
    }
}
