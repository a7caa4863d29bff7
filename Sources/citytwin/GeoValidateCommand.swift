import ArgumentParser
import Foundation
import GeoCore

/// `citytwin geo validate [--repair]`: reports every invalid or unreadable geometry with GEOS's
/// reason and location, and carries on to the end of the input. With `--repair`, writes the
/// repaired document to stdout (unreadable items left out) and the report to stderr.
struct GeoValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "validate",
        abstract: "Report invalid geometries in GeoJSON or WKT on stdin; optionally repair them.",
        discussion: """
            Every feature (or WKT line) is checked: one that cannot even be read (an unclosed ring) is reported \
            and the rest are still checked. Exit status: 0 when every geometry is valid (or was repaired), \
            1 when any is invalid or unreadable.
            """)

    @Flag(help: "Write the document with invalid geometries repaired (GEOS make-valid) to stdout; unreadable ones are left out.")
    var repair = false
    @Option(help: "Repair method: linework (keeps every edge) or structure (rebuilds areas).")
    var method: MakeValidMethod = .linework

    func run() throws {
        let (document, labelled, unreadable) = try GeoDocument.readEach(readStandardInput())
        var invalid = 0
        var report = ""
        for (label, reason) in unreadable {
            report += "\(label): unreadable: \(reason)" + (repair ? " (left out)" : "") + "\n"
        }
        for (label, geometry) in labelled {
            let r: ValidityReport
            do {
                r = try geometry.validityReason()
            } catch {
                invalid += 1
                report += "\(label): invalid: \(error)" + (repair ? " (repaired)" : "") + "\n"
                continue
            }
            if r.isValid { continue }
            invalid += 1
            let at = r.location.map { " at (\($0.x), \($0.y))" } ?? ""
            report += "\(label): invalid: \(r.reason)\(at)" + (repair ? " (repaired)" : "") + "\n"
        }
        let total = labelled.count + unreadable.count
        // With --repair the tally counts what the output holds: the invalid ones are repaired in it.
        report += "\(total - invalid - unreadable.count) of \(total) geometries valid"
            + (repair && invalid > 0 ? ", \(invalid) repaired" : "")
            + (unreadable.isEmpty ? "" : ", \(unreadable.count) unreadable" + (repair ? " (left out)" : "")) + "\n"
        if repair {
            FileHandle.standardError.write(Data(report.utf8))
            let fixed = try document.mapGeometries { g in
                try g.isValid ? g : g.makeValid(method: method)
            }
            FileHandle.standardOutput.write(fixed.write(precision: nil))
            if !unreadable.isEmpty { throw ExitCode(1) }
            return
        }
        FileHandle.standardOutput.write(Data(report.utf8))
        if invalid > 0 || !unreadable.isEmpty { throw ExitCode(1) }
    }
}
