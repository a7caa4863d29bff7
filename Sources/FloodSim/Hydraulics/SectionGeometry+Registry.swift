import Foundation

/// A relative shape (`SectionTable`, `ComposedSection`, `ProfileSection`) kept for the life of the
/// process, so that `SectionGeometry` refers to it by an unmanaged reference: copying a section is
/// then a plain load of its fields, with no retain, release or existential copy (the routing loop
/// reads a link's section several times per link per trial). Equal shapes share one entry, so a
/// process holds one per distinct shape of the models it has run (SWMM's tables once, plus each
/// distinct transect, custom curve or composite size).
final class RegisteredShape: Sendable {
    let shape: any RelativeSection

    private init(_ shape: any RelativeSection) { self.shape = shape }

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
