// The driver every fuzz harness (Fuzz/<Name>/) shares: built with -DFUZZING (Scripts/fuzz.sh) it
// hands the harness to libFuzzer; built normally it replays the files or folders named on the
// command line through the same harness, so a crash input can be re-run under a debugger.
import Foundation

/// A libFuzzer test function: `LLVMFuzzerTestOneInput`'s shape.
public typealias FuzzHarness = @convention(c) (UnsafePointer<UInt8>, Int) -> CInt

#if FUZZING
/// libFuzzer's entry point (declared in its FuzzerInterface.h).
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: FuzzHarness
) -> CInt
#endif

public enum FuzzDriver {
    /// Runs a harness executable. Each harness calls this from its `<module>_main` entry point
    /// (SwiftPM links an executable's `main` to that symbol).
    public static func main(_ name: String, _ argc: CInt,
                            _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                            _ harness: FuzzHarness) -> CInt {
        #if FUZZING
        var argc = argc
        var argv = argv
        return LLVMFuzzerRunDriver(&argc, &argv, harness)
        #else
        do {
            print("\(name): replayed \(try replay(CommandLine.arguments.dropFirst(), through: harness)) inputs")
            return 0
        } catch {
            print("\(name): \(error)")
            return 1
        }
        #endif
    }

    /// Feeds every file named (or inside every folder named) to `harness`; returns how many.
    static func replay(_ paths: ArraySlice<String>, through harness: FuzzHarness) throws -> Int {
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
}
