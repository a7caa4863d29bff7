import GeoCore
import Hummingbird

/// The OWS Common 1.1 `ExceptionReport` (OGC 06-121r3 §8) that WMTS and WFS answer a request at
/// fault with: one exception with its code, the parameter at fault as `locator`, the text;
/// `version` the service's. (WMS 1.3.0 has its own `ServiceExceptionReport`, `WMSException`.)
enum OWSExceptionReport {
    static func representation(code: String, message: String, locator: String?, status: HTTPResponse.Status,
                               version: String) -> Representation {
        let locatorAttribute = locator.map { " locator=\"\(MarkupEscaping.escape($0))\"" } ?? ""
        let xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <ows:ExceptionReport xmlns:ows="http://www.opengis.net/ows/1.1" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
        version="\(version)" xml:lang="en" xsi:schemaLocation="http://www.opengis.net/ows/1.1 http://schemas.opengis.net/ows/1.1.0/owsExceptionReport.xsd">
          <ows:Exception exceptionCode="\(code)"\(locatorAttribute)>
            <ows:ExceptionText>\(MarkupEscaping.escape(message))</ows:ExceptionText>
          </ows:Exception>
        </ows:ExceptionReport>

        """
        var r = Representation(status: status, mediaType: "application/xml; charset=utf-8", body: Array(xml.utf8))
        r.headers[.cacheControl] = "no-store"
        return r
    }
}
