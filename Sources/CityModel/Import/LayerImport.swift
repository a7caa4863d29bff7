import Foundation
import GeoCore
import TwinStore

/// What one import wrote.
public struct ImportSummary: Sendable, Hashable {
    /// The layer written.
    public var layer: String
    /// Features inserted.
    public var count: Int
    /// The CRS the source coordinates were read in (transformed to EPSG:4490).
    public var sourceCRS: CoordinateReferenceSystem
    /// Extent of the imported features in EPSG:4490 degrees; `nil` without geometries.
    public var extent: Envelope?
}

/// Imports a file into one layer: reads the source in chunks, transforms every geometry to
/// EPSG:4490 with one cached transformer, types and validates the properties against the layer
/// schema, then writes the whole set with ONE `FeatureStore.insert` (one transaction: the layer
/// gets all features or none). An error names the file, the row or feature and the field.
///
/// A store with a chunked transaction (`BulkFeatureLoading`: both SQL backends) gets the
/// features chunk by chunk, read and checked on one thread while the store writes on another,
/// so memory stays bounded by a few chunks whatever the file's size. Any other store gets them
/// all at once (held in memory until the write, about 1 KB each).
public enum LayerImport {
    /// Features per `FeatureSource.next(upTo:)` call.
    public static let chunkSize = 4096

    /// Reads and checks every feature of `source` for `layer` without writing.
    /// - Parameters:
    ///   - sourceCRS: the CRS to read coordinates in; overrides the file's own declaration
    ///     (`.prj`, GeoPackage `srs_id`), and is required when the file declares none (CSV).
    /// - Returns: features in EPSG:4490 with typed, validated properties.
    ///   - within: the city's extent; a feature outside it is refused (nil: not checked).
    public static func read(_ source: inout some FeatureSource, for layer: LayerDefinition,
                            sourceCRS: CoordinateReferenceSystem? = nil, within: CityExtent? = nil,
                            progress: ((WorkProgress) -> Void)? = nil) throws -> (features: [Feature], crs: CoordinateReferenceSystem) {
        let fileName = source.file.lastPathComponent
        let (crs, transformer) = try transformer(for: source, sourceCRS: sourceCRS)
        var features: [Feature] = []
        if let n = source.expectedCount { features.reserveCapacity(n) }
        let total = source.expectedCount
        while true {
            let chunk = try source.next(upTo: chunkSize)
            if chunk.isEmpty { break }
            for record in chunk {
                features.append(try check(record, layer: layer, transformer: transformer, file: fileName, within: within))
            }
            progress?(LayerImport.progress(.reading, features.count, of: total))
        }
        return (features, crs)
    }

    /// Reads, checks and writes every feature of `source` into `layer` in one transaction, as
    /// `mode` says (default: add them, refusing ids the layer holds). Nothing is written when
    /// any feature fails. With `within`, a feature outside the city's extent is such a failure
    /// (`citytwin import` passes the store's `CityExtent` unless `--allow-outside-extent`).
    public static func run<Source: FeatureSource>(_ source: inout Source, into layer: LayerDefinition, store: any FeatureStore,
                                                  by caller: Caller = .admin, sourceCRS: CoordinateReferenceSystem? = nil,
                                                  mode: ImportMode = .append, within: CityExtent? = nil,
                                                  progress: ((WorkProgress) -> Void)? = nil) async throws -> ImportSummary {
        switch mode {
        case .append:
            return try await add(&source, into: layer, store: store, by: caller, sourceCRS: sourceCRS, within: within, progress: progress)
        case .new:
            let held = try await store.count(layer: layer.id, FeatureQuery(), by: caller)
            guard held > 0 else {
                return try await add(&source, into: layer, store: store, by: caller, sourceCRS: sourceCRS, within: within, progress: progress)
            }
            var guarded = UnidentifiedRecordGuard(base: source, layer: layer.id, held: held)
            defer { source = guarded.base }
            return try await add(&guarded, into: layer, store: store, by: caller, sourceCRS: sourceCRS, within: within, progress: progress)
        case .replace, .upsert:
            let checked = try read(&source, for: layer, sourceCRS: sourceCRS, within: within, progress: progress)
            var features = checked.features
            let crs = checked.crs
            progress?(LayerImport.progress(.writing, features.count, of: features.count))
            let fileName = source.file.lastPathComponent
            if case .upsert(let key) = mode {
                features = try await KeyedUpsert(key: key, layer: layer, file: fileName).identified(features, store: store, by: caller)
                try await store.upsert(layer: layer.id, features: features, by: caller, at: nil)
            } else {
                try await store.replace(layer: layer.id, with: features, by: caller, at: nil)
            }
            progress?(LayerImport.progress(.done, features.count, of: features.count))
            return ImportSummary(layer: layer.id, count: features.count, sourceCRS: crs, extent: extent(of: features))
        }
    }

