// libFuzzer harness for the WKT reader and writer (Scripts/fuzz.sh). Built with -DFUZZING, libFuzzer
// supplies `main`; built normally, the `@main` below replays files or folders given as arguments.
import GeoCore

/// Parses the input as WKT. A thrown `GeometryError` is a fine outcome; anything else (a trap, a
/// different error, a geometry that does not survive a round trip through WKT, WKB and GeoJSON)
/// is a bug and crashes on purpose so libFuzzer records the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let geometry: Geometry
    do {
        geometry = try Geometry(wkt: text)
    } catch is GeometryError {
        return 0
    } catch {
        fatalError("WKT reader threw a non-GeometryError: \(error)")
    }
    do {
        let wkt = geometry.wkt()
        guard try Geometry(wkt: wkt) == geometry else { fatalError("WKT round trip changed \(text) into \(wkt)") }
        guard try Geometry(wkb: geometry.wkb()) == geometry else { fatalError("WKB round trip changed \(wkt)") }
        let json = GeoJSON.encode(geometry, options: .init(rightHandRule: false))
        guard try GeoJSON.decode(json) == .geometry(geometry) else { fatalError("GeoJSON round trip changed \(wkt)") }
    } catch {
        fatalError("a geometry read from WKT failed to round-trip: \(error)")
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

@_cdecl("fuzz_wkt_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, fuzz)
}
#else
import Foundation

@main
struct ReplayWKT {
    static func main() throws {
        print("fuzz-wkt: replayed \(try replayCorpus(CommandLine.arguments.dropFirst(), through: fuzz)) inputs")
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
