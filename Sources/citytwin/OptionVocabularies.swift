import ArgumentParser
import GeoCore
import Logging
import Tiles

// The closed vocabularies of the command line as types: argument-parser lists their values in
// `--help` and refuses any other value naming the option and the values it takes. Where a kernel
// declares the vocabulary, the option takes the kernel's type.

/// `--profile driving|walking`: the travel profiles the routing processes take.
enum RoutingProfile: String, CaseIterable, ExpressibleByArgument {
    /// Design speeds, one-way streets honoured.
    case driving
    /// 5 km/h, either way along every road.
    case walking
}

/// `signal plan --method`: new plans per period (`webster`), or one adaptive re-timing step of the
/// running plan (`webster-retiming`, `saturation-balancing`), as the `signal-timing` process names them.
enum SignalTimingMethod: String, CaseIterable, ExpressibleByArgument {
    case webster
    case websterRetiming = "webster-retiming"
    case saturationBalancing = "saturation-balancing"
}

/// `geo validate --method linework|structure`.
extension MakeValidMethod: CaseIterable, ExpressibleByArgument {
    public static var allCases: [MakeValidMethod] { [.linework, .structure] }

    public init?(argument: String) {
        guard let method = Self.allCases.first(where: { $0.argument == argument }) else { return nil }
        self = method
    }

    /// The option's word for the method.
    var argument: String {
        switch self {
        case .linework: "linework"
        case .structure: "structure"
        }
    }

    public static var allValueStrings: [String] { allCases.map(\.argument) }
    public var defaultValueDescription: String { argument }
}

/// `export tiles --format pmtiles|mbtiles` (either case).
extension TileArchiveFormat: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument.lowercased()) }
}

/// `serve --log-level trace|debug|info|notice|warning|error|critical`.
extension Logger.Level: @retroactive ExpressibleByArgument {}
