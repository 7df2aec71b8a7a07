import ShelfCore
import ShelfDatabase

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The engine of a catalogue in a PostgreSQL database, shared by several machines: roots are named by host
/// and path, each root has one indexer at a time (an advisory lock), and readers never wait
/// (MVCC). Full text goes through a `tsvector` column with a GIN index (`simple` configuration
/// after `unaccent`); names and paths through trigram indexes (`pg_trgm`).
///
/// Readers use a read-only session and never change the database; a writer creates the schema
/// in an empty database and migrates an older one, under a transaction-level advisory lock so
/// two first writers do not race. A database with other tables and no shelf `meta` is refused
/// and never touched.
final class PostgresEngine: CatalogEngine {
  let url: PostgresURL
  private let db: PostgresConnection
  /// This machine's name, recorded with the roots it adds.
  private let machine: String
  /// Roots whose advisory lock this session holds.
  private var lockedRoots: Set<RawPath> = []
  /// Upserts waiting to be written as one multi-row INSERT.
  private var pendingRows: [(values: [DatabaseValue], search: SearchWords)] = []

  /// Rows written per INSERT: a statement takes at most 65,535 parameters.
  private static let rowsPerInsert = 500
  /// The numbers of rows the prepared INSERTs write (a batch is cut into these), so that a
  /// few statements, each parsed and planned once, write every batch.
  private static let insertSizes = [rowsPerInsert, 100, 10, 1]
  /// The upsert of `count` rows, for each of `insertSizes`.
  private static let insertStatements = Dictionary(
    uniqueKeysWithValues: insertSizes.map { ($0, upsertStatement(rows: $0)) })
  /// The types of `CatalogSchema.writtenFileColumns`, which each value is cast to.
  private static let writtenFileTypes = CatalogSchema.fileColumns.filter { $0.writer != nil }.map(\.type)

  /// The key of the transaction-level advisory lock that serialises creating and migrating
  /// the schema ("SHLF" and 1).
  private static let schemaLockKey: Int64 = 0x5348_4C46_0000_0001

  /// The key under `meta` that marks the database as a shelf catalogue, and the version key.
  static let identityKey = "application_id"
  static let schemaKey = "schema_version"

  private init(url: PostgresURL, db: PostgresConnection) {
    self.url = url
    self.db = db
    machine = CatalogHost.current
  }

  /// A connection to the catalogue at `url`.
  private static func connect(_ url: PostgresURL) throws -> PostgresConnection {
    try PostgresConnection(connectionString: url.connectionString, name: url.masked)
  }

  var connection: any DatabaseConnection { db }
  var dialect: SQLDialect { .postgres }
  var location: CatalogLocation { .postgres(url) }
  var host: String? { machine }
  var movedAsideCorruptFile: RawPath? { nil }
  var ownFiles: [RawPath] { [] }

  var connectionOpener: @Sendable () throws -> any DatabaseConnection {
    let url = url
    return { try PostgresEngine.connect(url) }
  }

  private var errorPath: RawPath { location.errorPath }

  // MARK: Opening

  /// What a database holds, told without changing it.
  private enum Identity {
    case empty
    /// A shelf catalogue of this schema version.
    case shelf(Int)
    case other
  }

  private func identify() throws -> Identity {
    let tables = try db.query(
      "SELECT \(TablesColumn.selectList) FROM pg_tables WHERE schemaname = current_schema()", []
    ) { row in
      (all: row.integer(at: TablesColumn.all.rawValue), meta: row.integer(at: TablesColumn.meta.rawValue))
    }.first
    if tables?.all == 0 { return .empty }
    guard tables?.meta == 1 else { return .other }
    let keys = MetaColumn.allCases.map { DatabaseValue.text($0.key) }
    let identity = try db.query("SELECT \(MetaColumn.selectList)", keys) { row in
      (identity: row.text(at: MetaColumn.identity.rawValue), schema: row.text(at: MetaColumn.schema.rawValue))
    }.first
    guard identity?.identity == String(CatalogSchema.applicationID, radix: 16),
      let version = identity?.schema.flatMap({ Int($0) })
    else { return .other }
    return .shelf(version)
  }

  /// The columns `identify` reads first: the tables of the schema, and of them those named
  /// `meta`.
  private enum TablesColumn: Int, SelectedColumn {
    case all, meta

    var sql: String {
      switch self {
      case .all: "count(*)"
      case .meta: "count(*) FILTER (WHERE tablename = 'meta')"
      }
    }
  }

