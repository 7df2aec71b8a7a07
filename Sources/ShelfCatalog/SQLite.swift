internal import CSQLite
import ShelfCore

/// A failed SQLite call: which call, its result code, SQLite's message and the database path.
public struct SQLiteError: ShelfError, Equatable {
  /// The database file.
  public var path: RawPath
  /// The SQLite function that failed, e.g. `sqlite3_step`.
  public var call: String
  /// The (extended) result code.
  public var code: Int32
  /// SQLite's explanation.
  public var message: String

  public var failure: FailureKind {
    switch code & 0xFF {
    case SQLITE_BUSY, SQLITE_LOCKED: .busy
    case SQLITE_CORRUPT, SQLITE_NOTADB: .badInput
    case SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_PERM: .cannotCreate
    case SQLITE_INTERRUPT: .interrupted
    default: .io
    }
  }

  /// True when the file is not a database or is damaged.
  public var isCorruption: Bool {
    code & 0xFF == SQLITE_CORRUPT || code & 0xFF == SQLITE_NOTADB
  }

  /// True when a read-only connection could not set up its shared-memory file (SQLite's
  /// `SQLITE_READONLY` or `SQLITE_CANTOPEN` family).
  var cannotSetUpReading: Bool {
    code & 0xFF == SQLITE_READONLY || code & 0xFF == SQLITE_CANTOPEN
  }

  public var description: String { "\(path.escaped): catalogue database error: \(message) (\(call))" }
}

/// `SQLITE_TRANSIENT` is a C macro Swift cannot import: SQLite copies the bound bytes.
private let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// An open SQLite database: the one owner of its `sqlite3` handle, used from one thread at a
/// time.
final class SQLiteConnection {
  let path: RawPath
  private var handle: OpaquePointer?

  /// Opens (creating when asked) the database at `path`. `readOnly` opens with
  /// `SQLITE_OPEN_READONLY`; `immutable` also tells SQLite the file cannot change, so it takes
  /// no locks and creates no -wal or -shm file beside it (for looking at a file that may not
  /// be ours).
  init(path: RawPath, create: Bool, readOnly: Bool = false, immutable: Bool = false) throws(SQLiteError) {
    self.path = path
    var flags = SQLITE_OPEN_NOMUTEX
    flags |= readOnly || immutable ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
    if create && !readOnly && !immutable { flags |= SQLITE_OPEN_CREATE }
    var name = path.bytes
    if immutable {
      flags |= SQLITE_OPEN_URI
      name = Array(("file:" + path.absolute.fileURIPath + "?immutable=1").utf8)
    }
    var db: OpaquePointer?
    let code = RawPath(bytes: name).withCString { sqlite3_open_v2($0, &db, flags, nil) }
    if code != SQLITE_OK {
      let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
      sqlite3_close_v2(db)
      throw SQLiteError(path: path, call: "sqlite3_open_v2", code: code, message: message)
    }
    handle = db
    sqlite3_extended_result_codes(db, 1)
    PathGlob.register(on: db)
  }

  deinit {
    if let handle { sqlite3_close_v2(handle) }
  }

  /// Closes the database, reporting a failure instead of ignoring it.
  func close() throws(SQLiteError) {
    guard let db = handle else { return }
    let code = sqlite3_close_v2(db)
    handle = nil
    try check(code, "sqlite3_close_v2")
  }

  /// The one checking helper: turns a result code into a typed error.
  @discardableResult
  func check(_ code: Int32, _ call: String) throws(SQLiteError) -> Int32 {
    switch code {
    case SQLITE_OK, SQLITE_ROW, SQLITE_DONE: return code
    default:
      let message =
        handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
      throw SQLiteError(path: path, call: call, code: code, message: message)
    }
  }

  /// Sets how long a statement waits for a lock held by another connection.
  func setBusyTimeout(milliseconds: Int32) throws(SQLiteError) {
    try check(sqlite3_busy_timeout(handle, milliseconds), "sqlite3_busy_timeout")
  }

  /// Runs one or more statements that return no rows.
  func execute(_ sql: String) throws(SQLiteError) {
    var errorMessage: UnsafeMutablePointer<CChar>?
    let code = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
    if let errorMessage {
      let message = String(cString: errorMessage)
      sqlite3_free(errorMessage)
      if code != SQLITE_OK {
        throw SQLiteError(path: path, call: "sqlite3_exec", code: code, message: message)
      }
    }
    try check(code, "sqlite3_exec")
  }

