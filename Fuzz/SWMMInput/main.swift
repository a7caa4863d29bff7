// libFuzzer harness for the SWMM .inp reader and writer (Scripts/fuzz.sh). The libFuzzer/replay driver is shared: Fuzz/Support.
import Foundation
import FuzzSupport
import SWMMFormat

/// Parses the input as a `.inp` file. A thrown `SWMMInputError` is a fine outcome; anything else (a
/// trap, another error) is a bug and crashes on purpose so libFuzzer records the input.
/// A model that does not survive write → read (`inpText()` then `SWMMModel(parsing:)`) is a bug too:
/// every model the reader accepts must be written so that it reads back equal.
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
