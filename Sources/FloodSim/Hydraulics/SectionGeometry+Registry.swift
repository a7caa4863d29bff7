import Foundation

/// A relative shape (`SectionTable`, `ComposedSection`, `ProfileSection`) kept for the life of the
/// process, so that `SectionGeometry` refers to it by an unmanaged reference: copying a section is
/// then a plain load of its fields, with no retain, release or existential copy (the routing loop
/// reads a link's section several times per link per trial). Equal shapes share one entry, so a
/// process holds one per distinct shape of the models it has run (SWMM's tables once, plus each
/// distinct transect, custom curve or composite size).
final class RegisteredShape: Sendable {
    let shape: any RelativeSection
    /// The shape itself when it is SWMM's tables of a transect or custom shape (`ProfileSection`)
    /// or of a tabulated closed shape (`SectionTable`): the lookups of the routing loop call these
    /// directly rather than through the protocol's witness table and existential box.
    private let profile: ProfileSection?, table: SectionTable?

    private init(_ shape: any RelativeSection) {
        self.shape = shape
        profile = shape as? ProfileSection
        table = shape as? SectionTable
    }

    /// A/Afull at y/yFull.
    @inline(__always)
    func area(_ yn: Double) -> Double { table?.area(yn) ?? profile?.area(yn) ?? shape.area(yn) }
    /// y/yFull at A/Afull.
    @inline(__always)
    func depth(_ an: Double) -> Double { table?.depth(an) ?? profile?.depth(an) ?? shape.depth(an) }
    /// W/Wmax at y/yFull.
    @inline(__always)
    func width(_ yn: Double) -> Double { table?.width(yn) ?? profile?.width(yn) ?? shape.width(yn) }
    /// Hydraulic radius (m) at y/yFull.
    @inline(__always)
    func radius(_ yn: Double, aFull: Double, rFull: Double, sFull: Double) -> Double {
        if let r = table?.radius(yn, aFull: aFull, rFull: rFull, sFull: sFull) { return r }
        if let r = profile?.radius(yn, aFull: aFull, rFull: rFull, sFull: sFull) { return r }
        return shape.radius(yn, aFull: aFull, rFull: rFull, sFull: sFull)
    }
    /// S/Sfull at A/Afull, where the shape tabulates it.
    @inline(__always)
    func sectionFactor(_ an: Double) -> Double? {
        if let t = table?.sectionFactor(an) { return t }
        if let p = profile?.sectionFactor(an) { return p }
        return table == nil && profile == nil ? shape.sectionFactor(an) : nil
    }
    /// A/Afull at S/Sfull, where the shape tabulates it.
    @inline(__always)
    func area(ofSectionFactor psi: Double) -> Double? {
        if let t = table?.area(ofSectionFactor: psi) { return t }
        if let p = profile?.area(ofSectionFactor: psi) { return p }
        return table == nil && profile == nil ? shape.area(ofSectionFactor: psi) : nil
    }

    /// SWMM's S/Sfull table over A/Afull of a tabulated closed shape (nil: none), whose interval
    /// slopes are SWMM's dS/dA for the shape.
    var sectionFactorTable: [Double]? { table?.s }

    /// The registered shape equal to `shape`, registering it on first use.
    static func of(_ shape: some RelativeSection & Hashable) -> Unmanaged<RegisteredShape> {
        let key = AnyHashable(shape)
        return registry.lock.withLock {
            if let found = registry.shapes[key] { return Unmanaged.passUnretained(found) }
            let entry = RegisteredShape(shape)
            registry.shapes[key] = entry
            return Unmanaged.passUnretained(entry)
        }
    }

    private final class Registry: @unchecked Sendable {
        // Guarded by `lock`; entries are never removed (their sections hold unretained references).
        let lock = NSLock()
        var shapes: [AnyHashable: RegisteredShape] = [:]
    }
    private static let registry = Registry()
}
