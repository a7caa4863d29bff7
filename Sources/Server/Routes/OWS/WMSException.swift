import GeoCore
import Hummingbird

/// A WMS 1.3.0 service exception (OGC 06-042 §6.11, Annex H): the answer to a request the
/// service cannot serve, as a `ServiceExceptionReport` XML document. The codes are the
/// standard's (`InvalidFormat`, `InvalidCRS`, `LayerNotDefined`, `StyleNotDefined`,
/// `LayerNotQueryable`, `InvalidPoint`, `OperationNotSupported`, …) and, where WMS 1.3 names
/// none, OWS Common's (`MissingParameterValue`, `InvalidParameterValue`), as GeoServer answers.
struct WMSException: Error, Sendable {
    enum Code: String, Sendable {
        case invalidFormat = "InvalidFormat"
        case invalidCRS = "InvalidCRS"
        case layerNotDefined = "LayerNotDefined"
        case styleNotDefined = "StyleNotDefined"
        case layerNotQueryable = "LayerNotQueryable"
        case invalidPoint = "InvalidPoint"
        case operationNotSupported = "OperationNotSupported"
        case missingParameterValue = "MissingParameterValue"
        case invalidParameterValue = "InvalidParameterValue"
        case noApplicableCode = "NoApplicableCode"
    }

    let code: Code
    let message: String
    /// The parameter at fault (`locator`), when one is.
    var locator: String? = nil

    init(_ code: Code, _ message: String, locator: String? = nil) {
        self.code = code
        self.message = message
        self.locator = locator
    }

    /// The media type of the report.
    static let mediaType = "text/xml"

    /// The `ServiceExceptionReport` document.
    var xml: String {
        let locatorAttribute = locator.map { " locator=\"\(MarkupEscaping.escape($0))\"" } ?? ""
        return """
        <?xml version="1.0" encoding="UTF-8"?>
        <ServiceExceptionReport version="1.3.0" xmlns="http://www.opengis.net/ogc" \
        xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
        xsi:schemaLocation="http://www.opengis.net/ogc http://schemas.opengis.net/wms/1.3.0/exceptions_1_3_0.xsd">
          <ServiceException code="\(code.rawValue)"\(locatorAttribute)>\(MarkupEscaping.escape(message))</ServiceException>
        </ServiceExceptionReport>

        """
    }

    /// The report as a response: 400 for a request at fault, 401/403 when the caller must sign
    /// in or may not, 500 for the server's own failure. (WMS 1.3 leaves the status open; a
    /// client reads the report either way.)
    func representation(status: HTTPResponse.Status = .badRequest) -> Representation {
        var r = Representation(status: status, mediaType: Self.mediaType, body: Array(xml.utf8))
        r.headers[.cacheControl] = "no-store"
        return r
    }

    /// Any error of a WMS request as a report and its status: a `WMSException` as it is; the
    /// rest through the server's one mapping (`Problem(mapping:)`), with a layer the caller may
    /// not read or that does not exist reported as `LayerNotDefined` (a hidden layer looks
    /// missing, as everywhere else), bad input as `InvalidParameterValue`, and the server's own
    /// failures as `NoApplicableCode` with the mapping's generic text (details stay in the log).
    static func from(_ error: any Error) -> (WMSException, HTTPResponse.Status) {
        if let e = error as? WMSException { return (e, .badRequest) }
        let problem = Problem(mapping: error)
        let status = problem.kind.status
        switch status.code {
        case 404 where problem.kind.slug == Problem.Kind.collectionNotFound.slug:
            return (WMSException(.layerNotDefined, problem.detail, locator: "LAYERS"), .badRequest)
        case 401, 403:
            return (WMSException(.layerNotDefined, problem.detail, locator: "LAYERS"), status)
        case 400..<500:
            let code: Code = problem.kind.slug == Problem.Kind.invalidCRS.slug ? .invalidCRS : .invalidParameterValue
            return (WMSException(code, problem.detail, locator: problem.parameter), status)
        default:
            return (WMSException(.noApplicableCode, problem.detail), status)
        }
    }
}
