import ArgumentParser
import CityModel
import Emergency
import Foundation
import Geocoding
import Logging
import ProcessRuntime
import Scenarios
import ServiceLifecycle
import TwinStore

/// `citytwin worker`: claims process jobs from the store's job table and runs them until
/// stopped. On PostGIS any number of workers (on any machines) share one table: each job is
/// claimed by exactly one of them (`FOR UPDATE SKIP LOCKED`).
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Run OGC API Processes jobs from the store's job table until stopped.")

    @OptionGroup var storeOption: StoreOption
    @OptionGroup var rasterOption: RasterOption

    @Option(help: "A JSON file of this command's options, e.g. {\"worker\": {\"storeTimeout\": 10}}; an option given on the command line or as CITYTWIN_WORKER_<OPTION> (e.g. CITYTWIN_WORKER_STORE_TIMEOUT) takes precedence. Also CITYTWIN_CONFIG.")
    var config: String?
    var store: String { storeOption.path }

    @Option(help: "The worker's name in the job table (default worker-HOST-PID).")
    var name: String?

    @Option(help: "Seconds to wait before looking again when no job is waiting.")
    var idle: Double = 1

    @Option(help: "Seconds a running job's worker may stay silent before another worker takes the job over (renewed every third).")
    var lease: Double = 300

    @Flag(help: "Run the jobs waiting now, then exit.")
    var once = false

    @Option(help: "Seconds a store operation waits for a PostgreSQL connection, or for a statement's first answer, before it counts as an outage (the worker then tries again every --idle); raise it for analyses whose queries take longer.")
    var storeTimeout: Double = PostGISStore.defaultConnectionWait.seconds

    @Option(help: "Resource layers (shelters, hydrants, …) nearest-resources keeps read and snapped in memory, per store, travel profile and caller class; the least recently used is dropped beyond it (1…10000; default 32).")
    var resourceLayerCache: Int = SnappedResources.defaultMaximumLayers

    @Option(help: "MiB one standard address index (the geocoder's, built from the addresses layer) may take; a larger one is not built and geocoding answers why (16…1048576; default 1024: a city of 2.25 M addresses takes about 340).")
    var addressIndexMemory: Int = AddressGeocoders.defaultMemoryLimit >> 20

    @Option(help: "PostGIS: the most database connections this process holds at once (1…256; default 8). Each serve and worker holds its own pool: keep their sum below PostgreSQL's max_connections.")
    var postgresPoolSize: Int = StoreLocation.defaultPoolSize

    @Option(help: "Seconds the running job may take to stop after SIGTERM or SIGINT before the worker exits. A job that stops in time goes back to the queue for the next worker; one that does not (e.g. waiting on a database lock) stays claimed until its lease lapses, then another worker takes it over.")
    var shutdownGrace: Double = GracefulStop.defaultGrace.seconds

    func validate() throws {
        guard idle.isFinite, idle > 0, idle <= 3600 else { throw ValidationError("--idle must be 0…3600 seconds, got \(idle)") }
        guard lease.isFinite, lease >= 3, lease <= 86_400 else { throw ValidationError("--lease must be 3…86400 seconds, got \(lease)") }
        guard storeTimeout.isFinite, storeTimeout >= 0.1, storeTimeout <= 600 else {
            throw ValidationError("--store-timeout must be 0.1…600 seconds, got \(storeTimeout)")
        }
        guard (1...256).contains(postgresPoolSize) else {
            throw ValidationError("--postgres-pool-size must be 1…256 connections, got \(postgresPoolSize)")
        }
        guard (1...10_000).contains(resourceLayerCache) else {
            throw ValidationError("--resource-layer-cache must be 1…10000 layers, got \(resourceLayerCache)")
        }
        guard (16...1_048_576).contains(addressIndexMemory) else {
            throw ValidationError("--address-index-memory must be 16…1048576 MiB, got \(addressIndexMemory)")
        }
        guard shutdownGrace.isFinite, shutdownGrace >= 0.1, shutdownGrace <= 600 else {
            throw ValidationError("--shutdown-grace must be 0.1…600 seconds, got \(shutdownGrace)")
        }
    }

    func run() async throws {
        await EmergencyRoadGraphs.shared.setMaximumResourceLayers(resourceLayerCache)
        AddressGeocoders.shared.setMemoryLimit(addressIndexMemory << 20)
        let featureStore = try await StoreLocation(store).openExisting(connectionWait: .seconds(storeTimeout), poolSize: postgresPoolSize)
        let workerName = name ?? "worker-\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)"
        let location = try StoreLocation(store)
        guard let worker = ProcessWorker(name: workerName, store: featureStore, registry: .forStore(directory: location.directory, rasters: rasterOption.rasters(for: location)),
                                         lease: .milliseconds(Int64(lease * 1000))) else {
            throw CommandFailure("the store at \(store) keeps no job table")
        }
        Self.say("\(workerName): running \(worker.registry.ids.joined(separator: ", ")) jobs from \(store)"
              + (once ? "" : " (Ctrl-C to stop)"))
        if once {
            while let job = try await worker.runNext() { Self.report(job) }
            return
        }
        try await GracefulStop.run([WorkerLoop(worker: worker, idle: .milliseconds(Int(idle * 1000)))],
                                   grace: .seconds(shutdownGrace), logger: Logger(label: "citytwin.worker"))
    }

    /// The worker as a service: runs jobs until SIGTERM or SIGINT, and outlives store outages
    /// (it looks again every `idle` until the database answers).
    private struct WorkerLoop: Service {
        let worker: ProcessWorker
        let idle: Duration

        func run() async throws {
            try await cancelWhenGracefulShutdown {
                while !Task.isCancelled {
                    do {
                        try await worker.run(idle: idle) { WorkerCommand.report($0) }
                    } catch is CancellationError {
                        return  // stopped; a job it was running went back to the queue (`ProcessWorker.run`)
                    } catch let e as StoreError where e.code == .unavailable {
                        WorkerCommand.say("\(worker.name): the store is unreachable (\(e.message)); looking again in \(idle)")
                        try? await Task.sleep(for: idle)
                    }
                }
            }
        }
    }

    private static func report(_ job: JobRecord) {
        say("job \(job.id) (\(job.process)): \(job.status.rawValue)" + (job.message.map { ": \($0)" } ?? ""))
    }

    /// Writes one line to standard output at once (not through `print`'s buffer, which holds a
    /// block when stdout is a log file or a pipe, as under systemd or nohup: a worker killed with
    /// SIGKILL would lose its last lines, and a log follower would see them late).
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
