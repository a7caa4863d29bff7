// libFuzzer harness for the CQL2 parsers (Scripts/fuzz.sh, target `fuzz-cql2`). Built with
// -DFUZZING, libFuzzer supplies `main`; built normally, the code at the bottom replays files or
// folders given as arguments.
import Foundation
import TwinStore

/// The queryables every input is also checked against, so type checks are fuzzed too.
let queryables = Queryables(properties: [
    "name": .string, "floors": .integer, "height": .number, "is_public": .boolean,
    "built": .dateTime, "surveyed": .date, "notes": .any, "geometry": .geometry,
])

/// Parses the input as cql2-text and as cql2-json, with and without queryables. A thrown
/// `CQLError` is a fine outcome; anything else (a trap, another error type, a filter that the
/// queryables accept but that reads differently without them) is a bug and crashes on purpose
/// so libFuzzer records the input.
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

#if FUZZING
/// libFuzzer's entry point (declared in its FuzzerInterface.h), run from the `main` SwiftPM asks
/// for: SwiftPM links executables with `--defsym main=<module>_main`, so the module must define it.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

@_cdecl("fuzz_cql2_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, fuzz)
}
#else
/// Feeds every file named (or inside every folder named) to `harness`; returns how many.
func replayCorpus(_ paths: ArraySlice<String>, through harness: (UnsafePointer<UInt8>, Int) -> CInt) throws -> Int {
    var count = 0
    for path in paths {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path])
        }
        let files = isFolder.boolValue
            ? try FileManager.default.contentsOfDirectory(atPath: path).sorted().map { path + "/" + $0 }
            : [path]
        for file in files {
            // One extra byte so that even an empty file has a valid pointer.
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file))) + [0]
            _ = bytes.withUnsafeBufferPointer { harness($0.baseAddress.unsafelyUnwrapped, $0.count - 1) }
            count += 1
        }
    }
    return count
}

// The replay runs from a global's initialiser rather than top-level statements: main.swift runs
// its globals in order when built normally, while the FUZZING build (-parse-as-library) would
// reject statements at the top level even in this inactive branch.
let replayed: Int = {
    do {
        let count = try replayCorpus(CommandLine.arguments.dropFirst(), through: fuzz)
        print("fuzz-cql2: replayed \(count) inputs")
        return count
    } catch {
        print("fuzz-cql2: \(error)")
        exit(1)
    }
}()
#endif
