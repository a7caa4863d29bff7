import Foundation
import GeoCore
import Tiles
import TwinStore

/// The WMTS 1.0.0 capabilities document (OGC 07-057r7, wmtsGetCapabilities_response.xsd):
/// KVP and RESTful GetCapabilities and GetTile, a layer per collection the caller may read with
/// its lon/lat box, its `default` style (legend: WMS GetLegendGraphic), PNG tiles rendered from
/// the web map's style and MVT tiles (the OGC API's), and the three tile matrix sets tiles are served in (WebMercatorQuad,
/// WorldCRS84Quad, CGCS2000Quad; the last also answers to Tianditu's `c`), with each matrix's
/// top-left corner in its CRS's axis order.
struct WMTSCapabilities {
    let layers: [LayerInfo]
    /// The service's URL (`…/wmts`).
    let serviceURL: String
    /// The WMS's URL (`…/wms`): each layer's legend is its GetLegendGraphic.
    let legendService: String

    var xml: String {
        func e(_ s: String) -> String { MarkupEscaping.escape(s) }
        var out = """
        <?xml version="1.0" encoding="UTF-8"?>
        <Capabilities xmlns="http://www.opengis.net/wmts/1.0" xmlns:ows="http://www.opengis.net/ows/1.1" \
        xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
        xsi:schemaLocation="http://www.opengis.net/wmts/1.0 http://schemas.opengis.net/wmts/1.0/wmtsGetCapabilities_response.xsd" version="1.0.0">
          <ows:ServiceIdentification>
            <ows:Title>CityTwin 一张图</ows:Title>
            <ows:ServiceType>OGC WMTS</ows:ServiceType>
            <ows:ServiceTypeVersion>1.0.0</ows:ServiceTypeVersion>
          </ows:ServiceIdentification>
          <ows:OperationsMetadata>

        """
        // GetFeatureInfo is served in KVP only.
        for (op, rest) in [("GetCapabilities", true), ("GetTile", true), ("GetFeatureInfo", false)] {
            let restful = rest ? """
                    <ows:Get xlink:href="\(e(serviceURL))/1.0.0/"><ows:Constraint name="GetEncoding"><ows:AllowedValues><ows:Value>RESTful</ows:Value></ows:AllowedValues></ows:Constraint></ows:Get>

            """ : ""
            out += """
                <ows:Operation name="\(op)">
                  <ows:DCP><ows:HTTP>
                    <ows:Get xlink:href="\(e(serviceURL))?"><ows:Constraint name="GetEncoding"><ows:AllowedValues><ows:Value>KVP</ows:Value></ows:AllowedValues></ows:Constraint></ows:Get>
            \(restful)      </ows:HTTP></ows:DCP>
                </ows:Operation>

            """
        }
        out += "  </ows:OperationsMetadata>\n  <Contents>\n"
        for info in layers {
            let d = info.definition
            out += """
                <Layer>
                  <ows:Title>\(e(d.title.zh))</ows:Title>
                  <ows:Abstract>\(e(d.title.en))</ows:Abstract>

            """
            if let x = info.extent {
                out += "      <ows:WGS84BoundingBox><ows:LowerCorner>\(x.minX) \(x.minY)</ows:LowerCorner><ows:UpperCorner>\(x.maxX) \(x.maxY)</ows:UpperCorner></ows:WGS84BoundingBox>\n"
            }
            let legend = "\(legendService)?SERVICE=WMS&REQUEST=GetLegendGraphic&FORMAT=image/png&LAYER=\(QueryParameters.escape(d.id))"
            out += """
                  <ows:Identifier>\(e(d.id))</ows:Identifier>
                  <Style isDefault="true"><ows:Identifier>default</ows:Identifier><LegendURL format="image/png" xlink:href="\(e(legend))"/></Style>
                  <Format>image/png</Format>
                  <Format>application/vnd.mapbox-vector-tile</Format>
                  <InfoFormat>application/json</InfoFormat>
                  <InfoFormat>text/html</InfoFormat>

            """
            for tms in TileMatrixSet.all { out += "      <TileMatrixSetLink><TileMatrixSet>\(tms.id)</TileMatrixSet></TileMatrixSetLink>\n" }
            out += """
                  <ResourceURL format="image/png" resourceType="tile" template="\(e(serviceURL))/1.0.0/\(e(d.id))/{Style}/{TileMatrixSet}/{TileMatrix}/{TileRow}/{TileCol}.png"/>
                  <ResourceURL format="application/vnd.mapbox-vector-tile" resourceType="tile" template="\(e(serviceURL))/1.0.0/\(e(d.id))/{Style}/{TileMatrixSet}/{TileMatrix}/{TileRow}/{TileCol}.pbf"/>
                </Layer>

            """
        }
        for tms in TileMatrixSet.all { out += matrixSet(tms) }
        return out + "  </Contents>\n</Capabilities>\n"
    }

    private func matrixSet(_ tms: TileMatrixSet) -> String {
        let crs = tms.crs == .crs84 ? "urn:ogc:def:crs:OGC:1.3:CRS84" : "urn:ogc:def:crs:EPSG::\(tms.crs.epsgCode ?? 0)"
        let corner = tms.isYFirst ? "\(tms.origin.y) \(tms.origin.x)" : "\(tms.origin.x) \(tms.origin.y)"
        var out = "    <TileMatrixSet>\n      <ows:Identifier>\(tms.id)</ows:Identifier>\n      <ows:SupportedCRS>\(crs)</ows:SupportedCRS>\n"
        if let wkss = tms.wellKnownScaleSet { out += "      <WellKnownScaleSet>\(wkss)</WellKnownScaleSet>\n" }
        for m in tms.tileMatrices {
            out += """
                  <TileMatrix><ows:Identifier>\(m.id)</ows:Identifier><ScaleDenominator>\(m.scaleDenominator)</ScaleDenominator>\
            <TopLeftCorner>\(corner)</TopLeftCorner><TileWidth>\(TileMatrix.tileSize)</TileWidth><TileHeight>\(TileMatrix.tileSize)</TileHeight>\
            <MatrixWidth>\(m.matrixWidth)</MatrixWidth><MatrixHeight>\(m.matrixHeight)</MatrixHeight></TileMatrix>

            """
        }
        return out + "    </TileMatrixSet>\n"
    }
}
