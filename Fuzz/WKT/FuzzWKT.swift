// libFuzzer harness for the WKT reader and writer (Scripts/fuzz.sh). The libFuzzer/replay driver is shared: Fuzz/Support.
import FuzzSupport
import Foundation
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

// The entry point: libFuzzer under -DFUZZING (SwiftPM links `main` to `fuzz_wkt_main`), otherwise a
// replay of the corpus files named as arguments; both through the shared driver (Fuzz/Support).
#if FUZZING
@_cdecl("fuzz_wkt_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.main("fuzz-wkt", argc, argv, fuzz)
}
#else
@main enum FuzzWktReplay {
    static func main() { exit(FuzzDriver.main("fuzz-wkt", CommandLine.argc, CommandLine.unsafeArgv, fuzz)) }
}
#endif
