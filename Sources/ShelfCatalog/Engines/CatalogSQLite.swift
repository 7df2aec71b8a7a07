internal import CSQLite
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

/// The compiled pattern SQLite keeps between rows of one statement.
private final class CompiledGlob {
  let glob: PathGlob
  let mode: Int32
  init(_ glob: PathGlob, mode: Int32) {
    self.glob = glob
    self.mode = mode
  }
}

extension PathGlob {
  /// `shelf_glob(pattern TEXT, subject BLOB, mode INTEGER)`, registered on every catalogue
  /// connection, so that queries match paths stored as BLOBs byte for byte. It returns NULL
  /// for a NULL subject.
  static let sqlFunction = SQLiteFunction(name: "shelf_glob", argumentCount: 3, deterministic: true) {
    context, count, values in
    guard let values, count == 3, sqlite3_value_type(values[1]) != SQLITE_NULL else {
      sqlite3_result_null(context)
      return
    }
    let mode = sqlite3_value_int(values[2])
    let glob: PathGlob
    if let cached = sqlite3_get_auxdata(context, 0),
      case let compiled = Unmanaged<CompiledGlob>.fromOpaque(cached).takeUnretainedValue(),
      compiled.mode == mode
    {
      glob = compiled.glob
    } else {
      let length = Int(sqlite3_value_bytes(values[0]))
      let pattern = sqlite3_value_blob(values[0]).map {
        Array(UnsafeRawBufferPointer(start: $0, count: length))
      }
      let flags = PathGlobMode(rawValue: mode)
      glob = PathGlob(
        pattern: pattern ?? [], foldCase: flags.contains(.foldCase), literal: flags.contains(.literal))
      sqlite3_set_auxdata(
        context, 0, Unmanaged.passRetained(CompiledGlob(glob, mode: mode)).toOpaque(),
        { Unmanaged<CompiledGlob>.fromOpaque($0!).release() })
    }
    let length = Int(sqlite3_value_bytes(values[1]))
    let start = sqlite3_value_blob(values[1])?.assumingMemoryBound(to: UInt8.self)
    var subject = UnsafeBufferPointer(start: start, count: start == nil ? 0 : length)
    if PathGlobMode(rawValue: mode).contains(.lastComponent),
      let slash = subject.lastIndex(of: UInt8(ascii: "/"))
    {
      subject = UnsafeBufferPointer(rebasing: subject[(slash + 1)...])
    }
    sqlite3_result_int(context, glob.matches(subject) ? 1 : 0)
  }
}
