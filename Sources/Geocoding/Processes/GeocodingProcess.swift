import Foundation
import CityModel
import GeoCore
import ProcessRuntime
import TwinStore

/// `geocoding`: standard addresses for other departments' services — forward (address text to a
/// standard address record, fuzzy, with the match level and a confidence score), reverse (a
/// point to the nearest door plate or building) and batch (a CSV table, every row answered in
/// order, a row without a match left empty with its reason).
///
/// Inputs, exactly one of: `addresses` (texts), `points` ([lon, lat] or GeoJSON Points, CRS84)
/// or `csv` (CSV text with a header; `column` names the address column, or `reverse` with
/// `lonColumn`/`latColumn`); `maximumDistance` (reverse, metres, default 500). Outputs: `matches`
/// (per input in order: its input, `matched`, and the match or the reason) or, for `csv`, the
/// table with `address_code, match_level, confidence, matched_address, lon, lat, reason` appended
/// (`csv`; every row answered: a broken or unmatched row says why in `reason`, and the other rows
/// still answer), its `rows` and how many `matched`.
public struct GeocodingProcess: TypedProcess {
    public let id = "geocoding"
    public let version = "1.0.0"
    public let title = "Address geocoding"
    public let description = "Forward, reverse and batch (CSV) geocoding against the district's standard addresses (GB/T 23705-style levels): fuzzy matches with the match level and a confidence score."
    public let jobControlOptions: [JobControlOption] = [.syncExecute, .asyncExecute, .dismiss]

    /// The most texts or points one request may give.
    public static let maximumItems = 10_000

    public init() {}

    public var outputs: [String: ProcessParameter] {
        [
            "matches": ProcessParameter(title: "Matches", description: "Per input, in order: input, matched, address_code, match_level, confidence, matched_address, lon, lat (distance_m for reverse; fallback with requested_level, reason and interpolated when the match is coarser than the text asks for), or reason.",
                                        schema: ["type": "array"]),
            "csv": ProcessParameter(title: "Geocoded table", description: "The CSV with the match columns and a reason (why a row has no match, naming its line; for a fallback match, why it is one) appended (csv input only).",
                                    schema: ["type": "string", "contentMediaType": "text/csv"]),
            "rows": ProcessParameter(title: "Rows", description: "Rows of the CSV answered (csv input only).", schema: ["type": "integer"]),
            "matched": ProcessParameter(title: "Rows matched", description: "Rows with a match (csv input only).", schema: ["type": "integer"]),
        ]
    }

    public func layers(_ inputs: [String: JSONValue]) -> ProcessLayers {
        ProcessLayers(reads: [AddressGeocoders.layer])
    }

    enum Work: Sendable {
        case forward([String])
        case reverse([Position])
        case table(String, AddressGeocoder.BatchInput)
    }

    /// The inputs. Only those of the kind of work given are checked: a `column` beside
    /// `addresses` is ignored, as it means nothing there.
    public struct Input: ProcessInput {
        var work: Work
        var maximumDistance: Double

