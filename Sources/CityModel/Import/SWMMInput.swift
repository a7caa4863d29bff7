import Foundation
import GeoCore
import SWMMFormat

/// An EPA SWMM 5 input file (`.inp`) read as a drainage network for the CIM layers:
/// `[JUNCTIONS]` → drainage_manholes, `[OUTFALLS]` → drainage_outfalls, `[STORAGE]` →
/// drainage_storage, `[CONDUITS]` + `[XSECTIONS]` + `[VERTICES]` → drainage_pipes, `[PUMPS]` →
/// drainage_pumps, `[SUBCATCHMENTS]` + `[POLYGONS]` → subcatchments, with node
/// positions from `[COORDINATES]`.
///
/// The file is read by SWMMFormat's `SWMMModel`, the one `.inp` reader (tokens as SWMM's own
/// reader splits them: quoted names, CRLF line ends), so whatever the simulator accepts imports
/// the same way. US-unit models (`FLOW_UNITS` CFS, GPM, MGD; CFS when not given) are converted
/// to metres and hectares. Coordinates are in a projected CRS (default EPSG:4547), or in local
/// metres placed at `origin`. Errors of the reader name the line (`line 12`, counting physical
/// lines from 1) and the field.
public struct SWMMInput: Sendable {
    public let file: URL
    /// The model as SWMM reads it, in the file's own units (`model.units` gives the factors to SI).
    public let model: SWMMModel
    /// Where each node, link, subcatchment and cross-section was defined in the file.
    let lines: SWMMSourceLines

    /// Reads and checks `file` (UTF-8, or GB18030 when it is not UTF-8).
    /// - Throws: `ImportError` `.unreadable` when the file cannot be read; otherwise the reader's
    ///   `SWMMInputError` as an `ImportError` naming the line and field (see `init(_:file:)`).
    public init(file: URL) throws {
        self.file = file
        let name = file.lastPathComponent
        let data: Data
        do { data = try Data(contentsOf: file) } catch {
            throw ImportError(.unreadable, file: name, "cannot read the file: \(error.localizedDescription)")
        }
        let text = TextEncoding.utf8.decode(data) ?? TextEncoding.gb18030.decode(data) ?? String(decoding: data, as: UTF8.self)
        do {
            (model, lines) = try SWMMModel.parsing(text, baseDirectory: file.deletingLastPathComponent())
        } catch let error as SWMMInputError {
            throw ImportError(error, file: name)
        }
    }
}

extension ImportError {
    /// A problem the SWMM reader found in `file`: its line as the location (`line 12`), its field
    /// (`Length`, `FromNode`; the section when no single field is to blame, as for an unknown
    /// `[GARDENS]` header), and its section in the reason. `.malformed` when no field is named
    /// (a broken header, data before any section), `.invalidValue` otherwise.
    init(_ error: SWMMInputError, file: String) {
        var reason = error.reason
        if let section = error.section, error.field != nil { reason = "in [\(section)], " + reason }
        self.init(error.field == nil ? .malformed : .invalidValue, file: file, location: error.line.map { "line \($0)" },
                  field: error.field ?? error.section, reason)
    }
}
