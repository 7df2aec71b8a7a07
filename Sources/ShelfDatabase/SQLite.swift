internal import CSQLite
import ShelfCore

/// A failed SQLite call: which call, its result code, SQLite's message and the database path.
package struct SQLiteError: ShelfError, Equatable {
  /// The database file.
  package var path: RawPath
  /// The SQLite function that failed, e.g. `sqlite3_step`.
  package var call: String
  /// The (extended) result code.
  package var code: Int32
  /// SQLite's explanation.
  package var message: String

  /// An error of `call` with SQLite's result `code` and `message`, about the database at `path`.
  package init(path: RawPath, call: String, code: Int32, message: String) {
    self.path = path
    self.call = call
    self.code = code
    self.message = message
  }

  package var failure: FailureKind {
    switch code & 0xFF {
    case SQLITE_BUSY, SQLITE_LOCKED: .busy
    case SQLITE_CORRUPT, SQLITE_NOTADB: .badInput
    case SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_PERM: .cannotCreate
    case SQLITE_INTERRUPT: .interrupted
    default: .io
    }
  }

  /// True when the file is not a database or is damaged.
  package var isCorruption: Bool {
    code & 0xFF == SQLITE_CORRUPT || code & 0xFF == SQLITE_NOTADB
  }

  /// True when a read-only connection could not set up its shared-memory file (SQLite's
  /// `SQLITE_READONLY` or `SQLITE_CANTOPEN` family).
  package var cannotSetUpReading: Bool {
    code & 0xFF == SQLITE_READONLY || code & 0xFF == SQLITE_CANTOPEN
  }

  package var description: String { "\(path.escaped): catalogue database error: \(message) (\(call))" }
}

/// `SQLITE_TRANSIENT` is a C macro Swift cannot import: SQLite copies the bound bytes.
private let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A scalar SQL function written in Swift (a C-callable body over SQLite's own value API, as
/// `sqlite3_create_function_v2` takes it), registered on a connection when it opens.
package struct SQLiteFunction: Sendable {
  /// The body SQLite calls for each row: its context, argument count and arguments.
  package typealias Body =
    @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void

  package let name: String
  package let argumentCount: Int32
  /// Whether the result depends only on the arguments (lets SQLite use it in indexes and
  /// evaluate it once per statement for constant arguments).
  package let deterministic: Bool
  package let body: Body

  package init(name: String, argumentCount: Int32, deterministic: Bool, body: Body) {
    self.name = name
    self.argumentCount = argumentCount
    self.deterministic = deterministic
    self.body = body
  }
}

/// An open SQLite database: the one owner of its `sqlite3` handle, used from one thread at a
/// time. The one SQLite wrapper of shelf: the catalogue and the backup reader's Manifest.db
/// both go through it; statements bind and read `DatabaseValue`s, as PostgreSQL's do.
package final class SQLiteConnection {
  package let path: RawPath
  private var handle: OpaquePointer?

  /// SQLite's process-wide settings, made before the first connection opens: no memory
  /// statistics (shelf reads none, and they cost a mutex around each of SQLite's allocations).
  private static let configured: Void = { _ = shelf_sqlite_disable_memory_statistics() }()

  /// Opens (creating when asked) the database at `path` and registers `functions` on it.
  /// `readOnly` opens with `SQLITE_OPEN_READONLY`; `immutable` also tells SQLite the file
  /// cannot change, so it takes no locks and creates no journal, -wal or -shm file beside it
  /// (for looking at a file that may not be ours, such as a backup's Manifest.db).
  package init(
    path: RawPath, create: Bool, readOnly: Bool = false, immutable: Bool = false, functions: [SQLiteFunction]
  ) throws(SQLiteError) {
    _ = Self.configured
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
    try setUp(functions)
  }

  /// Opens a read-only database from its bytes in memory (`sqlite3_deserialize`), never from
  /// a file: a decrypted Manifest.db. `path` names it in errors.
  package init(bytes: [UInt8], path: RawPath, functions: [SQLiteFunction] = []) throws(SQLiteError) {
    _ = Self.configured
    self.path = path
    var db: OpaquePointer?
    let code = sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil)
    handle = db
    try check(code, "sqlite3_open_v2")
    guard let buffer = sqlite3_malloc64(sqlite3_uint64(max(bytes.count, 1))) else {
      throw SQLiteError(path: path, call: "sqlite3_malloc64", code: SQLITE_NOMEM, message: "out of memory")
    }
    bytes.withUnsafeBytes { raw in
      if let base = raw.baseAddress { buffer.copyMemory(from: base, byteCount: raw.count) }
    }
    // SQLite owns the buffer from here on, even when it refuses it.
    let flags = UInt32(SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY)
    try check(
      sqlite3_deserialize(
        db, "main", buffer.assumingMemoryBound(to: UInt8.self), sqlite3_int64(bytes.count),
        sqlite3_int64(bytes.count), flags),
      "sqlite3_deserialize")
    try setUp(functions)
  }

  private func setUp(_ functions: [SQLiteFunction]) throws(SQLiteError) {
    sqlite3_extended_result_codes(handle, 1)
    for function in functions {
      let flags = SQLITE_UTF8 | (function.deterministic ? SQLITE_DETERMINISTIC : 0)
      try check(
        sqlite3_create_function_v2(
          handle, function.name, function.argumentCount, flags, nil, function.body, nil, nil, nil),
        "sqlite3_create_function_v2")
    }
  }

  deinit {
    if let handle { sqlite3_close_v2(handle) }
  }

  /// Closes the database, reporting a failure instead of ignoring it.
  package func close() throws(SQLiteError) {
    guard let db = handle else { return }
    let code = sqlite3_close_v2(db)
    handle = nil
    try check(code, "sqlite3_close_v2")
  }

  /// The one checking helper: turns a result code into a typed error.
  @discardableResult
  package func check(_ code: Int32, _ call: String) throws(SQLiteError) -> Int32 {
    switch code {
    case SQLITE_OK, SQLITE_ROW, SQLITE_DONE: return code
    default:
      let message =
        handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
      throw SQLiteError(path: path, call: call, code: code, message: message)
    }
  }

  /// Sets how long a statement waits for a lock held by another connection.
  package func setBusyTimeout(milliseconds: Int32) throws(SQLiteError) {
    try check(sqlite3_busy_timeout(handle, milliseconds), "sqlite3_busy_timeout")
  }

  /// Runs one or more statements that return no rows.
  package func execute(_ sql: String) throws(SQLiteError) {
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
  package func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
    var statement: OpaquePointer?
    let code = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
    try check(code, "sqlite3_prepare_v2")
    return SQLiteStatement(connection: self, handle: statement!)
  }

  /// The rowid of the last inserted row.
  package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

  /// Rows changed by the last statement.
  package var changes: Int { Int(sqlite3_changes(handle)) }

  /// Runs a statement with parameters, returning all rows.
  package func query(_ sql: String, _ parameters: [DatabaseValue] = []) throws(SQLiteError)
    -> [[DatabaseValue]]
  {
    let statement = try prepare(sql)
    try statement.bind(parameters)
    var rows: [[DatabaseValue]] = []
    while try statement.step() { rows.append(statement.row()) }
    return rows
  }

  /// Runs a statement with parameters, ignoring any rows.
  package func run(_ sql: String, _ parameters: [DatabaseValue] = []) throws(SQLiteError) {
    let statement = try prepare(sql)
    try statement.run(parameters)
  }
}

