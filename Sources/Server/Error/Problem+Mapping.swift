import CityBuild
import CityModel
import DataSources
import EPANETFormat
import Foundation
import GeoCore
import Hummingbird
import MapRendering
import MQTTBroker
import Sensing
import Signals
import Geocoding
import ProcessRuntime
import QueryLanguage
import SWMMFormat
import Scenarios
import Tiles
import TwinStore

extension Problem {
    /// THE mapping from every typed error to a problem: StoreError, GeometryError, the process
    /// runtime's errors (ProcessInputError, JobFailure, UnknownProcessError), the analyses' and
    /// kernels' errors (ScenarioError, UtilityNetworkError, RoadNetworkError, HydraulicsError,
    /// SWMMInputError, EPANETInputError, FloodInputError, ImportError, ParkingError,
    /// SignalTimingError, SensingFilterError, ThresholdError, AddressDataError, ManifestError,
    /// MapRenderingError, SumoTools.Failure, SumoRunQueue.Full), the readers' (DataSourceError, CSVSyntaxError,
    /// XMLElements.Malformed, GeoPackageGeometry.Failure, MQTTProtocolError), Hummingbird's HTTP
    /// errors and `Problem` itself (ErrorMappingTests lists them, one of each). Anything else is an
    /// internal error whose text stays in the log (it may hold SQL or paths); bad input never
    /// lands there. The CLI words every error as this mapping does (`CommandFailure(presenting:)`).
    public init(mapping error: any Error) {
        switch error {
        case let p as Problem:
            self = p
        case let e as StoreError:
            self = Problem(store: e)
        case let e as TileError:
            self = Problem.tile(e)
        case let e as CQLError:
            let detail = e.message.contains(e.position) ? e.message : "\(e.message) (at \(e.position))"
            self = Problem(.invalidFilter, "parameter 'filter': \(detail)", parameter: "filter", position: e.position)
        case let e as GeometryError:
            switch e.code {
            case .crs: self = Problem(.invalidCRS, e.message)
            case .geos: self = Problem(.internalError, "a geometry operation failed")
            default:
                let at = e.position.map { " at \($0)" } ?? ""
                self = Problem(.invalidGeometry, e.message + at)
            }
        case let e as ProcessInputError:
            self = Problem(.invalidInput, e.description, parameter: e.input)
        case let e as JobFailure:
            switch e.kind {
            case .invalidInput: self = Problem(.invalidInput, e.message, parameter: e.input)
            case .unauthenticated: self = Problem(.unauthorized, e.message)
            case .forbidden: self = Problem(.forbidden, e.message)
            case .failed: self = Problem(.analysisFailed, e.message)
            case .internal: self = Problem(.internalError, e.message)
            }
        case let e as ScenarioError where e.code == .noSuchScenario:
            self = Problem(.notFound, e.message, parameter: e.field)
        case let e as ScenarioError where e.code == .scenarioNotFinished || e.code == .scenarioExists:
            self = Problem(.conflict, (e.field.map { "input '\($0)': " } ?? "") + e.message, parameter: e.field)
        case let e as ScenarioError:
            if let field = e.field {
                self = Problem(.invalidInput, "input '\(field)': \(e.message)", parameter: field)
            } else {
                self = Problem(.analysisFailed, e.message)
            }
        case let e as SWMMInputError:
            self = Problem(.analysisFailed, "SWMM input: \(e.description)")
        case let e as ImportError:
            self = Problem(.invalidBody, e.description, parameter: e.field)
        case let e as EPANETInputError:
            self = Problem(.analysisFailed, "EPANET input: \(e.description)")
        case let e as DataSourceError:
            // A file the caller gave (an import, a manifest's source, a DEM) that GDAL cannot read as asked.
            self = Problem(.invalidBody, e.description, parameter: e.field)
        case let e as CSVSyntaxError:
            self = Problem(.invalidBody, "CSV: \(e.reason)")
        case let e as XMLElements.Malformed:
            self = Problem(.invalidBody, "XML: \(e.reason)")
        case let e as GeoPackageGeometry.Failure:
            self = Problem(.invalidGeometry, "GeoPackage geometry: \(e.reason)")
        case let e as ThresholdError:
            self = Problem(.invalidBody, "\(e.path): \(e.reason)", position: e.path)
        case let e as ManifestError:
            self = Problem(.invalidInput, e.description, parameter: e.path)
        case let e as UnknownProcessError:
            self = Problem(.noSuchProcess, e.description)
        case let e as MapRenderingError where e.code == .request:
            self = Problem(.invalidParameter, e.message)
        case let e as MapRenderingError:
            // The server's own style or the drawing libraries at fault, not the request.
            self = Problem(.internalError, "the map could not be drawn (\(e.code.rawValue))")
        case let e as SumoRunQueue.Full:
            // The server's SUMO queue is full: nothing was run; the caller comes back later.
            self = Problem(.serverBusy, e.description, parameter: "simulate", retryAfter: e.retryAfter)
        case let e as SumoTools.Failure:
            // SUMO (netconvert, duarouter, sumo) or osmium refused the model the analysis wrote.
            self = Problem(.analysisFailed, e.description)
        case let e as MQTTProtocolError:
            self = Problem(.malformedRequest, "MQTT: \(e.message)")
        case let e as AddressDataError:
            // The district's address data, not the request, is at fault: the record and field named.
            self = Problem(.analysisFailed, "address data: \(e.description)", parameter: e.field)
        case let e as any AnalysisFailure:
            // The kernels' own errors (UtilityNetworkError, HydraulicsError, FloodInputError,
            // RoadNetworkError), as each capability declares them.
            self = Problem(.analysisFailed, e.failureMessage)
        case let e as any InputFailure:
            // A kernel's input error that no adapter named first: the field is the input's path.
            self = Problem(.invalidInput, "input '\(e.failedInput)': \(e.failureReason)", parameter: e.failedInput)
        case let e as SensingFilterError:
            self = Problem(.invalidFilter, "parameter '$filter': \(e.message) at character \(e.offset)",
                           parameter: "$filter", position: "offset \(e.offset)")
        case let e as HTTPError:
            switch e.status {
            case .notFound: self = Problem(.notFound, e.body ?? "no resource at this path")
            case .methodNotAllowed: self = Problem(.notFound, e.body ?? "no such operation at this path")
            case .unauthorized: self = Problem(.unauthorized, e.body ?? "credentials are missing or invalid")
            case .forbidden: self = Problem(.forbidden, e.body ?? "not allowed")
            case .badRequest: self = Problem(.invalidParameter, e.body ?? "the request is malformed")
            default:
                self = Problem(Kind(slug: "http-\(e.status.code)", title: e.status.reasonPhrase, status: e.status),
                               e.body ?? e.status.reasonPhrase)
            }
        default:
            self = Problem(.internalError, "the server failed to answer this request; the error is logged")
        }
    }