    /// The stages of an import, as its progress reports (`WorkProgress`) name them.
    public enum Stage: String, Sendable { case reading, writing, done }

    /// A progress report of an import: `completed` of `total` features (nil: not known yet) in `stage`.
    static func progress(_ stage: Stage, _ completed: Int, of total: Int?) -> WorkProgress {
        WorkProgress(stage: stage.rawValue, completed: Double(completed), total: total.map(Double.init), unit: "features")
    }

    /// Inserts every feature of `source` (`ImportMode.append`): an id the layer holds is an
    /// error naming it and the modes that would take it.
    private static func add<Source: FeatureSource>(_ source: inout Source, into layer: LayerDefinition, store: any FeatureStore,
                                                   by caller: Caller, sourceCRS: CoordinateReferenceSystem?, within: CityExtent?,
                                                   progress: ((WorkProgress) -> Void)?) async throws -> ImportSummary {
        let fileName = source.file.lastPathComponent
        func held(_ e: StoreError) -> any Error {
            guard e.code == .duplicateFeature else { return e }
            return ImportError(.duplicate, file: fileName, field: "id",
                               "layer \(layer.id) already holds feature \"\(e.feature ?? "?")\" (or the file has it twice); nothing written. "
                               + "--mode upsert updates the features the layer holds, --mode replace makes the file the layer")
        }
        if let bulk = store as? any BulkFeatureLoading {
            let reading = try ChunkedReading(source, layer: layer, sourceCRS: sourceCRS, within: within, progress: progress)
            defer { source = reading.source }
            let count: Int
            do {
                count = try await bulk.insert(layer: layer.id, chunks: reading.reader, by: caller, at: nil)
            } catch let e as StoreError {
                let located = reading.located(e)
                throw (located as? StoreError).map(held) ?? located
            }
            progress?(LayerImport.progress(.done, count, of: count))
            return ImportSummary(layer: layer.id, count: count, sourceCRS: reading.crs, extent: reading.extent)
        }
        let (features, crs) = try read(&source, for: layer, sourceCRS: sourceCRS, within: within, progress: progress)
        progress?(LayerImport.progress(.writing, features.count, of: features.count))
        do {
            try await store.insert(layer: layer.id, features: features, by: caller, at: nil)
        } catch let e as StoreError {
            throw held(e)
        }
        progress?(LayerImport.progress(.done, features.count, of: features.count))
        return ImportSummary(layer: layer.id, count: features.count, sourceCRS: crs, extent: extent(of: features))
    }

    /// One record typed, validated and in EPSG:4490.
    ///
    /// Without `validatesSchema` the properties are only typed: the store validates them against
    /// the layer schema as it prepares each feature (`ChunkedReading.located` turns its error into
    /// this one), so a bulk import checks them once. A geometry error of a record still comes
    /// after its schema error, as with the check here.
    static func check(_ record: SourceRecord, layer: LayerDefinition, transformer: CoordinateTransformer,
                      file: String, validatesSchema: Bool = true, within: CityExtent? = nil) throws -> Feature {
        var feature = record.feature
        func fail(_ code: ImportError.Code, _ field: String?, _ reason: String) -> ImportError {
            ImportError(code, file: file, location: record.location, field: field, reason)
        }
        // Typed in place: values that keep their type (all of a GeoJSON file's, usually) leave
        // the dictionary as it is, without a copy.
        var typed = feature.properties
        for (name, value) in feature.properties {
            do {
                let v = try PropertyTyping.typed(value, rule: layer.schema.properties[name])
                if v != value { typed[name] = v }
            } catch {
                throw fail(.invalidValue, name, error.reason)
            }
        }
        func validate() throws {
            do {
                try layer.schema.validate(typed, layer: layer.id, feature: feature.id?.description ?? record.location)
            } catch let e as StoreError {
                throw fail(.invalidValue, e.field, e.message)
            }
        }
        if validatesSchema { try validate() }
        feature.properties = typed
        do {
            try checkGeometry(&feature, record: record, layer: layer, transformer: transformer, file: file, within: within)
        } catch {
            // The schema error first, as the order of checks says.
            if !validatesSchema { try validate() }
            throw error
        }
        return feature
    }

