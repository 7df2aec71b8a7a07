/// A connection to either database (`SQLiteConnection`, `PostgresConnection`), as far as code
/// written once for both needs it: statements with `?` parameters bound from `DatabaseValue`s,
/// rows read through `DatabaseRow`, and transactions. Each connection is used from one thread.
package protocol DatabaseConnection: AnyObject {
  /// Runs statements that return no rows (several, separated by semicolons, when none has
  /// parameters).
  func execute(_ sql: String) throws

  /// Runs one statement with `?` parameters, ignoring any rows.
  func run(_ sql: String, _ parameters: [DatabaseValue]) throws

  /// Runs one statement with `?` parameters and returns what `row` makes of each row. The
  /// whole result is read before the next statement on the connection, so it suits small
  /// results and those `row` reads in full.
  func query<T>(_ sql: String, _ parameters: [DatabaseValue], _ row: (any DatabaseRow) throws -> T) throws
    -> [T]

  /// Hands the rows of one statement to `body` one at a time, without holding them all in
  /// memory (a listing of a million entries). `body` must not use the connection.
  func forEachRow(_ sql: String, _ parameters: [DatabaseValue], _ body: (any DatabaseRow) throws -> Void)
    throws

  /// Starts a transaction that writes (SQLite takes the write lock at once, so that a busy
  /// catalogue is told at the start, not at the first write).
  func beginTransaction() throws
  /// Commits the transaction `beginTransaction` started.
  func commitTransaction() throws
  /// Rolls back the open transaction, if any, after a failure (whose error is the one to
  /// report, so this one's is not).
  func rollbackTransaction()
}

extension DatabaseConnection {
  /// Runs `body` in a transaction, committing when it returns and rolling back when it throws.
  package func transaction<R>(_ body: () throws -> R) throws -> R {
    try beginTransaction()
    do {
      let result = try body()
      try commitTransaction()
      return result
    } catch {
      rollbackTransaction()
      throw error
    }
  }

  /// The first column of the first row as an integer (a count, an id), nil without rows.
  package func integer(_ sql: String, _ parameters: [DatabaseValue] = []) throws -> Int64? {
    try query(sql, parameters) { $0.integer(at: 0) }.first ?? nil
  }
}