  /// Compiles a statement.
  func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
    var statement: OpaquePointer?
    let code = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
    try check(code, "sqlite3_prepare_v2")
    return SQLiteStatement(connection: self, handle: statement!)
  }

  /// Runs a statement with parameters, returning all rows.
  func query(_ sql: String, _ parameters: [DatabaseValue] = []) throws(SQLiteError) -> [[DatabaseValue]] {
    let statement = try prepare(sql)
    try statement.bind(parameters)
    var rows: [[DatabaseValue]] = []
    while try statement.step() { rows.append(statement.row()) }
    return rows
  }

  /// Runs a statement with parameters, ignoring any rows.
  func run(_ sql: String, _ parameters: [DatabaseValue] = []) throws(SQLiteError) {
    let statement = try prepare(sql)
    try statement.bind(parameters)
    while try statement.step() {}
  }

  /// The rowid of the last inserted row.
  var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

  /// Rows changed by the last statement.
  var changes: Int { Int(sqlite3_changes(handle)) }

  /// Runs `body` in a transaction, committing when it returns and rolling back when it throws.
  func transaction<R>(_ body: () throws -> R) throws -> R {
    try execute("BEGIN IMMEDIATE")
    do {
      let result = try body()
      try execute("COMMIT")
      return result
    } catch {
      try? execute("ROLLBACK")
      throw error
    }
  }
}

/// A compiled statement: the one owner of its `sqlite3_stmt` handle.
final class SQLiteStatement: DatabaseRow {
  private let connection: SQLiteConnection
  private let handle: OpaquePointer

  fileprivate init(connection: SQLiteConnection, handle: OpaquePointer) {
    self.connection = connection
    self.handle = handle
  }

  deinit { sqlite3_finalize(handle) }

  /// Resets the statement and binds `values` to its parameters, in order.
  func bind(_ values: [DatabaseValue]) throws(SQLiteError) {
    sqlite3_reset(handle)
    try connection.check(sqlite3_clear_bindings(handle), "sqlite3_clear_bindings")
    for (offset, value) in values.enumerated() {
      let index = Int32(offset + 1)
      let code: Int32
      switch value {
      case .null: code = sqlite3_bind_null(handle, index)
      case .integer(let number): code = sqlite3_bind_int64(handle, index, number)
      case .real(let number): code = sqlite3_bind_double(handle, index, number)
      case .text(let text):
        code = sqlite3_bind_text(handle, index, text, -1, sqliteTransient)
      case .blob(let bytes):
        code = bytes.withUnsafeBytes { raw in
          // A zero-length blob still needs a non-null pointer to be a blob, not NULL.
          sqlite3_bind_blob(
            handle, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count),
            sqliteTransient)
        }
      }
      try connection.check(code, "sqlite3_bind")
    }
  }

  /// Advances to the next row; false when the statement is done.
  func step() throws(SQLiteError) -> Bool {
    let code = sqlite3_step(handle)
    if code == SQLITE_ROW { return true }
    if code == SQLITE_DONE { return false }
    sqlite3_reset(handle)
    try connection.check(code, "sqlite3_step")
    return false
  }

  /// Runs the statement to completion with `values` bound.
  func run(_ values: [DatabaseValue]) throws(SQLiteError) {
    try bind(values)
    while try step() {}
  }

  /// Number of result columns.
  var columnCount: Int { Int(sqlite3_column_count(handle)) }

  /// The name of a result column.
  func columnName(_ index: Int) -> String {
    String(cString: sqlite3_column_name(handle, Int32(index)))
  }

  /// The current row's values.
  func row() -> [DatabaseValue] {
    (0..<columnCount).map { value(at: $0) }
  }

  /// The value of one column of the current row.
  func value(at index: Int) -> DatabaseValue {
    let column = Int32(index)
    switch sqlite3_column_type(handle, column) {
    case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
    case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
    case SQLITE_TEXT:
      guard let text = sqlite3_column_text(handle, column) else { return .text("") }
      let count = Int(sqlite3_column_bytes(handle, column))
      return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
    case SQLITE_BLOB:
      let count = Int(sqlite3_column_bytes(handle, column))
      guard count > 0, let data = sqlite3_column_blob(handle, column) else { return .blob([]) }
      return .blob(Array(UnsafeRawBufferPointer(start: data, count: count)))
    default: return .null
    }
  }

  /// An integer column, nil when NULL.
  func integer(at index: Int) -> Int64? {
    sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL
      ? nil : sqlite3_column_int64(handle, Int32(index))
  }

  /// A floating-point column, nil when NULL.
  func real(at index: Int) -> Double? { value(at: index).real }

  /// A text column, nil when NULL.
  func text(at index: Int) -> String? {
    guard sqlite3_column_type(handle, Int32(index)) != SQLITE_NULL,
      let text = sqlite3_column_text(handle, Int32(index))
    else { return nil }
    let count = Int(sqlite3_column_bytes(handle, Int32(index)))
    return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
  }

  /// A blob column (empty when NULL).
  func blob(at index: Int) -> [UInt8] {
    let count = Int(sqlite3_column_bytes(handle, Int32(index)))
    guard count > 0, let data = sqlite3_column_blob(handle, Int32(index)) else { return [] }
    return Array(UnsafeRawBufferPointer(start: data, count: count))
  }
}
