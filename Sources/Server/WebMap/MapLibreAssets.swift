import Foundation
import ProcessRuntime
import Scenarios

/// MapLibre GL JS (`maplibre-gl.js`, `maplibre-gl.css`) served from `/static/`, never from a CDN:
/// the files of the PyPI package `maplibre` (its `srcjs` folder), read once, on first use.
///
/// The folder is `CITYTWIN_STATIC_DIR` when set, else the first
/// `.venv/lib/python*/site-packages/maplibre/srcjs` found in the working directory or one of
/// its parents (`Scripts/setup.sh` installs the package into `.venv`).
struct MapLibreAssets: Sendable {
    /// File name → media type of the files served.
    static let served: [String: String] = [
        "maplibre-gl.js": "text/javascript; charset=utf-8",
        "maplibre-gl.css": "text/css; charset=utf-8",
    ]

    /// The folder the files were read from; `nil` when none was found.
    let directory: String?
    /// File name → bytes.
    let files: [String: [UInt8]]
    /// Why the files are missing, for the 404 detail.
    let problem: String?

    /// The assets of this process (read on first use).
    static let shared = MapLibreAssets(directory: locate())

    init(directory: String?) {
        self.directory = directory
        guard let directory else {
            files = [:]
            problem = "MapLibre GL JS was not found: set CITYTWIN_STATIC_DIR to a folder holding maplibre-gl.js and maplibre-gl.css, or run Scripts/setup.sh (installs the PyPI package maplibre into .venv)"
            return
        }
        var files = [String: [UInt8]]()
        var missing = [String]()
        for name in Self.served.keys.sorted() {
            if let data = FileManager.default.contents(atPath: (directory as NSString).appendingPathComponent(name)) {
                files[name] = [UInt8](data)
            } else {
                missing.append(name)
            }
        }
        self.files = files
        problem = missing.isEmpty ? nil : "\(missing.joined(separator: ", ")) not found in \(directory)"
    }

    /// `CITYTWIN_STATIC_DIR`, else the `maplibre` package's `srcjs` in a `.venv` at or above the project's folder (`ProjectFiles`).
    static func locate() -> String? {
        if let dir = ProcessInfo.processInfo.environment["CITYTWIN_STATIC_DIR"], !dir.isEmpty { return dir }
        let fm = FileManager.default
        var folder = ProjectFiles.root
        for _ in 0..<6 {
            let lib = folder.appendingPathComponent(".venv/lib")
            if let pythons = try? fm.contentsOfDirectory(atPath: lib.path) {
                for python in pythons.sorted() where python.hasPrefix("python") {
                    let srcjs = lib.appendingPathComponent("\(python)/site-packages/maplibre/srcjs")
                    if fm.fileExists(atPath: srcjs.appendingPathComponent("maplibre-gl.js").path) { return srcjs.path }
                }
            }
            let parent = folder.deletingLastPathComponent()
            if parent.path == folder.path { break }
            folder = parent
        }
        return nil
    }
}
