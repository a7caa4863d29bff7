import ArgumentParser
import Foundation
import GeoCore
import Signals
import Tiles

extension CityCommand {
    /// `citytwin city basemap`: the city's own base map, offline, from its OpenStreetMap extract:
    /// Debian's `tilemaker` with its OpenMapTiles-schema profile writes vector tiles into MBTiles,
    /// which this command rewrites as one PMTiles archive (`MBTilesConversion`) for
    /// `citytwin serve --basemap`.
    struct BaseMap: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "basemap",
            abstract: "Build the city's vector base map (OpenMapTiles schema) from an OpenStreetMap extract with tilemaker.",
            discussion: """
                Runs Debian's tilemaker (apt-get install tilemaker; Scripts/setup.sh installs it) with the OpenMapTiles \
                profile Debian ships (\(Profile.debianConfig), \(Profile.debianProcess)), zooms 0-14: layers water, \
                waterway, landuse, landcover, park, transportation, transportation_name, building, place, poi, \
                housenumber, boundary, aeroway, mountain_peak, labels in `name` (OSM's name tag). The profile's layers read from \
                shapefiles (ocean, urban areas, glaciers) are left out unless --shapefiles names the folder holding \
                them (coastline/, landcover/). Ways whose nodes the extract does not hold (an extract clipped without \
                complete ways) are dropped first with osmium (Debian osmium-tool), since tilemaker stops on them. \
                A .pmtiles output is what `citytwin serve --basemap` serves; a .mbtiles output is tilemaker's own file.
                """)

        @Option(help: "The OpenStreetMap extract (.osm.pbf).")
        var osm: String

        @Option(help: "The archive to write: .pmtiles (served by `citytwin serve --basemap`) or .mbtiles. It must not exist.")
        var out: String

        @Option(help: "tilemaker's layer configuration (default: Debian's OpenMapTiles profile).")
        var config: String = Profile.debianConfig

        @Option(help: "tilemaker's tag-processing Lua script (default: Debian's OpenMapTiles profile).")
        var process: String = Profile.debianProcess

        @Option(help: "A folder with the profile's shapefiles (coastline/water_polygons.shp, landcover/…): ocean and land cover below zoom 10. Default: none (left out).")
        var shapefiles: String?

        @Option(help: "The base map's name in its metadata (default: the extract's file name).")
        var name: String?

        func validate() throws {
            guard FileManager.default.fileExists(atPath: osm) else { throw ValidationError("--osm \(osm): no such file") }
            guard TileArchiveFormat(path: out) != nil else { throw ValidationError("--out must end in .pmtiles or .mbtiles (got '\(out)')") }
            guard !FileManager.default.fileExists(atPath: out) else { throw ValidationError("--out \(out) already exists: remove it or name another file") }
            for (flag, path) in [("--config", config), ("--process", process)] where !FileManager.default.fileExists(atPath: path) {
                throw ValidationError("\(flag) \(path): no such file\(path.hasPrefix("/usr/share/doc/tilemaker") ? " (Debian's tilemaker package installs it: apt-get install tilemaker)" : "")")
            }
        }

        func run() async throws {
            guard let tilemaker = SumoTools.find("tilemaker") else {
                throw CommandFailure("tilemaker is not installed: the base map is drawn by Debian's tilemaker package (apt-get install tilemaker; Scripts/setup.sh installs it)")
            }
            let started = ContinuousClock.now
            let work = FileManager.default.temporaryDirectory.appendingPathComponent("citytwin-basemap-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: work) }
            let extract = URL(fileURLWithPath: osm)
            let title = name ?? CityCommand.Build.cityName(extract)

            let input = try await Self.completeWays(extract, work: work)
            let profile = try Profile.write(config: config, into: work, name: title, shapefiles: shapefiles)
            for left in profile.leftOut { print("basemap: layer \(left) left out (its shapefile is not here; see --shapefiles)") }
            let mbtiles = TileArchiveFormat(path: out) == .mbtiles ? URL(fileURLWithPath: out) : work.appendingPathComponent("basemap.mbtiles")
            print("basemap: tilemaker \(extract.lastPathComponent) → zooms 0-14 (OpenMapTiles schema)")
            let ticker = Ticker()
            do {
                _ = try await SumoTools.run(tilemaker, ["--input", input.path, "--output", mbtiles.path, "--config", profile.url.path,
                                                        "--process", try Profile.names(process, into: work).path], in: work) {
                    ticker.tick("basemap: tilemaker running")
                }
            } catch let e as SumoTools.Failure {
                try? FileManager.default.removeItem(at: mbtiles)
                throw CommandFailure("tilemaker could not build the base map from \(extract.lastPathComponent), nothing written: \(e)")
            }
            if TileArchiveFormat(path: out) == .pmtiles {
                let bar = ProgressBar("basemap: writing \(URL(fileURLWithPath: out).lastPathComponent)")
                let summary: MBTilesConversion.Summary
                do {
                    summary = try MBTilesConversion.pmtiles(from: mbtiles.path, to: out) { done, total in
                        bar.update(WorkProgress(stage: "PMTiles", completed: Double(done), total: Double(total), unit: "tiles"))
                    }
                } catch let e as TileError {
                    let empty = (try? MBTilesConversion.tileCount(mbtiles.path)) == 0
                    throw CommandFailure(empty ? "tilemaker drew no tile from \(extract.lastPathComponent): it holds nothing the base map shows (is it an OpenStreetMap extract with ways?); nothing written"
                                               : "the base map could not be written to \(out): \(e.message)")
                }
                bar.finish(WorkProgress(stage: "PMTiles", completed: Double(summary.tiles), total: Double(summary.tiles), unit: "tiles"))
                let b = summary.bounds
                print("basemap: wrote \(summary.tiles) tiles, zooms \(summary.minZoom)-\(summary.maxZoom), layers \(summary.layers.joined(separator: ", "))")
                print("basemap: bounds \(b.minX),\(b.minY),\(b.maxX),\(b.maxY) in \(out) (\(Self.seconds(since: started)) s)")
            } else {
                print("basemap: wrote \(out) (\(Self.seconds(since: started)) s)")
            }
            print("serve it under the city's layers: citytwin serve --store … --basemap \(out)")
        }

        static func seconds(since start: ContinuousClock.Instant) -> String {
            let elapsed = (ContinuousClock.now - start).components
            return String(format: "%.1f", Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
        }

        /// The extract, or a copy without the ways whose nodes it does not hold (tilemaker 2.2 stops
        /// on the first such way, even with --skip-integrity). Found with `osmium check-refs`,
        /// removed with `osmium removeid`; without osmium the extract is used as it is.
        static func completeWays(_ extract: URL, work: URL) async throws -> URL {
            guard let osmium = SumoTools.find("osmium") else {
                print("basemap: osmium (Debian osmium-tool) is not installed: the extract's ways are not checked for missing nodes")
                return extract
            }
            let listed: [String]
            do { listed = try await Self.missingWayReferences(osmium, extract, work: work) } catch let e as SumoTools.Failure {
                throw CommandFailure("\(extract.lastPathComponent) cannot be read as an OpenStreetMap extract by osmium: \(e)")
            }
            guard !listed.isEmpty else { return extract }
            let ids = work.appendingPathComponent("incomplete-ways.txt")
            try (listed.joined(separator: "\n") + "\n").write(to: ids, atomically: true, encoding: .utf8)
            let cleaned = work.appendingPathComponent("complete.osm.pbf")
            do {
                _ = try await SumoTools.run(osmium, ["removeid", "--no-progress", "-i", ids.path, "-o", cleaned.path, extract.path])
            } catch let e as SumoTools.Failure {
                throw CommandFailure("osmium could not drop the incomplete ways of \(extract.lastPathComponent): \(e)")
            }
            print("basemap: dropped \(listed.count) ways whose nodes \(extract.lastPathComponent) does not hold")
            return cleaned
        }

        /// The ids (`w123`) of the ways referring to nodes the extract does not hold.
        static func missingWayReferences(_ osmium: URL, _ extract: URL, work: URL) async throws -> [String] {
            let list = work.appendingPathComponent("check-refs.txt"), summary = work.appendingPathComponent("check-refs-summary.txt")
            // `osmium check-refs --show-ids` lists "n1 in w2" lines on standard output, its counts
            // ("There are … nodes") on standard error, and exits 1 when a reference is missing or
            // when the file cannot be read: the counts tell the two apart.
            let shell = URL(fileURLWithPath: "/bin/sh")
            _ = try await SumoTools.run(shell, ["-c", "\"$0\" check-refs --show-ids --no-progress \"$1\" > \"$2\" 2> \"$3\"; test $? -le 1",
                                                osmium.path, extract.path, list.path, summary.path])
            let counts = (try? String(contentsOf: summary, encoding: .utf8)) ?? ""
            guard counts.contains("There are ") else {
                let reason = counts.split(separator: "\n").prefix(3).joined(separator: " ")
                throw CommandFailure("\(extract.lastPathComponent) cannot be read as an OpenStreetMap extract: \(reason.isEmpty ? "osmium read nothing" : reason)")
            }
            let text = (try? String(contentsOf: list, encoding: .utf8)) ?? ""
            var ways = Set<String>()
            for line in text.split(separator: "\n") {
                let parts = line.split(separator: " ")
                if parts.count == 3, parts[1] == "in", parts[2].hasPrefix("w") { ways.insert(String(parts[2])) }
            }
            return ways.sorted()
        }
    }
}

/// Prints a line every few seconds while a long step runs (tilemaker writes its progress to a
/// pipe only when it ends).
final class Ticker: @unchecked Sendable {
    private let lock = NSLock()
    private let start = ContinuousClock.now
    private var last = ContinuousClock.now

    func tick(_ what: String) {
        let now = ContinuousClock.now
        let due = lock.withLock { () -> Bool in
            guard now - last >= .seconds(5) else { return false }
            last = now
            return true
        }
        if due { FileHandle.standardError.write(Data("\(what), \((now - start).components.seconds) s\n".utf8)) }
    }
}

/// tilemaker's OpenMapTiles profile as this machine has it (Debian's tilemaker package ships it
/// as examples), rewritten for one run: the layers read from absent shapefiles left out, the
/// metadata naming the city, no example tile URL.
enum Profile {
    static let debianConfig = "/usr/share/doc/tilemaker/examples/config-openmaptiles.json"
    static let debianProcess = "/usr/share/doc/tilemaker/examples/process-openmaptiles.lua"

    /// The tag-processing script, run so that labels are written in `name` (the OpenMapTiles
    /// profile writes OSM's `name` into `name:latin` by default): a script in `folder` that runs
    /// `process` and then sets its `preferred_language_attribute`. A script without that setting
    /// is used as it is.
    static func names(_ process: String, into folder: URL) throws -> URL {
        let original = URL(fileURLWithPath: process)
        let text: String
        do { text = try String(contentsOf: original, encoding: .utf8) } catch {
            throw CommandFailure("--process \(process) cannot be read: \(error.localizedDescription)")
        }
        guard text.contains("preferred_language_attribute") else { return original }
        let quoted = "[==[" + original.path + "]==]"
        let wrapper = folder.appendingPathComponent("process.lua")
        try "-- \(original.path), with labels in `name` (CityTwin's base map style reads them there)\ndofile(\(quoted))\npreferred_language_attribute = \"name\"\n"
            .write(to: wrapper, atomically: true, encoding: .utf8)
        return wrapper
    }

    /// Writes the run's configuration into `folder`; answers it and the layers left out.
    static func write(config: String, into folder: URL, name: String, shapefiles: String?) throws -> (url: URL, leftOut: [String]) {
        let document: JSONValue
        do { document = try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: URL(fileURLWithPath: config))) } catch {
            throw CommandFailure("--config \(config) is not a tilemaker configuration (JSON): \(error)")
        }
        guard var object = document.objectValue, var layers = object["layers"]?.objectValue, var settings = object["settings"]?.objectValue else {
            throw CommandFailure("--config \(config) is not a tilemaker configuration: it needs \"layers\" and \"settings\"")
        }
        var leftOut: [String] = []
        for (id, layer) in layers.sorted(by: { $0.key < $1.key }) {
            guard var fields = layer.objectValue, let source = fields["source"]?.stringValue else { continue }
            let base = shapefiles.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? URL(fileURLWithPath: config).deletingLastPathComponent()
            let file = source.hasPrefix("/") ? URL(fileURLWithPath: source) : base.appendingPathComponent(source)
            if FileManager.default.fileExists(atPath: file.path) {
                fields["source"] = .string(file.path)
                layers[id] = .object(fields)
            } else {
                layers[id] = nil
                leftOut.append(id)
            }
        }
        object["layers"] = .object(layers)
        settings["name"] = .string(name)
        settings["description"] = .string("Base map of \(name) from OpenStreetMap (OpenMapTiles schema, tilemaker)")
        if var meta = settings["filemetadata"]?.objectValue {
            meta["tiles"] = nil
            meta["attribution"] = "© OpenStreetMap contributors"
            settings["filemetadata"] = .object(meta)
        }
        object["settings"] = .object(settings)
        let url = folder.appendingPathComponent("config.json")
        try JSONOutput.encoder(.pretty).encode(JSONValue.object(object)).write(to: url)
        return (url, leftOut)
    }
}
