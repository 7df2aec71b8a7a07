import ShelfCore

/// What the statements shared by both engines say differently in each: the fragments of SQL
/// and the facts of each engine's schema they are built from, side by side, so that the store
/// and the query compiler are written once and never branch on the engine themselves. The
/// schema's own statements (`CatalogSchema`) are written per dialect where they are.
extension SQLDialect {
  /// ASCII-case-insensitive LIKE, as SQLite's LIKE is.
  var like: String { self == .sqlite ? "LIKE" : "ILIKE" }
  var trueValue: String { self == .sqlite ? "1" : "true" }
  var falseValue: String { self == .sqlite ? "0" : "false" }

  /// Makes text compare and sort by its bytes, as SQLite's default collation does, whatever
  /// the PostgreSQL database's locale.
  var byteOrder: String { self == .sqlite ? "" : " COLLATE \"C\"" }

  /// A line feed, as an SQL expression.
  var newline: String { self == .sqlite ? "char(10)" : "chr(10)" }

  /// Starts a transaction that may write (a PostgreSQL reader's transactions are read-only by
  /// default).
  var beginWriting: String { self == .sqlite ? "BEGIN" : "BEGIN READ WRITE" }

  /// The order of `roots()`: by path, then (PostgreSQL) by host in byte order.
  var rootOrder: String { self == .sqlite ? "path" : "path, host COLLATE \"C\"" }

  /// The last key of every ORDER BY, so that ties list in a stable order. `+` keeps SQLite
  /// from walking the path index for the order instead of filtering first.
  var pathTieBreak: String { self == .sqlite ? "+f.path" : "f.path" }

  /// SQLite keeps the full text in a table of its own (rowid = the file's id); PostgreSQL in
  /// columns of `files`.
  var fullTextTable: String? { self == .sqlite ? "files_fts" : nil }

  /// The text a file's full-text row was made from, as a column of `files f`.
  var storedSearchText: String {
    self == .sqlite ? "(SELECT body FROM files_fts WHERE rowid = f.id)" : "f.search_text"
  }

  /// True when a path substring is first looked up in SQLite's path trigram table
  /// (`CatalogQuery.pathTrigramsSQL`); PostgreSQL's trigram index serves `ILIKE` itself.
  var hasPathTrigramTable: Bool { self == .sqlite }

  /// True when `files` has an index by root (PostgreSQL's rows are unique by root and path);
  /// SQLite finds a root's rows through the range of their paths.
  var indexesFilesByRoot: Bool { self == .postgres }

  /// True when the totals of `stats` group the photos by year in the same pass (PostgreSQL
  /// reads its table once); SQLite reads its `files_totals` index alone and counts the years
  /// apart (`CatalogTotals.photosByYear`).
  var totalsCarryPhotoYears: Bool { self == .postgres }

  /// PostgreSQL compares an integer column with a float8 parameter as float8, which no index
  /// on the column serves; SQLite compares them as numbers.
  var comparesIntegersAsReals: Bool { self == .postgres }

  /// The function that matches a glob against a path's bytes (`shelf_glob`, registered on
  /// every SQLite catalogue connection); nil in PostgreSQL, which matches a regular expression
  /// (`CatalogQuery.regularExpressionSQL`).
  var globFunction: String? { self == .sqlite ? "shelf_glob" : nil }

  /// A condition, as the integer that `coalesce` compares with a number (PostgreSQL will not
  /// coalesce a condition such as `x IS NOT NULL` with one).
  func integer(_ condition: String) -> String { self == .sqlite ? condition : "(\(condition))::int" }

  /// `column` holds the parameter (a LIKE pattern), ASCII case ignored. Said outright, the
  /// column's not being NULL lets SQLite read a partial index of it (`files_artist`) rather
  /// than the table; PostgreSQL infers it.
  func containsPattern(_ column: String) -> String {
    self == .sqlite
      ? "(\(column) IS NOT NULL AND \(column) LIKE ? ESCAPE '\\')" : "\(column) ILIKE ? ESCAPE '\\'"
  }

  /// `column` equals the parameter, case ignored.
  func equalsIgnoringCase(_ column: String) -> String {
    self == .sqlite ? "\(column) = ? COLLATE NOCASE" : "lower(\(column)) = lower(?)"
  }

  /// `column` (NULL as empty) differs from the parameter, case ignored.
  func differsIgnoringCase(_ column: String) -> String {
    self == .sqlite
      ? "coalesce(\(column), '') != ? COLLATE NOCASE" : "lower(coalesce(\(column), '')) != lower(?)"
  }

  /// `expression` with its ASCII letters lowered, for a LIKE against a lowered pattern: SQLite's
  /// LIKE folds ASCII letters itself; PostgreSQL's own folding follows the database's locale.
  func foldingASCIICase(_ expression: String) -> String {
    self == .sqlite
      ? expression : "translate(\(expression), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')"
  }

  /// A full-text query for `tokens`, each a prefix, ANDed: FTS5's syntax or `to_tsquery`'s.
  func fullTextQuery(_ tokens: [String]) -> String {
    switch self {
    case .sqlite: tokens.map { "\"" + $0.replacingAll("\"", with: "\"\"") + "\"*" }.joined(separator: " ")
    case .postgres: tokens.map { PostgresEngine.lowercasedASCII($0) + ":*" }.joined(separator: " & ")
    }
  }

  /// The condition that a file's full text matches the parameter (a `fullTextQuery`); NULL in
  /// PostgreSQL for a file without text.
  var fullTextMatch: String {
    self == .sqlite
      ? "f.id IN (SELECT rowid FROM files_fts WHERE files_fts MATCH ?)"
      : "f.search @@ to_tsquery('simple', unaccent(?))"
  }

  /// `fullTextMatch`, false rather than NULL.
  var fullTextMatchOrFalse: String { self == .sqlite ? fullTextMatch : "coalesce(\(fullTextMatch), false)" }

  /// A statement that writes `rows` (a VALUES list) into `columns` of `table`, each row
  /// replacing the one with the same `key`.
  func insertOrReplace(into table: String, columns: [String], key: [String], rows: String) -> String {
    let target = "\(table)(\(columns.joined(separator: ", ")))"
    switch self {
    case .sqlite: return "INSERT OR REPLACE INTO \(target) VALUES \(rows)"
    case .postgres:
      let updated = columns.filter { !key.contains($0) }.map { "\($0) = excluded.\($0)" }
      return
        "INSERT INTO \(target) VALUES \(rows) ON CONFLICT (\(key.joined(separator: ", "))) DO UPDATE SET \(updated.joined(separator: ", "))"
    }
  }
}
