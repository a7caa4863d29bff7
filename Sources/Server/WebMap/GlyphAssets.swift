import Foundation
import ProcessRuntime
import Scenarios

/// The web map's label glyphs (MapLibre SDF glyph ranges, `{fontstack}/{start}-{end}.pbf`)
/// served at `/fonts/{fontstack}/{range}.pbf`, never from a CDN: made from a Debian font
/// (WenQuanYi Micro Hei) by `Scripts/make_glyphs.py`, which `Scripts/setup.sh` runs.
///
/// The folder is `CITYTWIN_GLYPHS_DIR` when set, else the first `.venv/share/citytwin/glyphs`
/// found in the working directory or one of its parents. Each subfolder is a font stack.
struct GlyphAssets: Sendable {
    /// The font stack the map's style names (`text-font`).
    static let fontstack = "wqy-microhei"

    let directory: String?

    /// The glyphs of this process (located once).
    static let shared = GlyphAssets(directory: locate())

    /// Whether the map's font stack was generated (else the style draws no text).
    var available: Bool {
        guard let directory else { return false }
        return FileManager.default.fileExists(atPath: "\(directory)/\(Self.fontstack)/0-255.pbf")
    }

    /// Why glyphs are missing, for a 404 detail.
    var problem: String {
        "the map's glyphs were not generated: run Scripts/setup.sh (it runs Scripts/make_glyphs.py into .venv/share/citytwin/glyphs) or set CITYTWIN_GLYPHS_DIR"
    }

    /// A range name as MapLibre asks for it: `<start>-<start + 255>.pbf`, start a multiple of 256
    /// up to 65280; `nil` for anything else.
    static func range(_ name: String) -> String? {
        guard name.hasSuffix(".pbf") else { return nil }
        let parts = name.dropLast(4).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) && $0.count <= 5 }),
              let start = Int(parts[0]), let end = Int(parts[1]), start % 256 == 0, end == start + 255, end <= 65535 else { return nil }
        return "\(start)-\(end)"
    }

    /// The bytes of one range of a font stack; a comma-separated stack is answered by its first
    /// served font. `nil` when the stack is not served.
    func bytes(fontstack: String, range: String) -> [UInt8]? {
        guard let directory else { return nil }
        for name in fontstack.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) })
        where name == Self.fontstack {
            if let data = FileManager.default.contents(atPath: "\(directory)/\(name)/\(range).pbf") { return [UInt8](data) }
        }
        return nil
    }

    /// `CITYTWIN_GLYPHS_DIR`, else `.venv/share/citytwin/glyphs` at or above the project's folder (`ProjectFiles`).
    static func locate() -> String? {
        if let dir = ProcessInfo.processInfo.environment["CITYTWIN_GLYPHS_DIR"], !dir.isEmpty { return dir }
        let fm = FileManager.default
        var folder = ProjectFiles.root
        for _ in 0..<6 {
            let glyphs = folder.appendingPathComponent(".venv/share/citytwin/glyphs")
            if fm.fileExists(atPath: glyphs.appendingPathComponent("\(fontstack)/0-255.pbf").path) { return glyphs.path }
            let parent = folder.deletingLastPathComponent()
            if parent.path == folder.path { break }
            folder = parent
        }
        return nil
    }
}