  /// The columns `identify` reads then: the identity and the schema version the `meta` table
  /// records, each under its `key` (a parameter).
  private enum MetaColumn: Int, SelectedColumn {
    case identity, schema

    var sql: String { "(SELECT value FROM meta WHERE key = ?)" }

    var key: String {
      switch self {
      case .identity: PostgresEngine.identityKey
      case .schema: PostgresEngine.schemaKey
      }
    }
  }

  /// Connects and checks (a writer also creates or migrates) the catalogue.
  static func open(_ url: PostgresURL, shelfVersion: String, writing: Bool, create: Bool) throws
    -> PostgresEngine
  {
    let store = PostgresEngine(url: url, db: try connect(url))
    if !writing {
      // A reader's session cannot change anything, whatever it is asked. It sorts a listing
      // of a few hundred thousand entries in memory, not in temporary files (the default
      // allows 4 MB per sort).
      try store.db.execute("SET default_transaction_read_only = on; SET work_mem = '64MB'")
      switch try store.identify() {
      case .empty: throw CatalogError(path: store.errorPath, reason: .noCatalogue)
      case .other: throw CatalogError(path: store.errorPath, reason: .notACatalogue)
      case .shelf(let version):
        try store.checkVersion(version, shelfVersion: shelfVersion, writing: false)
      }
      return store
    }
    try store.db.execute("BEGIN")
    do {
      try store.db.run("SELECT pg_advisory_xact_lock(?)", [.integer(schemaLockKey)])
      switch try store.identify() {
      case .other: throw CatalogError(path: store.errorPath, reason: .notACatalogue)
      case .empty:
        guard create else { throw CatalogError(path: store.errorPath, reason: .noCatalogue) }
        try store.createSchema(shelfVersion: shelfVersion)
      case .shelf(let version):
        try store.checkVersion(version, shelfVersion: shelfVersion, writing: true)
        try store.migrate(from: version, shelfVersion: shelfVersion)
      }
      try store.db.execute("COMMIT")
    } catch {
      try? store.db.execute("ROLLBACK")
      throw error
    }
    return store
  }

  private func checkVersion(_ version: Int, shelfVersion: String, writing: Bool) throws {
    if version > CatalogSchema.version {
      let writer = try db.query(
        "SELECT value FROM meta WHERE key = ?", [.text(CatalogSchema.writerVersionKey)]
      ) { $0.text(at: 0) }
      throw CatalogError(
        path: errorPath,
        reason: .newerSchema(version, writtenBy: writer.first ?? nil, reader: shelfVersion))
    }
    if version < CatalogSchema.version && !writing {
      throw CatalogError(path: errorPath, reason: .olderSchema(version))
    }
  }

  /// The tables, indexes and extensions of a new catalogue, in an empty database.
  private func createSchema(shelfVersion: String) throws {
    do {
      try db.execute("CREATE EXTENSION IF NOT EXISTS unaccent; CREATE EXTENSION IF NOT EXISTS pg_trgm")
    } catch {
      throw PostgresError(
        catalogue: url.masked,
        reason:
          "cannot create the extensions unaccent and pg_trgm (\(error.reason)); have the database's owner or a superuser run CREATE EXTENSION unaccent; CREATE EXTENSION pg_trgm; in it",
        failure: error.failure == .io ? .noPermission : error.failure, state: error.state)
    }
    try db.execute(
      """
      CREATE TABLE meta(key text PRIMARY KEY, value text NOT NULL);
      CREATE TABLE roots(
        id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        host text NOT NULL,
        path bytea NOT NULL,
        path_text text NOT NULL,
        is_sandbox bigint NOT NULL DEFAULT 0,
        bundle_path bytea, bundle_id text, bundle_name text, bundle_version text,
        last_scan_ns bigint,
        excludes text,
        backup_device text, backup_product text, backup_ios text, backup_date text,
        backup_encrypted bigint, backup_format text,
        parent_id bigint,
        UNIQUE (host, path)
      );
      \(CatalogSchema.filesTable(.postgres));
      CREATE INDEX files_search ON files USING gin (search);
      CREATE INDEX files_name_trigrams ON files USING gin (name gin_trgm_ops);
      CREATE INDEX files_path_trigrams ON files USING gin (path_text gin_trgm_ops);
      \(CatalogSchema.queryIndexes(.postgres))
      \(CatalogSchema.contentHashesTable(.postgres))
      \(CatalogSchema.replayGainsTable(.postgres))
      """)
    try compressFullTextWithLZ4()
    try db.run(
      "INSERT INTO meta(key, value) VALUES(?, ?), (?, ?)",
      [
        .text(Self.identityKey), .text(String(CatalogSchema.applicationID, radix: 16)),
        .text(Self.schemaKey), .text(String(CatalogSchema.version)),
      ])
    try stampWriter(shelfVersion)
  }

