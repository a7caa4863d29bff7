import ArgumentParser
import CityModel
import Foundation
import Scenarios
import TwinStore

/// `citytwin worker`: claims process jobs from the store's job table and runs them until
/// stopped. On PostGIS any number of workers (on any machines) share one table: each job is
/// claimed by exactly one of them (`FOR UPDATE SKIP LOCKED`).
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Run OGC API Processes jobs from the store's job table until stopped.")

    @OptionGroup var storeOption: StoreOption
    var store: String { storeOption.path }

    @Option(help: "The worker's name in the job table (default worker-HOST-PID).")
    var name: String?

    @Option(help: "Seconds to wait before looking again when no job is waiting.")
    var idle: Double = 1

    @Option(help: "Seconds a running job's worker may stay silent before another worker takes the job over (renewed every third).")
    var lease: Double = 300

    @Flag(help: "Run the jobs waiting now, then exit.")
    var once = false

    func validate() throws {
        guard idle.isFinite, idle > 0, idle <= 3600 else { throw ValidationError("--idle must be 0…3600 seconds, got \(idle)") }
        guard lease.isFinite, lease >= 3, lease <= 86_400 else { throw ValidationError("--lease must be 3…86400 seconds, got \(lease)") }
    }

    func run() async throws {
        let featureStore = try await StoreLocation(store).openExisting()
        let workerName = name ?? "worker-\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)"
        let location = try StoreLocation(store)
        guard let worker = ProcessWorker(name: workerName, store: featureStore, registry: .forStore(directory: location.directory),
                                         lease: .milliseconds(Int64(lease * 1000))) else {
            throw CommandFailure("the store at \(store) keeps no job table")
        }
        print("\(workerName): running \(worker.registry.ids.joined(separator: ", ")) jobs from \(store)"
              + (once ? "" : " (Ctrl-C to stop)"))
        if once {
            while let job = try await worker.runNext() { Self.report(job) }
            return
        }
        try await worker.run(idle: .milliseconds(Int(idle * 1000))) { Self.report($0) }
    }

    private static func report(_ job: JobRecord) {
        print("job \(job.id) (\(job.process)): \(job.status.rawValue)" + (job.message.map { ": \($0)" } ?? ""))
    }
}
