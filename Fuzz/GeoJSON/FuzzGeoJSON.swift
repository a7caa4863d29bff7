// libFuzzer harness for the GeoJSON reader and writer (Scripts/fuzz.sh). The libFuzzer/replay driver is shared: Fuzz/Support.
import FuzzSupport
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

// The entry point: libFuzzer under -DFUZZING (SwiftPM links `main` to `fuzz_geojson_main`), otherwise a
// replay of the corpus files named as arguments; both through the shared driver (Fuzz/Support).
#if FUZZING
@_cdecl("fuzz_geojson_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.main("fuzz-geojson", argc, argv, fuzz)
}
#else
@main enum FuzzGeojsonReplay {
    static func main() { exit(FuzzDriver.main("fuzz-geojson", CommandLine.argc, CommandLine.unsafeArgv, fuzz)) }
}
#endif
