import ShelfCore
import ShelfSQLite

/// The catalogue's side of the one SQLite wrapper (`ShelfSQLite`): every catalogue connection
/// has `shelf_glob` for path queries, and statements bind and read `DatabaseValue`s, the values
/// both catalogue stores (SQLite and PostgreSQL) share.
extension SQLiteConnection {
  /// Opens (creating when asked) the catalogue database at `path`, with `shelf_glob`.
  convenience init(path: RawPath, create: Bool, readOnly: Bool = false, immutable: Bool = false)
    throws(SQLiteError)
  {
    try self.init(
      path: path, create: create, readOnly: readOnly, immutable: immutable, functions: [PathGlob.sqlFunction])
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
    try statement.run(parameters)
  }
}

extension SQLiteStatement: DatabaseRow {
  /// Resets the statement and binds `values` to its parameters, in order.
  func bind(_ values: [DatabaseValue]) throws(SQLiteError) {
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
  func run(_ values: [DatabaseValue]) throws(SQLiteError) {
    try bind(values)
    while try step() {}
  }

  /// The current row's values.
  func row() -> [DatabaseValue] {
    (0..<columnCount).map { value(at: $0) }
  }

  /// The value of one column of the current row.
  func value(at index: Int) -> DatabaseValue {
    switch columnType(at: index) {
    case .integer: .integer(integer(at: index) ?? 0)
    case .real: .real(real(at: index) ?? 0)
    case .text: .text(text(at: index) ?? "")
    case .blob: .blob(blob(at: index))
    case .null: .null
    }
  }
}