  /// Stores the full-text columns (the words of text files: most of a catalogue's bytes) with
  /// lz4 instead of the default pglz, which took a tenth of the server's time while indexing
  /// text. A server built without lz4 (which says so as `feature_not_supported`) keeps pglz:
  /// the catalogue works the same either way.
  private func compressFullTextWithLZ4() throws {
    try db.execute("SAVEPOINT full_text_compression")
    do {
      try db.execute(
        "ALTER TABLE files ALTER search SET COMPRESSION lz4, ALTER search_text SET COMPRESSION lz4")
      try db.execute("RELEASE SAVEPOINT full_text_compression")
    } catch let error where error.state == "0A000" {
      try db.execute("ROLLBACK TO SAVEPOINT full_text_compression")
    }
  }

  /// Brings an older schema up to date, step by step (in the caller's transaction).
  private func migrate(from start: Int, shelfVersion: String) throws {
    var version = start
    while version < CatalogSchema.version {
      if version + 1 == CatalogSchema.searchFoldingVersion {
        try refoldFullText()
      } else if let step = CatalogSchema.upgrade(from: version, .postgres) {
        try db.execute(step)
      }
      version += 1
    }
    if start != version {
      try db.run("UPDATE meta SET value = ? WHERE key = ?", [.text(String(version)), .text(Self.schemaKey)])
    }
    try stampWriter(shelfVersion)
  }

  /// Folds the full text of a catalogue older than `CatalogSchema.searchFoldingVersion` as new
  /// rows are folded (`SearchTextFolding`): each row's stored words, folded, make its vector
  /// anew. Rows of ASCII words alone were already what folding makes; a few hundred rows are
  /// read at a time.
  private func refoldFullText() throws {
    var after: Int64 = 0
    while true {
      let rows = try db.query(
        "SELECT \(RefoldColumn.selectList) FROM files "
          + "WHERE id > ? AND search_text ~ '[^\\x01-\\x7f]' ORDER BY id LIMIT 256",
        [.integer(after)]
      ) { row in
        (
          id: row.integer(at: RefoldColumn.id.rawValue) ?? 0,
          text: row.text(at: RefoldColumn.text.rawValue) ?? ""
        )
      }
      guard let last = rows.last else { return }
      after = last.id
      for row in rows {
        let words = Self.searchWords(tags: SearchTextFolding.indexed(row.text), body: "")
        try db.run(
          "UPDATE files SET search_text = ?::text, search = ?::text::tsvector || coalesce(to_tsvector('simple', unaccent(?::text)), ''::tsvector) WHERE id = ?",
          [words.text, words.lexemes, words.serverWords, .integer(row.id)])
      }
    }
  }

  /// The columns `refoldFullText` reads, in the order selected.
  private enum RefoldColumn: Int, SelectedColumn {
    case id, text

    var sql: String {
      switch self {
      case .id: "id"
      case .text: "search_text"
      }
    }
  }

  private func stampWriter(_ shelfVersion: String) throws {
    try db.run(
      "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      [.text(CatalogSchema.writerVersionKey), .text(shelfVersion)])
  }

  func movingAsideAndRebuilding(shelfVersion: String) throws -> any CatalogEngine {
    // The server keeps its own data intact: there is no file to move aside.
    self
  }

  func isDamage(_ error: any Error) -> Bool { false }

  // MARK: Roots

  /// The advisory-lock key of a root: FNV-1a of its host and path.
  private func lockKey(_ path: RawPath) -> Int64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in Array("shelf root \(machine):".utf8) + path.bytes {
      hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
    }
    return Int64(bitPattern: hash)
  }

  func lockRoot(_ path: RawPath, wait: Double) throws {
    guard !lockedRoots.contains(path) else { return }
    let deadline = MonotonicClock.seconds() + wait
    while true {
      let taken =
        try db.query("SELECT pg_try_advisory_lock(?)", [.integer(lockKey(path))]) { $0.text(at: 0) }
        .first ?? nil
      if taken == "t" {
        lockedRoots.insert(path)
        return
      }
      if MonotonicClock.seconds() >= deadline { throw CatalogError(path: path, reason: .busy) }
      usleep(50_000)
    }
  }

