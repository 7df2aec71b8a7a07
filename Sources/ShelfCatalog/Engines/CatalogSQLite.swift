import ShelfCore
import ShelfDatabase

/// The catalogue's side of the SQLite wrapper (`ShelfDatabase`): every catalogue connection
/// has `shelf_glob` for path queries.
extension SQLiteConnection {
  /// Opens (creating when asked) the catalogue database at `path`, with `shelf_glob`.
  convenience init(path: RawPath, create: Bool, readOnly: Bool = false, immutable: Bool = false)
    throws(SQLiteError)
  {
    try self.init(
      path: path, create: create, readOnly: readOnly, immutable: immutable, functions: [PathGlob.sqlFunction])
  }
}
