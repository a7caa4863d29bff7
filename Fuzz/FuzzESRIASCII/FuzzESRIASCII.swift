// libFuzzer harness for the ESRI ASCII grid reader and writer (Scripts/fuzz.sh), target. The libFuzzer/replay driver is shared: Fuzz/Support.
import FuzzSupport
import Foundation
import GeoCore

/// Reads the input as an ESRI ASCII grid. A thrown `GeometryError` `.parse` is fine; a trap,
/// another error, a grid whose size and value count disagree, or a grid that changes when
/// written and read back is a bug and crashes on purpose.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: data), count: size, deallocator: .none)
    let grid: Grid
    do {
        grid = try Grid(esriASCIIData: bytes)
    } catch let error as GeometryError {
        guard error.code == .parse else { fatalError("ESRI ASCII reader threw \(error.code), not parse: \(error)") }
        return 0
    } catch {
        fatalError("ESRI ASCII reader threw a non-GeometryError: \(error)")
    }
    guard grid.width > 0, grid.height > 0, grid.values.count == grid.width * grid.height else {
        fatalError("a \(grid.width) x \(grid.height) grid holds \(grid.values.count) values")
    }
    guard grid.geoTransform.isNorthUp else { fatalError("parsed transform is not north-up: \(grid.geoTransform)") }

    let back: Grid
    do {
        back = try Grid(esriASCIIData: try grid.esriASCIIData())
    } catch {
        fatalError("a grid read from ESRI ASCII failed to round-trip: \(error)")
    }
    func same(_ a: Float, _ b: Float) -> Bool { a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN) }
    guard back.width == grid.width, back.height == grid.height,
          back.noData.map({ n in grid.noData.map { same(n, $0) } ?? false }) ?? (grid.noData == nil),
          zip(back.values, grid.values).allSatisfy({ same($0, $1) })
    else { fatalError("round trip changed the size, no-data value or cell values") }
    // The writer stores the south edge (yllcorner); the reader adds nrows × cellsize back.
    let a = grid.geoTransform.gdalCoefficients, b = back.geoTransform.gdalCoefficients
    let scale = (a.map(abs).max() ?? 0) + Double(grid.height) * abs(a[5])
    guard zip(a, b).allSatisfy({ abs($0 - $1) <= scale * 1e-12 }) else {
        fatalError("round trip moved the grid: \(a) became \(b)")
    }
    return 0
}

// The entry point: libFuzzer under -DFUZZING (SwiftPM links `main` to `fuzz_asciigrid_main`), otherwise a
// replay of the corpus files named as arguments; both through the shared driver (Fuzz/Support).
#if FUZZING
@_cdecl("fuzz_asciigrid_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.main("fuzz-asciigrid", argc, argv, fuzz)
}
#else
@main enum FuzzAsciigridReplay {
    static func main() { exit(FuzzDriver.main("fuzz-asciigrid", CommandLine.argc, CommandLine.unsafeArgv, fuzz)) }
}
#endif
