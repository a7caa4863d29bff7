// libFuzzer harness for the WKB/EWKB reader and writer (Scripts/fuzz.sh). The libFuzzer/replay driver is shared: Fuzz/Support.
import FuzzSupport
import Foundation
import GeoCore

/// Reads the input as (E)WKB. A thrown `GeometryError` is fine; a trap, another error type or a
/// geometry that changes when written and read back is a bug and crashes on purpose.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let decoded: (geometry: Geometry, srid: Int32?)
    do {
        decoded = try Geometry.decodeEWKB(bytes)
    } catch is GeometryError {
        return 0
    } catch {
        fatalError("WKB reader threw a non-GeometryError: \(error)")
    }
    let g = decoded.geometry
    do {
        guard try Geometry(wkb: g.wkb(byteOrder: .bigEndian)) == g else { fatalError("ISO WKB round trip changed \(g.wkt())") }
        let again = try Geometry.decodeEWKB(g.ewkb(srid: decoded.srid))
        guard again.geometry == g, again.srid == decoded.srid else { fatalError("EWKB round trip changed \(g.wkt())") }
        guard try Geometry(wkt: g.wkt()) == g else { fatalError("WKT round trip changed \(g.wkt())") }
    } catch {
        fatalError("a geometry read from WKB failed to round-trip: \(error)")
    }
    return 0
}

// The entry point: libFuzzer under -DFUZZING (SwiftPM links `main` to `fuzz_wkb_main`), otherwise a
// replay of the corpus files named as arguments; both through the shared driver (Fuzz/Support).
#if FUZZING
@_cdecl("fuzz_wkb_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.main("fuzz-wkb", argc, argv, fuzz)
}
#else
@main enum FuzzWkbReplay {
    static func main() { exit(FuzzDriver.main("fuzz-wkb", CommandLine.argc, CommandLine.unsafeArgv, fuzz)) }
}
#endif
