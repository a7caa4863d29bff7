import CityBuild
import CityModel
import DataSources
import EPANETFormat
import FloodSim
import GeoCore
import Geocoding
import ProcessRuntime
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import MapRendering
import MQTTBroker
import NetworkAnalysis
import ParkingSim
import QueryLanguage
@testable import Scenarios
import Sensing
import Signals
@testable import Server
import SignalSim
import Sponge
import SWMMFormat
import Testing
import TestSupport
import Tiles
import TwinStore

/// Every module's typed errors in the one HTTP mapping and, worded the same, in the CLI's: a
/// kernel error that escapes its adapter is the caller's 4xx naming the field, never a 500.
@Suite("Errors: every module's in the HTTP mapping and the CLI's, in the same words", .temporaryDirectories)
struct ErrorMappingTests {
    /// A router that answers `/fail/<n>` by throwing `errors[n]`, behind the server's problem middleware.
    static func application(throwing errors: [any Error & Sendable]) -> some ApplicationProtocol {
        let router = Router(context: CityTwinRequestContext.self)
        router.add(middleware: ProblemMiddleware(compressionThreshold: 1 << 20))
        for (i, error) in errors.enumerated() {
            router.get("/fail/\(i)") { _, _ -> String in throw error }
        }
        var logger = Logger(label: "citytwin.server.test")
        logger.logLevel = .critical
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: logger)
    }

    @Test("an escaped ParkingError, SignalTimingError, SensingFilterError or AddressDataError is a 4xx problem naming its field (it was a 500)")
    func escapedKernelErrors() async throws {
        let errors: [any Error & Sendable] = [
            ParkingError(field: "lots[3].capacity", "must not be negative"),
            SignalTimingError(field: "approaches[2].flows_veh_h.left", "must not be negative"),
            SensingFilterError("unknown function 'speed'", at: 7),
            AddressDataError(record: "feature 12", field: "parent_code", "names no record"),
        ]
        // (status, type, parameter, detail) each error must answer with.
        let expected: [(Int, String, String, String)] = [
            (400, "invalid-input", "lots[3].capacity", "input 'lots[3].capacity': must not be negative"),
            (400, "invalid-input", "approaches[2].flows_veh_h.left", "input 'approaches[2].flows_veh_h.left': must not be negative"),
            (400, "invalid-filter", "$filter", "parameter '$filter': unknown function 'speed' at character 7"),
            (422, "analysis-failed", "parent_code", "address data: feature 12 field parent_code: names no record"),
        ]
        try await Self.application(throwing: errors).test(.router) { client in
            for (i, (status, type, parameter, detail)) in expected.enumerated() {
                let answer = try await client.get("/fail/\(i)")
                try expectProblem(answer, status: status, type: type, naming: parameter)
                #expect(try answer.json["parameter"]?.stringValue == parameter)
                #expect(try answer.json["detail"]?.stringValue == detail)
            }
            #expect(try await client.get("/fail/2").json["position"]?.stringValue == "offset 7")
        }
    }

    @Test("a job that fails on one of them records the caller's input at fault, in the HTTP mapping's words")
    func jobFailures() {
        let parking = ParkingError(field: "lots[3].capacity", "must not be negative")
        let failure = JobFailure(parking, worker: "w1")
        #expect(failure.kind == .invalidInput)
        #expect(failure.input == "lots[3].capacity")
        #expect(failure.message == Problem(mapping: parking).detail)
        let signal = JobFailure(SignalTimingError(field: "cycle_s", "must be at least 30"), worker: "w1")
        #expect(signal.kind == .invalidInput && signal.input == "cycle_s")
        let address = JobFailure(AddressDataError(record: "record 4", field: "level", "is not a number"), worker: "w1")
        #expect(address.kind == .failed && address.message.contains("record 4 field level"))
        // Through the job's problem: the same 4xx as the escaped error's.
        #expect(Problem(mapping: failure).kind.status.code == 400)
        #expect(Problem(mapping: failure).parameter == "lots[3].capacity")
    }

    @Test("the CLI words an error as the HTTP problem's detail (parking backtest on an empty CSV)")
    func commandWording() async throws {
        let directory = try TemporaryDirectory.forTestCase("cli-errors")
        let csv = directory.appending("empty.csv")
        try Data().write(to: csv)
        let kernel = #expect(throws: ParkingError.self) { try OccupancyFeed(csv: "") }
        let detail = Problem(mapping: try #require(kernel)).detail
        let command = try await CommandProcess.run(try OutageHarness.binary(), [
            "parking", "backtest", "--csv", csv.path, "--train-until", "2024-01-07", "--test-from", "2024-01-08", "--test-until", "2024-01-09",
        ], separateErrors: true)
        #expect(command.exitStatus == 1)
        #expect(command.errors.contains("Error: \(csv.path): \(detail)"), "\(command.errors)")
        #expect(!command.errors.contains("Usage:"))
    }

    /// One typed error of each module, the status the one mapping gives it, and its parameter (nil: none).
    static func oneOfEach() throws -> [(error: any Error, status: Int, type: String)] {
        var malformedXML: (any Error)?
        do { try XMLElements.read(Data("<net><edge></net></edge>".utf8), start: { _, _ in }) } catch { malformedXML = error }
        var badBlob: (any Error)?
        do { _ = try GeoPackageGeometry.decode(Data([0x00, 0x01])) } catch { badBlob = error }
        return [
            (StoreError(.featureNotFound, "no such feature", layer: "roads", feature: "r1"), 404, "feature-not-found"),
            (GeometryError(.parse, "not WKT", position: "1"), 400, "invalid-geometry"),
            (CSVSyntaxError(reason: "a quoted field never closed (line 3)"), 400, "invalid-body"),
            (try #require(malformedXML), 400, "invalid-body"),
            (try #require(badBlob), 400, "invalid-geometry"),
            (TileError(.outsideMatrix, "row 99 is outside level 2"), 404, "not-found"),
            (CQLError("unexpected token", position: "4"), 400, "invalid-filter"),
            (SensingFilterError("unknown function 'speed'", at: 7), 400, "invalid-filter"),
            (DataSourceError(.unreadable, file: "dem.tif", location: "band 1", "no GDAL driver reads it"), 400, "invalid-body"),
            (ImportError(.malformed, file: "roads.csv", location: "row 4", field: "lanes", "is not a number"), 400, "invalid-body"),
            (ManifestError(path: "layers[2].file", "no such file", allowed: "any vector source GDAL reads"), 400, "invalid-input"),
            (ProcessInputError("radius", "must be positive"), 400, "invalid-input"),
            (UnknownProcessError(id: "flood-x", known: ["flood-scenario"]), 404, "no-such-process"),
            (ScenarioError(.invalidArgument, "must be a storm id", field: "storm"), 400, "invalid-input"),
            (JobFailure(.forbidden, "the caller may not write the results"), 403, "forbidden"),
            (ParkingError(field: "lots[3].capacity", "must not be negative"), 400, "invalid-input"),
            (SignalTimingError(field: "cycle_s", "must be at least 30"), 400, "invalid-input"),
            (AddressDataError(record: "feature 12", field: "parent_code", "names no record"), 422, "analysis-failed"),
            (RoadNetworkError("no road within 500 m", field: "origin"), 422, "analysis-failed"),
            (UtilityNetworkError("pipe P1 names no node N9", id: "P1"), 422, "analysis-failed"),
            (HydraulicsError(.badReference, "link L1 names no node"), 422, "analysis-failed"),
            (FloodInputError("the storm has no rainfall", field: "storm"), 422, "analysis-failed"),
            (SWMMInputError(line: 12, section: "CONDUITS", field: "length", reason: "is not a number"), 422, "analysis-failed"),
            (EPANETInputError(line: 3, section: "PIPES", field: "diameter", reason: "is not a number"), 422, "analysis-failed"),
            (ThresholdError("$.properties.thresholds[1].direction", "must be above or below"), 400, "invalid-body"),
            (MapRenderingError(.request, "WIDTH is larger than 4096"), 400, "invalid-parameter"),
            (MQTTProtocolError("a CONNECT whose protocol level is 3"), 400, "malformed-request"),
            (SpongeInputError("daily-rainfall row 12 column precipitation", "is not a number"), 400, "invalid-input"),
            (SumoRunQueue.Full(runs: 1, waiting: 8, retryAfter: 60), 503, "server-busy"),
        ]
    }

    @Test("one error of each module: the mapped status and type, never the 500 of an unmapped error")
    func everyModuleMapped() throws {
        for (error, status, type) in try Self.oneOfEach() {
            let problem = Problem(mapping: error)
            #expect(problem.kind.status.code == status, "\(error): \(problem.kind.slug)")
            #expect(problem.kind.slug == type, "\(error)")
        }
        // The drawing libraries' failure stays the server's (500), its text in the log only.
        #expect(Problem(mapping: MapRenderingError(.drawing, "cairo: out of memory")).kind == .internalError)
    }
}
