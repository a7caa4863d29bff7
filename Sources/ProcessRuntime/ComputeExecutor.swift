import Foundation

/// Threads of their own for the processes' work: `ProcessRegistry.run` runs every process on them
/// (a task executor preference), so a flood simulation or an isolation that computes for minutes
/// without suspending holds one of these threads, not one of Swift's cooperative threads. The
/// cooperative pool has one thread per core; two long runs on a two-core server used to leave no
/// thread for requests, and `/health` answered 503 while the store was fine.
///
/// Work inside a run that hops to an actor (a store, a cache) runs on that actor's executor and
/// comes back here. The threads are as many as the cores: the operating system shares the cores
/// between them and the cooperative threads, so requests keep being answered while runs compute.
public final class ComputeExecutor: TaskExecutor, @unchecked Sendable {
    /// The executor every process run prefers (one thread per core).
    public static let shared = ComputeExecutor(threads: ProcessInfo.processInfo.activeProcessorCount)

    /// The number of threads.
    public let threads: Int
    private let condition = NSCondition()
    private var waiting: [UnownedJob] = []
    private var next = 0

    /// Starts `threads` threads (at least one) with 8 MiB stacks (as a main thread's), named
    /// `citytwin-compute-<n>`; they live as long as the process.
    public init(threads: Int) {
        self.threads = Swift.max(1, threads)
        for n in 0..<self.threads {
            let thread = Thread { [self] in work() }
            thread.name = "citytwin-compute-\(n)"
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        waiting.append(job)
        condition.signal()
        condition.unlock()
    }

    private func work() {
        let executor = asUnownedTaskExecutor()
        while true {
            condition.lock()
            while next == waiting.count { condition.wait() }
            let job = waiting[next]
            next += 1
            if next == waiting.count || next > 1024 {
                // Drop what was run: all of it when the queue emptied, else the first 1024.
                waiting.removeFirst(next)
                next = 0
            }
            condition.unlock()
            job.runSynchronously(on: executor)
        }
    }
}
