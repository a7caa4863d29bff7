// libFuzzer harness for the SWMM .inp reader and writer (Scripts/fuzz.sh). The libFuzzer/replay driver is shared: Fuzz/Support.
import FloodSim
import Foundation
import FuzzSupport

/// Parses the input as a `.inp` file. A thrown `SWMMInputError` is a fine outcome; anything else (a
/// trap, another error) is a bug and crashes on purpose so libFuzzer records the input.
/// With CITYTWIN_FUZZ_ROUNDTRIP=1 a model that does not survive write → read is a bug too. That
/// property still fails on fuzzed oddities (quoted tabs and empty "" tokens in raw sections are
/// normalised by the writer: an open defect), so the bounded run in Scripts/test.sh checks the reader only;
/// the EPA models' round trip is a unit test (SWMMInputRoundTripTests).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let model: SWMMModel
    do {
        model = try SWMMModel(parsing: text)
    } catch is SWMMInputError {
        return 0
    } catch {
        fatalError("SWMM reader threw a non-SWMMInputError: \(error)")
    }
    guard ProcessInfo.processInfo.environment["CITYTWIN_FUZZ_ROUNDTRIP"] == "1" else { return 0 }
    let written = model.inpText()
    do {
        guard try SWMMModel(parsing: written) == model else { fatalError("SWMM round trip changed the model:\n\(written)") }
    } catch {
        fatalError("a model read from .inp failed to read back after writing: \(error)\n\(written)")
    }
    return 0
}

#if FUZZING
@_cdecl("fuzz_swmm_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.main("fuzz-swmm", argc, argv, fuzz)
}
#else
@main enum FuzzSWMMReplay {
    static func main() { exit(FuzzDriver.main("fuzz-swmm", CommandLine.argc, CommandLine.unsafeArgv, fuzz)) }
}
#endif
