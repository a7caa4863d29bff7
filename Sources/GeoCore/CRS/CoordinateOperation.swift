/// One step of a `CoordinateTransformer`, as reported in output metadata. A transformer from
/// A to B runs its `operations` in order; an empty list is the identity.
public enum CoordinateOperation: Hashable, Sendable, CustomStringConvertible {
    /// A PROJ transformation (built with `proj_create_crs_to_crs`, axis order normalised to
    /// longitude/latitude, easting/northing at both ends).
    case proj(source: CoordinateReferenceSystem, target: CoordinateReferenceSystem)
    /// A change between frames CityTwin treats as identical for positions: OGC:CRS84, EPSG:4326
    /// and EPSG:4490 (WGS 84 and CGCS2000 agree to centimetres at epoch 2000; PROJ 9.1 itself
    /// only knows a "ballpark" no-op between them). Fine for web maps, not for survey work.
    case sameFrame(source: CoordinateReferenceSystem, target: CoordinateReferenceSystem)
    /// A GCJ-02/BD-09 display offset (not a geodetic transformation; display output only).
    case chinaDisplayOffset(ChinaDisplayOffset.Conversion)

    public var description: String {
        switch self {
        case .proj(let s, let t): "PROJ \(s) -> \(t)"
        case .sameFrame(let s, let t): "\(s) -> \(t) taken as identity (WGS 84 ≈ CGCS2000, centimetres at epoch 2000)"
        case .chinaDisplayOffset(let c): "display offset \(c)"
        }
    }
}

extension CoordinateReferenceSystem {
    /// The systems whose longitude/latitude CityTwin treats as interchangeable (see
    /// `CoordinateOperation.sameFrame`): OGC:CRS84, EPSG:4326, EPSG:4490.
    static let wgs84EquivalentFrames: Set<CoordinateReferenceSystem> = [.crs84, .wgs84, .cgcs2000]
}

/// How a transformer actually runs one step: a PROJ pair (in canonical order) and direction, a
/// display offset, or nothing.
enum TransformStep: Hashable, Sendable {
    case proj(pair: PROJPair, inverse: Bool)
    case offset(ChinaDisplayOffset.Conversion)

    var inverse: TransformStep {
        switch self {
        case .proj(let pair, let inverse): .proj(pair: pair, inverse: !inverse)
        case .offset(let c): .offset(c.inverse)
        }
    }
}

extension CoordinateTransformer {
    /// Plans the steps from `source` to `target`. Display frames are reached through WGS 84
    /// (EPSG:4326, longitude first); frames in `wgs84EquivalentFrames` meet without a PROJ call;
    /// anything else is one PROJ transformation. Each PROJ pair is named in canonical order, so
    /// A→B and B→A share one `PJ` per thread (B→A runs it inverse).
    static func plan(from source: CoordinateReferenceSystem, to target: CoordinateReferenceSystem)
        -> (steps: [TransformStep], operations: [CoordinateOperation])
    {
        if source == target { return ([], []) }
        var steps: [TransformStep] = []
        var operations: [CoordinateOperation] = []
        func offset(_ c: ChinaDisplayOffset.Conversion) {
            steps.append(.offset(c))
            operations.append(.chinaDisplayOffset(c))
        }
        switch (source.chinaDisplayFrame, target.chinaDisplayFrame) {
        case (.gcj02?, .bd09?): offset(.gcj02ToBD09); return (steps, operations)
        case (.bd09?, .gcj02?): offset(.bd09ToGCJ02); return (steps, operations)
        default: break
        }

        var from = source
        switch source.chinaDisplayFrame {
        case .bd09?: offset(.bd09ToGCJ02); offset(.gcj02ToWGS84); from = .wgs84
        case .gcj02?: offset(.gcj02ToWGS84); from = .wgs84
        case nil: break
        }
        let to = target.chinaDisplayFrame == nil ? target : .wgs84

        if from != to {
            let equivalent = CoordinateReferenceSystem.wgs84EquivalentFrames
            if equivalent.contains(from) && equivalent.contains(to) {
                operations.append(.sameFrame(source: from, target: to))
            } else {
                let forward = (from.authority, from.code) < (to.authority, to.code)
                let pair = forward ? PROJPair(source: from, target: to) : PROJPair(source: to, target: from)
                steps.append(.proj(pair: pair, inverse: !forward))
                operations.append(.proj(source: from, target: to))
            }
        }

        switch target.chinaDisplayFrame {
        case .gcj02?: offset(.wgs84ToGCJ02)
        case .bd09?: offset(.wgs84ToGCJ02); offset(.gcj02ToBD09)
        case nil: break
        }
        return (steps, operations)
    }
}
