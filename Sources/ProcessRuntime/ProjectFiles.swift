import Foundation

/// Where CityTwin's own files are (`Layers/`, `Models/`, the `.venv` of its reference tools), so
/// that every command works from any working directory: `CITYTWIN_HOME` when set; else the
/// working directory or a folder above it that holds them; else the folder of the running
/// executable or one above it (`.build/debug/citytwin` in a checkout); else the working directory.
public enum ProjectFiles {
    /// The environment variable naming the folder explicitly.
    public static let homeVariable = "CITYTWIN_HOME"

    /// The folder holding `Layers/` and `Models/`.
    public static let root: URL = locate(environment: ProcessInfo.processInfo.environment)

    /// `relative` under `root` (e.g. `Layers`, `Models/storm-intensity.json`).
    public static func url(_ relative: String) -> URL {
        root.appendingPathComponent(relative)
    }

    /// The path of `relative` under `root`, for command-line defaults.
    public static func path(_ relative: String) -> String { url(relative).path }

    static func locate(environment: [String: String]) -> URL {
        if let home = environment[homeVariable], !home.isEmpty { return URL(fileURLWithPath: home, isDirectory: true) }
        let fm = FileManager.default
        let cwd = URL(fileURLWithPath: fm.currentDirectoryPath, isDirectory: true)
        var starts = [cwd]
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() { starts.append(executable.deletingLastPathComponent()) }
        for start in starts {
            var folder = start
            for _ in 0..<8 {
                if isProject(folder, fm) { return folder }
                let parent = folder.deletingLastPathComponent()
                if parent.path == folder.path { break }
                folder = parent
            }
        }
        return cwd
    }

    private static func isProject(_ folder: URL, _ fm: FileManager) -> Bool {
        var isDirectory: ObjCBool = false
        return fm.fileExists(atPath: folder.appendingPathComponent("Layers").path, isDirectory: &isDirectory) && isDirectory.boolValue
            && fm.fileExists(atPath: folder.appendingPathComponent("Models/storm-intensity.json").path)
    }
}