  // MARK: Files

  func upsert(_ entry: CatalogEntry, rootID: Int64, trusted: Bool, isNew: Bool) throws {
    let (tags, body) = FactField.searchWords(entry)
    pendingRows.append(
      (
        CatalogSchema.fileValues(entry, rootID: rootID, trusted: trusted),
        Self.searchWords(tags: tags, body: body)
      ))
    if pendingRows.count >= Self.rowsPerInsert { try writeQueuedRows() }
  }

  /// An INSERT of `rows` rows that updates the rows already there. The vector is the ASCII
  /// words' literal joined with what the server makes of the other words.
  private static func upsertStatement(rows: Int) -> String {
    let columns = CatalogSchema.writtenFileColumns
    let casts = writtenFileTypes.map { type in
      switch type {
      case .integer: "?::int8"
      case .real: "?::float8"
      case .text: "?::text"
      case .blob: "?::bytea"
      }
    }
    let row =
      "(" + casts.joined(separator: ", ")
      + ", ?::text, ?::text::tsvector || coalesce(to_tsvector('simple', unaccent(?::text)), ''::tsvector))"
    let updates = (columns.filter { $0 != "path" && $0 != "root_id" } + ["search_text", "search"]).map {
      "\($0) = excluded.\($0)"
    }.joined(separator: ", ")
    return "INSERT INTO files(\(columns.joined(separator: ", ")), search_text, search) VALUES "
      + Array(repeating: row, count: rows).joined(separator: ", ")
      + " ON CONFLICT (root_id, path) DO UPDATE SET \(updates)"
  }

  /// `value` as the column of `type` takes it: a number in the other numeric type is
  /// converted as PostgreSQL's assignment would.
  private static func value(_ value: DatabaseValue, for type: CatalogSchema.ColumnType) -> DatabaseValue {
    switch (value, type) {
    case (.real(let number), .integer):
      // Beyond Int64 (or not finite) the column gets no value rather than a trap.
      Int64(exactly: number.rounded()).map(DatabaseValue.integer) ?? .null
    case (.integer(let number), .real): .real(Double(number))
    default: value
    }
  }

  /// Sends the waiting upserts as prepared multi-row INSERTs (a later upsert of the same path
  /// in the batch wins: one statement cannot change a row twice), each without waiting for the
  /// last: the server indexes these rows while the next ones are read, and the next statement
  /// or the commit collects the result.
  func writeQueuedRows() throws {
    guard !pendingRows.isEmpty else { return }
    var seen = Set<[DatabaseValue]>()
    var rows: [(values: [DatabaseValue], search: SearchWords)] = []
    for row in pendingRows.reversed() where seen.insert([row.values[0], row.values[1]]).inserted {
      rows.append(row)
    }
    rows.reverse()
    pendingRows.removeAll(keepingCapacity: true)
    var start = 0
    for size in Self.insertSizes {
      while rows.count - start >= size {
        var parameters: [DatabaseValue] = []
        parameters.reserveCapacity(size * (Self.writtenFileTypes.count + 3))
        for (values, search) in rows[start..<start + size] {
          for (value, type) in zip(values, Self.writtenFileTypes) {
            parameters.append(Self.value(value, for: type))
          }
          parameters += [search.text, search.lexemes, search.serverWords]
        }
        try db.sendPreparedWithoutWaiting(Self.insertStatements[size]!, parameters)
        start += size
      }
    }
  }

  /// Before a read inside a transaction (`writeQueuedRowsBeforeReading`): the rows are sent
  /// and their result collected, so that a failure surfaces at the next write or commit (the
  /// transaction is then aborted), not in the read.
  func writeQueuedRowsBeforeReading() {
    try? writeQueuedRows()
    try? db.finishInFlight()
  }

  func discardQueuedRows() {
    pendingRows.removeAll()
    // A failed upsert still in flight must not keep the ROLLBACK from being sent.
    try? db.finishInFlight()
  }

  /// ANALYZE, which autovacuum would otherwise run within a minute or so of the load: until
  /// then the planner knows nothing of `lower(kind)` or the sizes and guesses its plans.
  func refreshPlannerStatistics() throws {
    try db.execute("ANALYZE files")
  }
}