extension SQLiteConnection: DatabaseConnection {
  package func query<T>(
    _ sql: String, _ parameters: [DatabaseValue], _ row: (any DatabaseRow) throws -> T
  ) throws -> [T] {
    var rows: [T] = []
    try forEachRow(sql, parameters) { rows.append(try row($0)) }
    return rows
  }

  package func forEachRow(
    _ sql: String, _ parameters: [DatabaseValue], _ body: (any DatabaseRow) throws -> Void
  ) throws {
    let statement = try prepare(sql)
    try statement.bind(parameters)
    while try statement.step() { try body(statement) }
  }

  /// `BEGIN IMMEDIATE`: the write lock is taken at once (or the busy timeout runs out here).
  package func beginTransaction() throws { try execute("BEGIN IMMEDIATE") }

  package func commitTransaction() throws { try execute("COMMIT") }

  package func rollbackTransaction() { try? execute("ROLLBACK") }
}

/// What a column of the current row holds.
package enum SQLiteColumnType: Sendable {
  case integer, real, text, blob, null
}

/// A compiled statement: the one owner of its `sqlite3_stmt` handle.
package final class SQLiteStatement {
  private let connection: SQLiteConnection
  private let handle: OpaquePointer

  fileprivate init(connection: SQLiteConnection, handle: OpaquePointer) {
    self.connection = connection
    self.handle = handle
  }

  deinit { sqlite3_finalize(handle) }

  /// Resets the statement and clears its parameters, ready for new ones.
  package func reset() throws(SQLiteError) {
    sqlite3_reset(handle)
    try connection.check(sqlite3_clear_bindings(handle), "sqlite3_clear_bindings")
  }

  /// Binds NULL to parameter `index` (from 1).
  package func bindNull(_ index: Int32) throws(SQLiteError) {
    try connection.check(sqlite3_bind_null(handle, index), "sqlite3_bind")
  }

  /// Binds an integer to parameter `index` (from 1).
  package func bind(_ number: Int64, at index: Int32) throws(SQLiteError) {
    try connection.check(sqlite3_bind_int64(handle, index, number), "sqlite3_bind")
  }

  /// Binds a floating-point number to parameter `index` (from 1).
  package func bind(_ number: Double, at index: Int32) throws(SQLiteError) {
    try connection.check(sqlite3_bind_double(handle, index, number), "sqlite3_bind")
  }

  /// Binds text to parameter `index` (from 1); SQLite copies it. Its UTF-8 is handed over in
  /// place with its length (no C string made and measured for each value).
  package func bind(_ text: String, at index: Int32) throws(SQLiteError) {
    var text = text
    let code = text.withUTF8 { bytes in
      guard let length = Int32(exactly: bytes.count) else { return SQLITE_TOOBIG }
      // Empty text still needs a non-null pointer to be text, not NULL.
      guard let start = bytes.baseAddress, length > 0 else {
        return sqlite3_bind_text(handle, index, "", 0, nil)
      }
      return start.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
        sqlite3_bind_text(handle, index, $0, length, sqliteTransient)
      }
    }
    try connection.check(code, "sqlite3_bind")
  }

  /// Binds a blob to parameter `index` (from 1); SQLite copies it.
  package func bind(blob bytes: [UInt8], at index: Int32) throws(SQLiteError) {
    let code = bytes.withUnsafeBytes { raw in
      guard let length = Int32(exactly: raw.count) else { return SQLITE_TOOBIG }
      // A zero-length blob still needs a non-null pointer to be a blob, not NULL.
      return sqlite3_bind_blob(
        handle, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), length, sqliteTransient)
    }
    try connection.check(code, "sqlite3_bind")
  }

  /// Advances to the next row; false when the statement is done.
  package func step() throws(SQLiteError) -> Bool {
    let code = sqlite3_step(handle)
    if code == SQLITE_ROW { return true }
    if code == SQLITE_DONE { return false }
    sqlite3_reset(handle)
    try connection.check(code, "sqlite3_step")
    return false
  }

  /// Number of result columns.
  package var columnCount: Int { Int(sqlite3_column_count(handle)) }

  /// The name of a result column.
  package func columnName(_ index: Int) -> String {
    String(cString: sqlite3_column_name(handle, Int32(index)))
  }

  /// What a column of the current row holds.
  package func columnType(at index: Int) -> SQLiteColumnType {
    switch sqlite3_column_type(handle, Int32(index)) {
    case SQLITE_INTEGER: .integer
    case SQLITE_FLOAT: .real
    case SQLITE_TEXT: .text
    case SQLITE_BLOB: .blob
    default: .null
    }
  }

  /// An integer column, nil when NULL.
  package func integerOrZero(at index: Int) -> Int64 { sqlite3_column_int64(handle, Int32(index)) }

  package func integer(at index: Int) -> Int64? {
    sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL
      ? nil : sqlite3_column_int64(handle, Int32(index))
  }

  /// A floating-point column, nil when NULL.
  package func real(at index: Int) -> Double? {
    sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL
      ? nil : sqlite3_column_double(handle, Int32(index))
  }

  /// A text column, nil when NULL.
  package func text(at index: Int) -> String? {
    guard sqlite3_column_type(handle, Int32(index)) != SQLITE_NULL,
      let text = sqlite3_column_text(handle, Int32(index))
    else { return nil }
    let count = Int(sqlite3_column_bytes(handle, Int32(index)))
    return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
  }

  /// A blob column's bytes as SQLite holds them, valid during `body` only.
  package func withBlob<R>(at index: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R {
    let data = sqlite3_column_blob(handle, Int32(index))
    return body(
      UnsafeRawBufferPointer(
        start: data, count: data == nil ? 0 : Int(sqlite3_column_bytes(handle, Int32(index)))))
  }

  /// A blob column (empty when NULL); text is returned as its bytes.
  package func blob(at index: Int) -> [UInt8] {
    guard let data = sqlite3_column_blob(handle, Int32(index)) else { return [] }
    let count = Int(sqlite3_column_bytes(handle, Int32(index)))
    return Array(UnsafeRawBufferPointer(start: data, count: count))
  }
}

extension SQLiteStatement: DatabaseRow {
  /// Resets the statement and binds `values` to its parameters, in order.
  package func bind(_ values: [DatabaseValue]) throws(SQLiteError) {
    try reset()
    for (offset, value) in values.enumerated() {
      let index = Int32(offset + 1)
      switch value {
      case .null: try bindNull(index)
      case .integer(let number): try bind(number, at: index)
      case .real(let number): try bind(number, at: index)
      case .text(let text): try bind(text, at: index)
      case .blob(let bytes): try bind(blob: bytes, at: index)
      }
    }
  }

  /// Runs the statement to completion with `values` bound.
  package func run(_ values: [DatabaseValue]) throws(SQLiteError) {
    try bind(values)
    while try step() {}
  }

  /// The current row's values.
  package func row() -> [DatabaseValue] {
    (0..<columnCount).map { value(at: $0) }
  }

  /// The value of one column of the current row.
  package func value(at index: Int) -> DatabaseValue {
    switch columnType(at: index) {
    case .integer: .integer(integer(at: index) ?? 0)
    case .real: .real(real(at: index) ?? 0)
    case .text: .text(text(at: index) ?? "")
    case .blob: .blob(blob(at: index))
    case .null: .null
    }
  }
}