    /// The geometry of `feature` checked for `layer` and transformed to EPSG:4490.
    private static func checkGeometry(_ feature: inout Feature, record: SourceRecord, layer: LayerDefinition,
                                      transformer: CoordinateTransformer, file: String, within: CityExtent?) throws {
        func fail(_ code: ImportError.Code, _ field: String?, _ reason: String) -> ImportError {
            ImportError(code, file: file, location: record.location, field: field, reason)
        }
        if var g = feature.geometry {
            guard layer.hasGeometry else { throw fail(.invalidGeometry, "geometry", "layer \(layer.id) stores no geometry") }
            guard !g.isEmpty else { throw fail(.invalidGeometry, "geometry", "the geometry is empty") }
            // A FileGDB, a MapInfo table or a Shapefile holds every polygon as a multipolygon: one
            // part goes into a Polygon layer as that polygon; two parts are refused below.
            if let expected = layer.geometryType, let part = singlePart(g, as: expected) { g = part }
            if let expected = layer.geometryType, g.type != expected, !promotable(g.type, to: expected) {
                throw fail(.invalidGeometry, "geometry", "a \(g.type.rawValue) cannot go into layer \(layer.id), which stores \(expected.rawValue)")
            }
            if g.hasZ && !layer.hasZ { g = g.mapPositions { $0.xy } }
            do {
                g = try transformer.transform(g)
            } catch {
                throw fail(.crs, "geometry", "cannot transform from \(transformer.source) to EPSG:4490: \(error)")
            }
            if let within, let outside = within.outside(g) {
                throw fail(.invalidGeometry, "geometry", within.refusal(outside, override: "--allow-outside-extent"))
            }
            feature.geometry = g
        } else if layer.geometryType != nil {
            throw fail(.invalidGeometry, "geometry", "the feature has no geometry; layer \(layer.id) needs a \(layer.geometryType?.rawValue ?? "")")
        }
    }

    /// The CRS to read `source` in and its transformer to EPSG:4490.
    static func transformer(for source: some FeatureSource, sourceCRS: CoordinateReferenceSystem?) throws
        -> (CoordinateReferenceSystem, CoordinateTransformer) {
        let fileName = source.file.lastPathComponent
        guard let crs = sourceCRS ?? source.crs else {
            throw ImportError(.crs, file: fileName, "the file does not say its CRS; give --source-crs (e.g. EPSG:4547)")
        }
        do {
            return (crs, try CoordinateTransformer.shared(from: crs, to: .cgcs2000))
        } catch {
            throw ImportError(.crs, file: fileName, "cannot transform \(crs) to EPSG:4490: \(error)")
        }
    }

    /// The only part of a multi-geometry, when `expected` is that part's type.
    static func singlePart(_ g: Geometry, as expected: GeometryType) -> Geometry? {
        switch (g, expected) {
        case (.multiPoint(let m), .point) where m.points.count == 1: .point(m.points[0])
        case (.multiLineString(let m), .lineString) where m.lineStrings.count == 1: .lineString(m.lineStrings[0])
        case (.multiPolygon(let m), .polygon) where m.polygons.count == 1: .polygon(m.polygons[0])
        default: nil
        }
    }

    static func promotable(_ type: GeometryType, to expected: GeometryType) -> Bool {
        switch (type, expected) {
        case (.point, .multiPoint), (.lineString, .multiLineString), (.polygon, .multiPolygon): true
        default: false
        }
    }