    private init(store e: StoreError) {
        switch e.code {
        case .layerNotFound:
            self = Problem(.collectionNotFound, "no collection '\(e.layer ?? "?")'")
        case .featureNotFound:
            self = Problem(.featureNotFound, "no feature '\(e.feature ?? "?")' in collection '\(e.layer ?? "?")'")
        case .invalidQuery:
            let name = e.field ?? "query"
            self = Problem(.invalidParameter, "parameter '\(name)': \(e.message)", parameter: e.field)
        case .invalidCursor:
            self = Problem.invalid("cursor", e.message)
        case .forbidden:
            self = Problem(.forbidden, e.message, parameter: e.field)
        case .invalidToken:
            self = Problem(.invalidToken, e.message)
        case .unauthenticated:
            self = Problem(.unauthorized, e.message)
        case .invalidFeature:
            self = Problem(.invalidFeature, e.description, parameter: e.field)
        case .duplicateFeature, .layerExists:
            self = Problem(.conflict, e.description)
        case .versionChanged:
            self = Problem(.conflict, "\(e.message), and again on every retry: nothing was written; send the request again")
        case .unavailable:
            self = Problem(.storeUnavailable, "the store is unreachable: \(e.message)", retryAfter: Problem.storeRetrySeconds)
        default:
            self = Problem(.internalError, "the store failed to answer this request; the error is logged")
        }
    }
}

extension Problem {
    /// The error of a tile request as a problem: outside the matrix or unknown set → 404.
    static func tile(_ e: TileError) -> Problem {
        switch e.code {
        case .outsideMatrix, .unknownTileMatrixSet: Problem(.notFound, e.message)
        case .invalidArgument, .malformedTile: Problem(.invalidParameter, e.message)
        }
    }
}
