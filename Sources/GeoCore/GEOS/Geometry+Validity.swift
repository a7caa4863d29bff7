import CGEOS

/// The outcome of an OGC validity check: whether the geometry is valid and, if not, GEOS's
/// reason ("Self-intersection", "Ring Self-intersection", "Hole lies outside shell", ...) and the
/// position where the rule breaks.
public struct ValidityReport: Hashable, Sendable {
    public var isValid: Bool
    /// GEOS's wording: `"Valid Geometry"` for a valid one.
    public var reason: String
    /// Where the first problem was found, in the geometry's CRS; `nil` when valid.
    public var location: Position?

    public init(isValid: Bool, reason: String, location: Position?) {
        self.isValid = isValid
        self.reason = reason
        self.location = location
    }
}

/// How `Geometry.makeValid(method:keepCollapsed:)` repairs a geometry.
public enum MakeValidMethod: Hashable, Sendable {
    /// Nodes all rings into linework and builds polygons from it (GEOS's original method;
    /// keeps every edge, collapsed parts become lines or points).
    case linework
    /// Repairs each ring, then unions shells and subtracts holes; assumes shells and holes are
    /// correctly labelled. Usually the closer result for digitizing errors.
    case structure
}

extension Geometry {
    /// Whether the geometry obeys the OGC simple-features validity rules.
    public var isValid: Bool {
        get throws {
            let ctx = GEOSContext.current
            return try ctx.withGEOS(self) { try ctx.checkBool(GEOSisValid_r(ctx.handle, $0), "isValid") }
        }
    }

    /// Whether the geometry is valid, and if not, why and where.
    public func validityReason() throws -> ValidityReport {
        let ctx = GEOSContext.current
        return try ctx.withGEOS(self) { g in
            var reason: UnsafeMutablePointer<CChar>?
            var location: OpaquePointer?
            let valid = try ctx.checkBool(GEOSisValidDetail_r(ctx.handle, g, 0, &reason, &location), "validity reason")
            defer { if let location { GEOSGeom_destroy_r(ctx.handle, location) } }
            let text = try reason.map { try ctx.takeString($0, "validity reason") }
            if valid { return ValidityReport(isValid: true, reason: text ?? "Valid Geometry", location: nil) }
            let at = try location.flatMap { try ctx.positions(of: $0).first }
            return ValidityReport(isValid: false, reason: text ?? "Invalid Geometry", location: at)
        }
    }

    /// A valid geometry covering the same points as far as possible (a bow-tie becomes two
    /// triangles); a valid input comes back unchanged in shape.
    /// - Parameters:
    ///   - method: the repair algorithm.
    ///   - keepCollapsed: for `.structure`, keep parts that collapse to lower dimension (a
    ///     zero-area polygon becomes a line) instead of dropping them; `.linework` always keeps them.
    public func makeValid(method: MakeValidMethod = .linework, keepCollapsed: Bool = true) throws -> Geometry {
        let ctx = GEOSContext.current
        let params = try ctx.check(GEOSMakeValidParams_create_r(ctx.handle), "make valid parameters")
        defer { GEOSMakeValidParams_destroy_r(ctx.handle, params) }
        let m = method == .linework ? GEOS_MAKE_VALID_LINEWORK : GEOS_MAKE_VALID_STRUCTURE
        try ctx.checkStatus(GEOSMakeValidParams_setMethod_r(ctx.handle, params, m), "make valid method")
        try ctx.checkStatus(GEOSMakeValidParams_setKeepCollapsed_r(ctx.handle, params, keepCollapsed ? 1 : 0), "make valid keepCollapsed")
        return try geosUnary("make valid") { GEOSMakeValidWithParams_r($0, $1, params) }
    }
}
