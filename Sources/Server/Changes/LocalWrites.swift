/// Tells what follows the store's change feed that this process has just written: the tile cache
/// (which then reads the feed on its next request, not after its follow interval) and the change
/// subscribers (`/changes`, woken at once). Every route that writes through the store holds one.
struct LocalWrites: Sendable {
    let tiles: TileService
    let changes: ChangeFeedWatch

    /// Notes a write that has landed in the store.
    func note() {
        tiles.noteLocalWrite()
        changes.noteLocalWrite()
    }
}
