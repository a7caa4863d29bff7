// libFuzzer harness for the ESRI ASCII grid reader and writer (Scripts/fuzz.sh), target
// `fuzz-asciigrid`. Built with -DFUZZING (and -parse-as-library, which fuzz.sh passes), libFuzzer
// supplies `main` and calls `LLVMFuzzerTestOneInput`; built normally, the global at the end
// replays files or folders through the same function:
//
//     swift build --product fuzz-asciigrid
//     .build/debug/fuzz-asciigrid Tests/GeoCoreTests/Fixtures/grids .fuzz/artifacts/asciigrid/crash-*
//
// (This file is `main.swift`, so the replayer runs as its top-level code rather than from an
// `@main` type: a `main.swift` may not hold `@main` without -parse-as-library in normal builds.)
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

#if FUZZING
/// libFuzzer's entry point (declared in its FuzzerInterface.h), run from the `main` SwiftPM asks
/// for: SwiftPM links executables with `--defsym main=<module>_main`, so the module must define it.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

@_cdecl("fuzz_asciigrid_main")
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

func replayMain() {
    do {
        print("fuzz-asciigrid: replayed \(try replayCorpus(CommandLine.arguments.dropFirst(), through: fuzz)) inputs")
    } catch {
        print("fuzz-asciigrid: \(error)")
        exit(1)
    }
}

// main.swift's top-level code, spelled as a declaration: statements would not parse under the
// -parse-as-library that fuzz.sh passes, even in this inactive branch.
let replayed: Void = replayMain()
#endif
