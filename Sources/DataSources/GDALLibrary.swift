import CGDAL
import Foundation

/// GDAL, set up once per process: every driver registered, messages kept for the caller instead
/// of printed (GDAL's last error is per thread, and `DataSourceError` carries it).
public enum GDALLibrary {
    /// GDAL's release, e.g. `3.6.2`.
    public static var version: String {
        setUp()
        return String(cString: GDALVersionInfo("RELEASE_NAME"))
    }

    /// Registers every driver once; safe to call from any thread, any number of times.
    public static func setUp() { _ = registered }

    private static let registered: Void = {
        CPLSetErrorHandler(CPLQuietErrorHandler)
        GDALAllRegister()
    }()

    /// The message of GDAL's last error on this thread (trimmed to its first line and 200
    /// characters, so a driver that quotes a piece of the file cannot put the file into an error),
    /// and resets it.
    static func takeLastError() -> String? {
        defer { CPLErrorReset() }
        guard CPLGetLastErrorType() != CE_None, let raw = CPLGetLastErrorMsg() else { return nil }
        let text = String(cString: raw).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        guard !text.isEmpty else { return nil }
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }

    /// `["KEY=VALUE", …]` as GDAL's NULL-terminated string list, for the duration of `body`.
    static func withStringList<R>(_ items: [String], _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) throws -> R) rethrows -> R {
        var list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = nil
        for item in items { list = CSLAddString(list, item) }
        defer { CSLDestroy(list) }
        return try body(list)
    }

    /// A string list as the `const char* const*` most of GDAL's functions take.
    static func constant(_ list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> UnsafePointer<UnsafePointer<CChar>?>? {
        list.map { UnsafeRawPointer($0).assumingMemoryBound(to: UnsafePointer<CChar>?.self) }
    }
}
