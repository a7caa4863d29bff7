// libFuzzer harness for the CQL2 parsers (Scripts/fuzz.sh, target `fuzz-cql2`). The libFuzzer/replay driver is shared: Fuzz/Support.
import FuzzSupport
import Foundation
import QueryLanguage

/// The queryables every input is also checked against, so type checks are fuzzed too.
let queryables = Queryables(properties: [
    "name": .string, "floors": .integer, "height": .number, "is_public": .boolean,
    "built": .dateTime, "surveyed": .date, "notes": .any, "geometry": .geometry,
])

/// Parses the input as cql2-text and as cql2-json, with and without queryables. A thrown
/// `CQLError` is a fine outcome; anything else (a trap, another error type, a filter that the
/// queryables accept but that reads differently without them, a filter deeper than the depth
/// limit the store's SQL is sized for) is a bug and crashes on purpose so libFuzzer records the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    let text = String(decoding: bytes, as: UTF8.self)
    check("text") { try CQL2.parseText(text, queryables: $0) }
    check("json") { try CQL2.parseJSON(bytes, queryables: $0) }
    return 0
}

func check(_ encoding: String, _ parse: (Queryables?) throws -> FilterExpression) {
    let open: FilterExpression?
    do {
        open = try parse(nil)
        if let f = open, f.depth > FilterExpression.maximumDepth || f.arithmeticDepth > FilterExpression.maximumArithmeticDepth {
            fatalError("cql2-\(encoding) accepted a filter \(f.depth) deep (arithmetic \(f.arithmeticDepth)), past the limits")
        }
    } catch is CQLError {
        open = nil
    } catch {
        fatalError("cql2-\(encoding) threw a non-CQLError: \(error)")
    }
    do {
        let typed = try parse(queryables)
        guard typed == open else { fatalError("cql2-\(encoding): queryables changed the filter \(String(describing: open)) into \(typed)") }
    } catch is CQLError {
        return
    } catch {
        fatalError("cql2-\(encoding) threw a non-CQLError with queryables: \(error)")
    }
}

// The entry point: libFuzzer under -DFUZZING (SwiftPM links `main` to `fuzz_cql2_main`), otherwise a
// replay of the corpus files named as arguments; both through the shared driver (Fuzz/Support).
#if FUZZING
@_cdecl("fuzz_cql2_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.main("fuzz-cql2", argc, argv, fuzz)
}
#else
@main enum FuzzCql2Replay {
    static func main() { exit(FuzzDriver.main("fuzz-cql2", CommandLine.argc, CommandLine.unsafeArgv, fuzz)) }
}
#endif
