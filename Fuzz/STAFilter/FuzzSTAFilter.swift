// libFuzzer harness for the SensorThings $filter parser (Scripts/fuzz.sh, target `fuzz-stafilter`). The libFuzzer/replay driver is shared: Fuzz/Support.
import FuzzSupport
import Foundation
import GeoCore
import QueryLanguage

/// An entity every parsed filter is evaluated against, so the evaluator is fuzzed too.
let entity: [String: JSONValue] = [
    "result": 27.8, "name": "Gauge 1", "phenomenonTime": "2026-05-01T08:30:00Z/2026-05-01T09:00:00Z",
    "properties": ["level": 3, "tags": ["a", "b"]], "location": ["type": "Point", "coordinates": [114.8, 30.84]],
]

/// Parses the input as a `$filter` and evaluates what parses. A thrown `SensingFilterError`
/// is a fine outcome (its offset must lie within the text); any other error, a trap, or a filter
/// accepted deeper than the depth limit is a bug and crashes on purpose so libFuzzer records the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: Data(bytes: data, count: size), as: UTF8.self)
    let filter: SensingFilter
    do {
        filter = try SensingFilter.parse(text)
        guard filter.depth <= FilterExpression.maximumDepth else { fatalError("accepted a filter \(filter.depth) deep, past the limit") }
    } catch let e as SensingFilterError {
        guard e.offset >= 0, e.offset <= text.count else { fatalError("offset \(e.offset) outside a filter of \(text.count) characters") }
        return 0
    } catch {
        fatalError("$filter threw a non-SensingFilterError: \(error)")
    }
    do {
        _ = try SensingFilterEvaluator.matches(filter, now: 0) { path in
            var v = entity[path[0]]
            for p in path.dropFirst() { v = v?.objectValue?[p] }
            return SensingFilterEvaluator.value(v)
        }
    } catch {
        fatalError("evaluating \(filter) threw \(error)")
    }
    return 0
}

// The entry point: libFuzzer under -DFUZZING (SwiftPM links `main` to `fuzz_stafilter_main`), otherwise a
// replay of the corpus files named as arguments; both through the shared driver (Fuzz/Support).
#if FUZZING
@_cdecl("fuzz_stafilter_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.main("fuzz-stafilter", argc, argv, fuzz)
}
#else
@main enum FuzzSTAFilterReplay {
    static func main() { exit(FuzzDriver.main("fuzz-stafilter", CommandLine.argc, CommandLine.unsafeArgv, fuzz)) }
}
#endif
