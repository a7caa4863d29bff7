import CityModel
import Geocoding
import ProcessRuntime
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import ParkingSim
import QueryLanguage
@testable import Scenarios
import Signals
@testable import Server
import SignalSim
import Testing
import TestSupport

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

}
