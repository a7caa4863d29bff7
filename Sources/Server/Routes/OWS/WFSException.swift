import GeoCore
import Hummingbird
import TwinStore

/// A WFS 2.0 exception (OGC 09-025r2 §7.5, OWS Common 1.1 `ExceptionReport`): the code the
/// standard names and the parameter at fault as `locator`. HTTP 400 for every request at fault,
/// an operation or option not served included (as GeoServer answers, and this server's WMS and
/// WMTS: OWS Common's 501 would read as the server failing), 404 for GetFeatureById's unknown id,
/// 401/403 when the caller must sign in or may not, 500 for the server's own failure.
struct WFSException: Error, Sendable {
    enum Code: String, Sendable {
        case missingParameterValue = "MissingParameterValue"
        case invalidParameterValue = "InvalidParameterValue"
        case operationNotSupported = "OperationNotSupported"
        case optionNotSupported = "OptionNotSupported"
        case operationParsingFailed = "OperationParsingFailed"
        case versionNegotiationFailed = "VersionNegotiationFailed"
        /// WFS 2.0.2: GetFeatureById of an id that names no feature (404).
        case notFound = "NotFound"
        case noApplicableCode = "NoApplicableCode"
    }

    let code: Code
    let message: String
    var locator: String? = nil
    var status: HTTPResponse.Status

    init(_ code: Code, _ message: String, locator: String? = nil, status: HTTPResponse.Status? = nil) {
        self.code = code
        self.message = message
        self.locator = locator
        self.status = status ?? (code == .noApplicableCode ? .internalServerError : code == .notFound ? .notFound : .badRequest)
    }

    var representation: Representation {
        OWSExceptionReport.representation(code: code.rawValue, message: message, locator: locator, status: status, version: "2.0.0")
    }

    /// Any error of a WFS request: the KVP reader's (`WMSParameters`), a filter's (`FESError`:
    /// an operator not served is `OperationNotSupported`; `CQLError`: an unknown property or a
    /// mistyped literal), a CRS PROJ cannot use, and the server's one mapping (a layer hidden
    /// from the caller looks missing: `InvalidParameterValue` on `TYPENAMES`, with 401/403).
    static func from(_ error: any Error) -> WFSException {
        switch error {
        case let e as WFSException: return e
        case let e as WMSException:
            let code: Code = switch e.code {
            case .missingParameterValue: .missingParameterValue
            case .operationNotSupported: .operationNotSupported
            case .noApplicableCode: .noApplicableCode
            default: .invalidParameterValue
            }
            return WFSException(code, e.message, locator: e.locator)
        case let e as FESError:
            return WFSException(e.kind == .unsupported ? .operationNotSupported : .invalidParameterValue, "FILTER: \(e.message)", locator: "FILTER")
        case let e as CQLError:
            return WFSException(.invalidParameterValue, "FILTER: \(e.message)", locator: "FILTER")
        default:
            let problem = Problem(mapping: error)
            let status = problem.kind.status
            switch status.code {
            case 404 where problem.kind.slug == Problem.Kind.collectionNotFound.slug:
                return WFSException(.invalidParameterValue, problem.detail, locator: "TYPENAMES")
            case 401, 403:
                return WFSException(.invalidParameterValue, problem.detail, locator: "TYPENAMES", status: status)
            case 400..<500:
                return WFSException(.invalidParameterValue, problem.detail, locator: problem.parameter, status: .badRequest)
            default:
                return WFSException(.noApplicableCode, problem.detail, status: status)
            }
        }
    }
}
