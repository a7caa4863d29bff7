// A release-built stand-in for `citytwin simulate drainage X.inp --repeat N` that callgrind can run
// (Debian's valgrind 3.19 crashes on the release `citytwin` itself): one parse, N whole runs of
// `DrainageRun.run` (validation, runoff, routing, hot-start files), the same FloodSim objects. Linked
// by Benchmarks/swmm/harness.sh from a release scratch path; takes the same arguments.
import FloodSim
import Foundation
import SWMMFormat

var args = Array(CommandLine.arguments.dropFirst())
if args.count >= 2 && args[0] == "simulate" && args[1] == "drainage" { args.removeFirst(2) }
var repeats = 1
if let k = args.firstIndex(of: "--repeat"), k + 1 < args.count {
    repeats = Int(args[k + 1]) ?? 1
    args.removeSubrange(k...(k + 1))
}
guard let path = args.first else {
    FileHandle.standardError.write(Data("usage: drainage-harness [simulate drainage] X.inp [--repeat N]\n".utf8))
    exit(2)
}
let url = URL(fileURLWithPath: path)
do {
    let data = try Data(contentsOf: url)
    let text = String(data: data, encoding: .utf8) ?? String(decoding: data, as: UTF8.self)
    let parsed = try SWMMModel.parsing(text, baseDirectory: url.deletingLastPathComponent())
    let files = SWMMInterfaceFiles(directory: url.deletingLastPathComponent(), lines: parsed.lines)
    var flooding = 0.0
    for _ in 0..<max(1, repeats) {
        let result = try DrainageRun.run(parsed.model, baseDirectory: url.deletingLastPathComponent(), interfaceFiles: files) { _ in }
        flooding = result.routing.flooding
    }
    print(String(format: "flooding %.1f m³", flooding))
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
