import ArgumentParser
import Foundation
import GeoCore

/// `citytwin geo validate [--repair]`: reports each invalid geometry with GEOS's reason and
/// location. With `--repair`, writes the repaired document to stdout and the report to stderr.
struct GeoValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "validate",
        abstract: "Report invalid geometries in GeoJSON or WKT on stdin; optionally repair them.",
        discussion: "Exit status: 0 when every geometry is valid (or was repaired), 1 when any is invalid.")

    @Flag(help: "Write the document with invalid geometries repaired (GEOS make-valid) to stdout.")
    var repair = false
    @Option(help: "Repair method: linework (keeps every edge) or structure (rebuilds areas).")
    var method: String = "linework"

    func run() throws {
        let makeValidMethod: MakeValidMethod
        switch method {
        case "linework": makeValidMethod = .linework
        case "structure": makeValidMethod = .structure
        default: throw ValidationError("--method must be linework or structure, not '\(method)'")
        }
        let document = try GeoDocument.read(readStandardInput())
        var invalid = 0
        var report = ""
        for (label, geometry) in document.labelledGeometries {
            let r = try geometry.validityReason()
            if r.isValid { continue }
            invalid += 1
            let at = r.location.map { " at (\($0.x), \($0.y))" } ?? ""
            report += "\(label): invalid: \(r.reason)\(at)\n"
        }
        let total = document.labelledGeometries.count
        report += "\(total - invalid) of \(total) geometries valid\n"
        if repair {
            FileHandle.standardError.write(Data(report.utf8))
            let fixed = try document.mapGeometries { g in
                try g.isValid ? g : g.makeValid(method: makeValidMethod)
            }
            FileHandle.standardOutput.write(fixed.write(precision: nil))
            return
        }
        FileHandle.standardOutput.write(Data(report.utf8))
        if invalid > 0 { throw ExitCode(1) }
    }
}
