// libFuzzer harness for the GeoJSON reader and writer (Scripts/fuzz.sh). Built with -DFUZZING,
// libFuzzer supplies `main`; built normally, the `@main` below replays files or folders.
import Foundation
import GeoCore

/// Reads the input as GeoJSON and as a GeoJSON text sequence. A thrown `GeometryError` is fine; a
/// trap, another error type or an object that changes when written and read back is a bug and
/// crashes on purpose.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    _ = try? GeoJSON.decodeSequence(bytes)
    let object: GeoJSONObject
    do {
        object = try GeoJSON.decode(bytes)
    } catch is GeometryError {
        return 0
    } catch {
        fatalError("GeoJSON reader threw a non-GeometryError: \(error)")
    }
    do {
        let written = GeoJSON.encode(object, options: .init(rightHandRule: false))
        guard try GeoJSON.decode(written) == object else {
            fatalError("GeoJSON round trip changed the object: \(String(decoding: written, as: UTF8.self))")
        }
        // Writing with the right-hand rule must still read back.
        _ = try GeoJSON.decode(GeoJSON.encode(object, options: .init(precision: 3)))
    } catch {
        fatalError("an object read from GeoJSON failed to round-trip: \(error)")
    }
    return 0
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

@_cdecl("fuzz_geojson_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, fuzz)
}
#else
@main
struct ReplayGeoJSON {
    static func main() throws {
        print("fuzz-geojson: replayed \(try replayCorpus(CommandLine.arguments.dropFirst(), through: fuzz)) inputs")
    }
}

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
#endif