    static func extent(of features: [Feature]) -> Envelope? {
        var e: Envelope?
        for f in features {
            guard let g = f.geometry?.envelope else { continue }
            if e == nil { e = g } else { e?.expand(toInclude: g) }
        }
        return e
    }
}

/// A source read chunk by chunk for `BulkFeatureLoading.insert`: each call reads the next
/// `LayerImport.chunkSize` records and checks them (typing, schema, geometry, transform to
/// EPSG:4490), keeping the running extent and count. The store calls it from one thread at a
/// time (its reading thread), never concurrently; the importer takes `source` back afterwards.
final class ChunkedReading<Source: FeatureSource>: @unchecked Sendable {
    private(set) var source: Source
    let crs: CoordinateReferenceSystem
    private let transformer: CoordinateTransformer
    private let layer: LayerDefinition
    private let fileName: String
    private let progress: ((WorkProgress) -> Void)?
    private let within: CityExtent?
    private(set) var extent: Envelope?
    private var completed = 0
    /// The chunks read last (oldest first), with each feature's place in the file: the store
    /// reads at most a few chunks ahead of the one it prepares, so a feature it rejects is in
    /// one of these, and the first schema failure among them is the one (the chunks before it
    /// passed).
    private var recent: [(features: [Feature], locations: [String])] = []
    private let recentChunks = 4

    init(_ source: Source, layer: LayerDefinition, sourceCRS: CoordinateReferenceSystem?, within: CityExtent? = nil,
         progress: ((WorkProgress) -> Void)?) throws {
        self.within = within
        (crs, transformer) = try LayerImport.transformer(for: source, sourceCRS: sourceCRS)
        self.source = source
        self.layer = layer
        self.fileName = source.file.lastPathComponent
        self.progress = progress
    }

    /// `nextChunk` as the store calls it.
    nonisolated var reader: FeatureChunkReader { { try self.nextChunk() } }

    /// The next checked chunk; `nil` at the end of the file.
    func nextChunk() throws -> [Feature]? {
        let records = try source.next(upTo: LayerImport.chunkSize)
        if records.isEmpty { return nil }
        var features = [Feature]()
        features.reserveCapacity(records.count)
        var locations = [String]()
        locations.reserveCapacity(records.count)
        for record in records {
            let f: Feature
            do {
                f = try LayerImport.check(record, layer: layer, transformer: transformer, file: fileName, validatesSchema: false, within: within)
            } catch {
                // A schema error of an earlier record of this chunk (the store has not seen them yet) comes first.
                for (earlier, location) in zip(features, locations) {
                    if let e = schemaError(of: earlier, at: location) { throw e }
                }
                throw error
            }
            if let e = f.geometry?.envelope {
                if extent == nil { extent = e } else { extent?.expand(toInclude: e) }
            }
            features.append(f)
            locations.append(record.location)
        }
        if recent.count == recentChunks { recent.removeFirst() }
        recent.append((features, locations))
        completed += features.count
        progress?(LayerImport.progress(.reading, completed, of: source.expectedCount))
        return features
    }

    /// The store's schema error about a feature of the last chunk as an error naming the file,
    /// the row or feature and the field (the one the import's own check gives); other errors
    /// unchanged.
    func located(_ error: StoreError) -> any Error {
        guard error.code == .invalidFeature, let field = error.field, field != "geometry", field != "id" else { return error }
        for chunk in recent {
            for (feature, location) in zip(chunk.features, chunk.locations) {
                if let e = schemaError(of: feature, at: location) {
                    return e.field == field && e.reason == error.message ? e : error
                }
            }
        }
        return error
    }

    /// The layer schema's verdict on the (typed) properties of `feature`, as an import error.
    private func schemaError(of feature: Feature, at location: String) -> ImportError? {
        do {
            try layer.schema.validate(feature.properties, layer: layer.id, feature: feature.id?.description ?? location)
            return nil
        } catch let e as StoreError {
            return ImportError(.invalidValue, file: fileName, location: location, field: e.field, e.message)
        } catch {
            return ImportError(.invalidValue, file: fileName, location: location, String(describing: error))
        }
    }
}
