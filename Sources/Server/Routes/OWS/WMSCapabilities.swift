import Foundation
import GeoCore
import TwinStore

/// The WMS 1.3.0 capabilities document (OGC 06-042 §7.2.4, capabilities_1_3_0.xsd): the
/// service, its operations and formats, and a layer tree with one named, queryable layer per
/// collection the caller may read, each with its title, its lon/lat box, a box per CRS in that
/// CRS's axis order (latitude first for EPSG:4326 and 4490, as WMS 1.3 requires) and its one
/// style with a legend (GetLegendGraphic).
struct WMSCapabilities {
    let layers: [LayerInfo]
    /// The CRSs every layer is served in (`CRSParameter.advertised`).
    let crsList: [CoordinateReferenceSystem]
    /// Each layer's legend size in pixels (`MapLegend.size`), by layer id.
    let legendSizes: [String: (width: Int, height: Int)]
    /// The service's URL (`…/wms`), for every operation's `OnlineResource`.
    let serviceURL: String

    var xml: String {
        var out = """
        <?xml version="1.0" encoding="UTF-8"?>
        <WMS_Capabilities version="1.3.0" xmlns="http://www.opengis.net/wms" xmlns:xlink="http://www.w3.org/1999/xlink" \
        xmlns:sld="http://www.opengis.net/sld" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
        xsi:schemaLocation="http://www.opengis.net/wms http://schemas.opengis.net/wms/1.3.0/capabilities_1_3_0.xsd \
        http://www.opengis.net/sld http://schemas.opengis.net/sld/1.1.0/sld_capabilities.xsd">
          <Service>
            <Name>WMS</Name>
            <Title>CityTwin 一张图</Title>
            <Abstract>CityTwin 城市数字孪生: the city's layers drawn with the web map's styles (what the caller may read).</Abstract>
            <OnlineResource xlink:type="simple" xlink:href="\(e(serviceURL))"/>
            <Fees>none</Fees>
            <AccessConstraints>none</AccessConstraints>
            <LayerLimit>\(WMSRoutes.maximumLayers)</LayerLimit>
            <MaxWidth>\(WMSParameters.maximumSize)</MaxWidth>
            <MaxHeight>\(WMSParameters.maximumSize)</MaxHeight>
          </Service>
          <Capability>
            <Request>

        """
        out += operation("GetCapabilities", formats: ["text/xml"])
        out += operation("GetMap", formats: WMSNames.mapFormats)
        out += operation("GetFeatureInfo", formats: WMSNames.infoFormats)
        // The SLD-WMS extension's legend operation (an _ExtendedOperation), as GeoServer and
        // MapServer advertise it; each layer's Style links it in a LegendURL.
        out += operation("sld:GetLegendGraphic", formats: WMSNames.mapFormats)
        out += """
            </Request>
            <Exception>
              <Format>XML</Format>
            </Exception>
            <Layer>
              <Title>CityTwin 一张图</Title>

        """
        for crs in crsList { out += "      <CRS>\(WMSNames.crs(crs))</CRS>\n" }
        var all: Envelope?
        for info in layers { if let x = info.extent { all == nil ? (all = x) : all!.expand(toInclude: x) } }
        if let all { out += boxes(all, indent: "      ") }
        for info in layers { out += layer(info) }
        out += """
            </Layer>
          </Capability>
        </WMS_Capabilities>

        """
        return out
    }

    private func e(_ s: String) -> String { MarkupEscaping.escape(s) }

    private func operation(_ name: String, formats: [String]) -> String {
        var out = "      <\(name)>\n"
        for f in formats { out += "        <Format>\(f)</Format>\n" }
        out += """
                <DCPType><HTTP><Get><OnlineResource xlink:type="simple" xlink:href="\(e(serviceURL))?"/></Get></HTTP></DCPType>
              </\(name)>

        """
        return out
    }

    /// `EX_GeographicBoundingBox` and a `BoundingBox` per CRS of a lon/lat extent.
    private func boxes(_ lonLat: Envelope, indent: String) -> String {
        var out = """
        \(indent)<EX_GeographicBoundingBox>
        \(indent)  <westBoundLongitude>\(lonLat.minX)</westBoundLongitude>
        \(indent)  <eastBoundLongitude>\(lonLat.maxX)</eastBoundLongitude>
        \(indent)  <southBoundLatitude>\(lonLat.minY)</southBoundLatitude>
        \(indent)  <northBoundLatitude>\(lonLat.maxY)</northBoundLatitude>
        \(indent)</EX_GeographicBoundingBox>

        """
        for crs in crsList {
            guard let box = try? CoordinateTransformer.shared(from: .cgcs2000, to: crs).transform(lonLat),
                  let ordered = try? crs.toAuthorityOrder(box) else { continue }
            out += "\(indent)<BoundingBox CRS=\"\(WMSNames.crs(crs))\" minx=\"\(ordered.minX)\" miny=\"\(ordered.minY)\" maxx=\"\(ordered.maxX)\" maxy=\"\(ordered.maxY)\"/>\n"
        }
        return out
    }

    private func layer(_ info: LayerInfo) -> String {
        let d = info.definition
        var out = """
              <Layer queryable="1" opaque="0">
                <Name>\(e(d.id))</Name>
                <Title>\(e(d.title.zh))</Title>
                <Abstract>\(e(d.title.en))</Abstract>

        """
        // A what-if's results (a scenario's): the title says 情景（非实况）, the keywords too.
        if d.isWhatIf {
            out += "        <KeywordList><Keyword>\(e(LayerConditions.whatIfLabel.zh))</Keyword><Keyword>what-if</Keyword></KeywordList>\n"
        }
        if let extent = info.extent { out += boxes(extent, indent: "        ") }
        let legendSize = legendSizes[d.id] ?? (1, 1)
        let legend = "\(serviceURL)?SERVICE=WMS&VERSION=1.3.0&REQUEST=GetLegendGraphic&FORMAT=image/png&LAYER=\(QueryParameters.escape(d.id))"
        out += """
                <Style>
                  <Name>default</Name>
                  <Title>\(e(d.title.zh))（一张图样式）</Title>
                  <LegendURL width="\(legendSize.width)" height="\(legendSize.height)">
                    <Format>image/png</Format>
                    <OnlineResource xlink:type="simple" xlink:href="\(e(legend))"/>
                  </LegendURL>
                </Style>
              </Layer>

        """
        return out
    }
}