        public init(from r: ProcessInputReader) throws {
            typealias In = ProcessInputs
            let maximum = JSONValue.integer(Int64(GeocodingProcess.maximumItems))
            let addresses = r.value("addresses", title: "Addresses", description: "Address texts to geocode (forward), at most 10,000.",
                                    schema: ["type": "array", "items": ["type": "string"], "maxItems": maximum])
            let points = r.value("points", title: "Points",
                                 description: "[longitude, latitude] pairs or GeoJSON Points in CRS84 to reverse geocode, at most 10,000.",
                                 schema: ["type": "array", "maxItems": maximum])
            let csv = r.value("csv", title: "CSV table",
                              description: """
                                  A CSV text (UTF-8, header row) to geocode row by row; broken rows are answered with their reason, \
                                  the others still match.
                                  """,
                              schema: ["type": "string", "contentMediaType": "text/csv"])
            let column = r.value("column", title: "Address column", description: "The CSV column holding the address text (default address).",
                                 schema: ["type": "string", "default": "address"])
            let reverse = r.value("reverse", title: "Reverse", description: "true: the CSV rows are points (lonColumn, latColumn) to reverse geocode.",
                                  schema: ["type": "boolean", "default": false])
            let lonColumn = r.value("lonColumn", title: "Longitude column", description: "Default lon.", schema: ["type": "string", "default": "lon"])
            let latColumn = r.value("latColumn", title: "Latitude column", description: "Default lat.", schema: ["type": "string", "default": "lat"])
            let given = [("addresses", addresses), ("points", points), ("csv", csv)].filter { $0.1 != nil }.map(\.0)
            guard given.count == 1 || r.isDescribing else {
                throw ProcessInputError(given.last ?? "addresses", "give exactly one of addresses, points and csv")
            }
            maximumDistance = try r.number("maximumDistance", title: "Maximum distance",
                                           description: "Reverse geocoding: the farthest record returned (m, default 500).",
                                           in: 1...5000, default: 500)
            let items = 1...GeocodingProcess.maximumItems
            if let addresses {
                let texts = try In.strings(["addresses": addresses], "addresses") ?? []
                guard items.contains(texts.count) else {
                    throw ProcessInputError("addresses", "must hold 1 to \(items.upperBound) texts (got \(texts.count)); send larger tables as csv")
                }
                work = .forward(texts)
            } else if let points {
                guard let list = points.arrayValue, items.contains(list.count) else {
                    throw ProcessInputError("points", "must be an array of 1 to \(items.upperBound) points")
                }
                work = .reverse(try list.enumerated().map { i, p -> Position in
                    do { return try In.requiredPoint(["p": p], "p") } catch let e as ProcessInputError {
                        throw ProcessInputError("points", "item \(i): \(e.reason)")
                    }
                })
            } else if let csv {
                guard let text = csv.stringValue else { throw ProcessInputError("csv", "must be CSV text") }
                func name(_ value: JSONValue?, _ input: String, _ fallback: String) throws -> String {
                    try value.flatMap { try In.string([input: $0], input) } ?? fallback
                }
                let batch: AddressGeocoder.BatchInput = try reverse.map { try In.bool(["reverse": $0], "reverse") } ?? false
                    ? .point(lonColumn: try name(lonColumn, "lonColumn", "lon"), latColumn: try name(latColumn, "latColumn", "lat"))
                    : .address(column: try name(column, "column", "address"))
                work = .table(text, batch)
            } else {
                work = .forward([])
            }
        }
    }

    public func run(_ input: Input, store: any FeatureStore, caller: Caller, progress: JobProgress) async throws -> JSONValue {
        let (work, distance) = (input.work, input.maximumDistance)
        return try await ProcessInputs.mapped {
            let geocoder = try await AddressGeocoders.shared.geocoder(for: store, by: caller)
            func answer(_ input: JSONValue, _ match: AddressMatch?, unmatched: String) -> JSONValue {
                guard let match, case .object(var o) = match.json(input: input) else {
                    return ["input": input, "matched": false, "reason": .string(unmatched)]
                }
                o["matched"] = true
                return .object(o)
            }
            switch work {
            case .forward(let texts):
                return ["matches": .array(texts.map { text in
                    answer(.string(text), geocoder.geocode(text), unmatched: "names no standard address of the district or contradicts itself")
                })]
            case .reverse(let points):
                return ["matches": .array(points.map { p in
                    answer([.number(p.x), .number(p.y)], geocoder.reverseGeocode(p, maximumDistance: distance),
                           unmatched: "no door plate or building within \(Int(distance)) m")
                })]
            case .table(let text, let batch):
                // The batch matches on all cores in waves; its reports between waves reach the job
                // (or the CLI's bar) through a stream, as the kernel itself does not wait on them.
                let (reports, sink) = AsyncStream.makeStream(of: WorkProgress.self, bufferingPolicy: .bufferingNewest(1))
                let work = Task {
                    defer { sink.finish() }
                    return try geocoder.geocodeCSV(text, file: "csv", input: batch, maximumDistance: distance, wave: 2048) { sink.yield($0) }
                }
                do {
                    for await report in reports { try await progress.report(report) }
                    let result = try await work.value
                    return ["csv": .string(result.csv), "rows": .integer(Int64(result.rows)), "matched": .integer(Int64(result.matched))]
                } catch let e as ImportError {
                    // A column missing from the header is the fault of the input that named it.
                    let input: String = switch batch {
                    case .address(let column) where e.field == column: "column"
                    case .point(let lon, _) where e.field == lon: "lonColumn"
                    case .point(_, let lat) where e.field == lat: "latColumn"
                    default: "csv"
                    }
                    throw ProcessInputError(input, e.description)
                } catch {
                    work.cancel()
                    throw error
                }
            }
        }
    }
}
