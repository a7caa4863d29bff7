// libFuzzer harness for the intersection JSON of `citytwin signal plan --input` (Scripts/fuzz.sh, target
// `fuzz-signal`). The libFuzzer/replay driver is shared: Fuzz/Support.
import FuzzSupport
import Foundation
import SignalSim

/// Decodes the input as an intersection and times it. A `DecodingError` or `SignalTimingError` is a
/// fine outcome; anything else is a bug and crashes on purpose so libFuzzer records the input: a
/// trap, another error type, a plan that cannot be written as JSON (a non-finite figure), a
/// negative green, or a cycle outside the settings' bounds.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let demand: IntersectionDemand
    do {
        demand = try JSONDecoder().decode(IntersectionDemand.self, from: Data(bytes: data, count: size))
    } catch is DecodingError {
        return 0
    } catch {
        fatalError("decoding threw a non-DecodingError: \(error)")
    }
    let timing: IntersectionTiming
    do {
        timing = try SignalTiming.webster(demand)
    } catch is SignalTimingError {
        return 0
    } catch {
        fatalError("timing threw a non-SignalTimingError: \(error)")
    }
    let settings = SignalTimingSettings()
    guard timing.plan.stages.allSatisfy({ $0.green >= 0 }) else { fatalError("a negative green: \(timing.plan)") }
    guard timing.cycle >= settings.minimumCycle - 1e-9, timing.cycle <= settings.maximumCycle + 1e-9 else {
        fatalError("cycle \(timing.cycle) outside \(settings.minimumCycle)…\(settings.maximumCycle)")
    }
    do {
        _ = try JSONEncoder().encode(IntersectionTimingReport(timing))
    } catch {
        fatalError("the plan cannot be written as JSON: \(error)")
    }
    return 0
}

// The entry point: libFuzzer under -DFUZZING (SwiftPM links `main` to `fuzz_signal_main`), otherwise a
// replay of the corpus files named as arguments; both through the shared driver (Fuzz/Support).
#if FUZZING
@_cdecl("fuzz_signal_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.main("fuzz-signal", argc, argv, fuzz)
}
#else
@main enum FuzzSignalReplay {
    static func main() { exit(FuzzDriver.main("fuzz-signal", CommandLine.argc, CommandLine.unsafeArgv, fuzz)) }
}
#endif
