import ArgumentParser
import CityModel

/// `--encoding` of `import` and `geocode`: the names `TextEncoding(name:)` reads (UTF-8, GBK,
/// GB2312, CP936, GB18030 and their code pages), one decoding for every command.
extension TextEncoding: ExpressibleByArgument {
    public init?(argument: String) { self.init(name: argument) }

    public static var allValueStrings: [String] { ["UTF-8", "GBK", "GB2312", "CP936", "GB18030"] }

    public var defaultValueDescription: String { rawValue }
}
