import Foundation

/// The directory an `--out` option names, created if missing, and the files a command writes
/// into it; each failure names the path and the system's reason (`Not a directory`), never a
/// bare Foundation error.
struct OutputDirectory {
    let path: String
    let url: URL

    init(_ path: String) throws {
        self.path = path
        url = URL(fileURLWithPath: path, isDirectory: true)
        do { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) } catch {
            throw CommandFailure("--out \(path): cannot be created (\(fileErrorReason(error)))")
        }
    }

    /// Writes `text` as the file `name` in the directory.
    func write(_ text: String, _ name: String) throws {
        try writeOutputFile(text, to: url.appendingPathComponent(name).path)
    }
}

/// Writes a file a command was asked for (`--output`, `--diagram`), or fails naming it and why.
func writeOutputFile(_ text: String, to path: String) throws {
    do { try text.write(toFile: path, atomically: true, encoding: .utf8) } catch {
        throw CommandFailure("\(path): cannot be written (\(fileErrorReason(error)))")
    }
}

/// The operating system's reason under a Foundation file error (`Permission denied`, `Not a
/// directory`), else the error's own description.
func fileErrorReason(_ error: any Error) -> String {
    let ns = error as NSError
    let underlying = (ns.userInfo[NSUnderlyingErrorKey] as? any Error).map { $0 as NSError }
    if let posix = [underlying, ns].compactMap({ $0 }).first(where: { $0.domain == NSPOSIXErrorDomain }) {
        return String(cString: strerror(Int32(posix.code)))
    }
    return ns.localizedDescription
}
