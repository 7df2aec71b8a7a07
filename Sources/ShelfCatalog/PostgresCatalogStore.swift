import ShelfCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A catalogue in a PostgreSQL database, shared by several machines: roots are named by host
/// and path, each root has one indexer at a time (an advisory lock), and readers never wait
/// (MVCC). Full text goes through a `tsvector` column with a GIN index (`simple` configuration
/// after `unaccent`); names and paths through trigram indexes (`pg_trgm`).
///
/// Readers use a read-only session and never change the database; a writer creates the schema
/// in an empty database and migrates an older one, under a transaction-level advisory lock so
/// two first writers do not race. A database with other tables and no shelf `meta` is refused
/// and never touched.
final class PostgresCatalogStore: CatalogBackend {
  let url: PostgresURL
  private let db: PostgresConnection
  /// This machine's name, recorded with the roots it adds.
  private let host: String
  /// Roots whose advisory lock this session holds.
  private var lockedRoots: Set<RawPath> = []
  /// Upserts waiting to be written as one multi-row INSERT.
  private var pendingRows: [(values: [DatabaseValue], search: SearchWords)] = []
  private var pendingTransaction = false

  /// Rows written per INSERT: a statement takes at most 65,535 parameters.
  private static let rowsPerInsert = 500
  /// The numbers of rows the prepared INSERTs write (a batch is cut into these), so that a
  /// few statements, each parsed and planned once, write every batch.
  private static let insertSizes = [rowsPerInsert, 100, 10, 1]
  /// The upsert of `count` rows, for each of `insertSizes`.
  private static let insertStatements = Dictionary(
    uniqueKeysWithValues: insertSizes.map { ($0, upsertStatement(rows: $0)) })
  /// The types of `CatalogSchema.writtenFileColumns`, which each value is cast to.
  private static let writtenFileTypes = CatalogSchema.fileColumns.filter(\.written).map(\.type)

  /// The key of the transaction-level advisory lock that serialises creating and migrating
  /// the schema ("SHLF" and 1).
  private static let schemaLockKey: Int64 = 0x5348_4C46_0000_0001

  /// The key under `meta` that marks the database as a shelf catalogue, and the version key.
  static let identityKey = "application_id"
  static let schemaKey = "schema_version"

  private init(url: PostgresURL, db: PostgresConnection) {
    self.url = url
    self.db = db
    host = CatalogHost.current
  }

  var location: CatalogLocation { .postgres(url) }
  var movedAsideCorruptFile: RawPath? { nil }
  var ownFiles: [RawPath] { [] }

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
      "SELECT count(*), count(*) FILTER (WHERE tablename = 'meta') FROM pg_tables WHERE schemaname = current_schema()"
    ).at(0)
    if tables.integer(at: 0) == 0 { return .empty }
    guard tables.integer(at: 1) == 1 else { return .other }
    let identity = try db.query(
      "SELECT (SELECT value FROM meta WHERE key = ?), (SELECT value FROM meta WHERE key = ?)",
      [.text(Self.identityKey), .text(Self.schemaKey)]
    ).at(0)
    guard identity.text(at: 0) == String(CatalogSchema.applicationID, radix: 16),
      let version = identity.text(at: 1).flatMap({ Int($0) })
    else { return .other }
    return .shelf(version)
  }

  /// Connects and checks (a writer also creates or migrates) the catalogue.
  static func open(_ url: PostgresURL, shelfVersion: String, writing: Bool, create: Bool) throws
    -> PostgresCatalogStore
  {
    let store = PostgresCatalogStore(url: url, db: try PostgresConnection(url: url))
    if !writing {
      // A reader's session cannot change anything, whatever it is asked.
      try store.db.execute("SET default_transaction_read_only = on")
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
        "SELECT value FROM meta WHERE key = ?", [.text(CatalogSchema.writerVersionKey)])
      throw CatalogError(
        path: errorPath,
        reason: .newerSchema(
          version, writtenBy: writer.count > 0 ? writer.at(0).text(at: 0) : nil, reader: shelfVersion))
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
      if let step = CatalogSchema.upgrade(from: version, .postgres) { try db.execute(step) }
      version += 1
    }
    if start != version {
      try db.run("UPDATE meta SET value = ? WHERE key = ?", [.text(String(version)), .text(Self.schemaKey)])
    }
    try stampWriter(shelfVersion)
  }

  private func stampWriter(_ shelfVersion: String) throws {
    try db.run(
      "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      [.text(CatalogSchema.writerVersionKey), .text(shelfVersion)])
  }

  func movingAsideAndRebuilding(shelfVersion: String) throws -> any CatalogBackend {
    // The server keeps its own data intact: there is no file to move aside.
    self
  }

  // MARK: Roots

  func roots() throws -> [CatalogRoot] {
    flushIgnoringFailure()
    let result = try db.query(
      "SELECT \(CatalogSchema.rootColumns(.postgres)) FROM roots ORDER BY path, host COLLATE \"C\"")
    return (0..<result.count).map { CatalogStore.root(from: result.at($0)) }
  }

  func rootListings() throws -> [CatalogRootListing] {
    let usage = try db.query("SELECT root_id, count(*), coalesce(sum(size), 0) FROM files GROUP BY root_id")
    var byRoot: [Int64: (Int, Int64)] = [:]
    for index in 0..<usage.count {
      let row = usage.at(index)
      byRoot[row.integer(at: 0) ?? 0] = (Int(row.integer(at: 1) ?? 0), row.integer(at: 2) ?? 0)
    }
    return try roots().map { root in
      let (files, size) = byRoot[root.id] ?? (0, 0)
      return CatalogRootListing(root: root, files: files, size: size)
    }
  }

  func forgetRoot(id: Int64) throws -> Int {
    try transaction {
      let count = try db.query("SELECT count(*) FROM files WHERE root_id = ?", [.integer(id)]).at(0).integer(
        at: 0)
      try db.run("DELETE FROM files WHERE root_id = ?", [.integer(id)])
      try db.run("DELETE FROM roots WHERE id = ?", [.integer(id)])
      return Int(count ?? 0)
    }
  }

  /// The advisory-lock key of a root: FNV-1a of its host and path.
  private func lockKey(_ path: RawPath) -> Int64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in Array("shelf root \(host):".utf8) + path.bytes {
      hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
    }
    return Int64(bitPattern: hash)
  }

  func lockRoot(_ path: RawPath, wait: Double) throws {
    guard !lockedRoots.contains(path) else { return }
    let deadline = MonotonicClock.seconds() + wait
    while true {
      let taken = try db.query("SELECT pg_try_advisory_lock(?)", [.integer(lockKey(path))]).at(0).text(at: 0)
      if taken == "t" {
        lockedRoots.insert(path)
        return
      }
      if MonotonicClock.seconds() >= deadline { throw CatalogError(path: path, reason: .busy) }
      usleep(50_000)
    }
  }

  func setExcludes(rootID: Int64, patterns: [String]) throws {
    try db.setExcludes(rootID: rootID, patterns: patterns)
  }

  func rootID(for path: RawPath) throws -> Int64 {
    try db.run(
      "INSERT INTO roots(host, path, path_text) VALUES(?, ?, ?) ON CONFLICT (host, path) DO NOTHING",
      [.text(host), .blob(path.bytes), .text(path.escaped)])
    return try db.query("SELECT id FROM roots WHERE host = ? AND path = ?", [.text(host), .blob(path.bytes)])
      .at(0).integer(at: 0) ?? 0
  }

  func updateRoot(id: Int64, layout: SandboxLayout, bundle: BundleInfo?, scannedAt: Int64?) throws {
    try db.updateRoot(id: id, layout: layout, bundle: bundle, scannedAt: scannedAt)
  }

  func updateBackupRoot(id: Int64, facts: BackupRootFacts) throws {
    try db.updateBackupRoot(id: id, facts: facts)
  }

  /// Records the root a root was found in (a backup inside an indexed folder).
  func setParent(rootID: Int64, parentID: Int64?) throws {
    try db.setParent(rootID: rootID, parentID: parentID)
  }

  // MARK: Files (writer side)

  func knownFiles(rootID: Int64) throws -> [PathKey: KnownFile] {
    try Self.knownFiles(db: db, rootID: rootID)
  }

  func knownFilesLoader() -> @Sendable (Int64) throws -> [PathKey: KnownFile] {
    let url = url
    return { rootID in try Self.knownFiles(db: try PostgresConnection(url: url), rootID: rootID) }
  }

  private static func knownFiles(db: PostgresConnection, rootID: Int64) throws -> [PathKey: KnownFile] {
    let result = try db.query(
      "SELECT \(KnownFile.columns) FROM files WHERE root_id = ?",
      [.integer(rootID)])
    var known: [PathKey: KnownFile] = [:]
    known.reserveCapacity(result.count)
    for index in 0..<result.count {
      let row = result.at(index)
      let path = RawPath(bytes: row.blob(at: 1))
      known[PathKey(path.bytes)] = KnownFile(
        id: row.integer(at: 0) ?? 0, path: path, size: row.integer(at: 2) ?? -1,
        mtime: row.integer(at: 3) ?? 0,
        ctime: row.integer(at: 4) ?? 0, inode: UInt64(bitPattern: row.integer(at: 5) ?? 0),
        device: UInt64(bitPattern: row.integer(at: 6) ?? 0), trusted: row.integer(at: 7) == 1,
        extractorVersion: Int(row.integer(at: 8) ?? 0), failedInWorker: row.integer(at: 9) == 1)
    }
    return known
  }

  /// What a row's full text is stored as: `text` (the `search_text` column, kept so that a copy
  /// can carry it) and the two halves of its `search` vector.
  struct SearchWords: Equatable {
    /// The tags and body cut into the runs of letters and digits the query language searches
    /// for (as SQLite's tokenizer cuts them), so that PostgreSQL finds the same words rather
    /// than URLs, paths or e-mail addresses; NULL when there are none.
    var text: DatabaseValue
    /// A `tsvector` literal of the plain ASCII words, lowercased, each at its place among all
    /// the words: what `to_tsvector('simple', unaccent(…))` makes of them, built here so that
    /// the server does not parse them (`unaccent` leaves ASCII alone, and `simple` only
    /// lowercases). Positions are kept: `ts_rank` counts them, and a query word the parser
    /// cuts in two (`1e4f`) is a phrase, which never matches lexemes without them.
    var lexemes: DatabaseValue
    /// The other words, for the server's `to_tsvector('simple', unaccent(…))`: those with
    /// other letters (folded by `unaccent`), digits followed by an `e` (which its parser reads
    /// as scientific notation: `1e4f` gives `1e4` and `f`), and words too long for a lexeme
    /// (which it drops). NULL when there are none.
    var serverWords: DatabaseValue
  }

  /// The last position a `tsvector` records (`to_tsvector` gives later words this one).
  private static let lastPosition = 16383

  /// The longest lexeme a `tsvector` holds, in bytes; `to_tsvector` drops longer words.
  private static let longestLexeme = 2047

  /// Splits `tags` and `body` into the `SearchWords` of a row, in one pass over their scalars
  /// (an indexing run makes millions of words: no string or array per word).
  static func searchWords(tags: String, body: String) -> SearchWords {
    var text: [UInt8] = []
    var lexemes: [UInt8] = []
    var serverWords: [UInt8] = []
    var word: [UInt8] = []
    var plainASCII = true
    var position = 1
    func endWord() {
      guard !word.isEmpty else { return }
      if !text.isEmpty { text.append(0x20) }
      text += word
      if plainASCII && word.count <= longestLexeme && !readAsScientificNotation(word) {
        if !lexemes.isEmpty { lexemes.append(0x20) }
        for byte in word {
          lexemes.append(Self.lowercasedASCII(byte))
        }
        lexemes.append(UInt8(ascii: ":"))
        lexemes += Array(String(min(position, Self.lastPosition)).utf8)
      } else {
        if !serverWords.isEmpty { serverWords.append(0x20) }
        serverWords += word
      }
      word.removeAll(keepingCapacity: true)
      plainASCII = true
      position += 1
    }
    for part in [tags, body] {
      for scalar in part.unicodeScalars {
        if scalar.isASCII {
          let byte = UInt8(scalar.value)
          guard
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
              || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
          else {
            endWord()
            continue
          }
          word.append(byte)
        } else if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
          plainASCII = false
          UTF8.encode(scalar) { word.append($0) }
        } else {
          endWord()
        }
      }
      endWord()
    }
    guard !text.isEmpty else { return SearchWords(text: .null, lexemes: .null, serverWords: .null) }
    return SearchWords(
      text: .text(String(decoding: text, as: UTF8.self)),
      lexemes: .text(String(decoding: lexemes, as: UTF8.self)),
      serverWords: serverWords.isEmpty ? .null : .text(String(decoding: serverWords, as: UTF8.self)))
  }

  /// `byte` with an ASCII capital lowercased: how the stored lexemes and the query words are
  /// folded, here rather than by the server, whose lowercasing follows the database's locale
  /// (in a Turkish one `I` becomes a dotless `ı`, which no lexeme built here holds).
  @inline(__always)
  static func lowercasedASCII(_ byte: UInt8) -> UInt8 {
    (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
  }

  /// `word` with its ASCII capitals lowercased (`lowercasedASCII`); other letters are left
  /// to the server, which folds them alike in the stored vectors and in queries.
  static func lowercasedASCII(_ word: String) -> String {
    String(decoding: word.utf8.map { lowercasedASCII($0) }, as: UTF8.self)
  }

  /// True when PostgreSQL's parser reads `word` (ASCII letters and digits) as more than a
  /// word: digits then an `e` start a number in scientific notation (`1e4f` is `1e4` and `f`).
  private static func readAsScientificNotation(_ word: [UInt8]) -> Bool {
    let digits = word.prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }.count
    return digits > 0 && digits < word.count && word[digits] | 0x20 == UInt8(ascii: "e")
  }

  func upsert(_ entry: CatalogEntry, rootID: Int64, trusted: Bool, searchText: String, isNew: Bool) throws {
    let (tags, body) = CatalogSchema.searchableText(entry, searchText: searchText)
    pendingRows.append(
      (
        CatalogSchema.fileValues(entry, rootID: rootID, trusted: trusted),
        Self.searchWords(tags: tags, body: body)
      ))
    if pendingRows.count >= Self.rowsPerInsert { try flush() }
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
  private func flush() throws {
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

  /// Flushes before a read that may follow writes (they would not see the waiting rows);
  /// a failure surfaces at the next write or commit (the transaction is then aborted).
  private func flushIgnoringFailure() {
    guard pendingTransaction else { return }
    try? flush()
    try? db.finishInFlight()
  }

  func deleteFile(id: Int64) throws {
    try flush()
    try db.run("DELETE FROM files WHERE id = ?", [.integer(id)])
  }

  func moveFile(id: Int64, to path: RawPath, area: String, status: FileStatus, trusted: Bool) throws {
    try flush()
    try db.moveFile(id: id, to: path, area: area, status: status, trusted: trusted)
  }

  func transaction<R>(_ body: () throws -> R) throws -> R {
    try db.execute("BEGIN")
    pendingTransaction = true
    do {
      let result = try body()
      try flush()
      try db.execute("COMMIT")
      pendingTransaction = false
      return result
    } catch {
      rollbackPending()
      throw error
    }
  }

  func transaction(continuing: Bool, _ body: () throws -> Void) throws {
    if !pendingTransaction {
      try db.execute("BEGIN")
      pendingTransaction = true
    }
    try body()
  }

  func commitPending() throws {
    guard pendingTransaction else { return }
    try flush()
    try db.execute("COMMIT")
    pendingTransaction = false
  }

  /// ANALYZE, which autovacuum would otherwise run within a minute or so of the load: until
  /// then the planner knows nothing of `lower(kind)` or the sizes and guesses its plans.
  func refreshPlannerStatistics() throws {
    try db.execute("ANALYZE files")
  }

  func rollbackPending() {
    pendingRows.removeAll()
    // A failed upsert still in flight must not keep the ROLLBACK from being sent.
    try? db.finishInFlight()
    guard pendingTransaction else { return }
    try? db.execute("ROLLBACK")
    pendingTransaction = false
  }

  // MARK: Live Photos

  func livePhotoCandidates(inFolder folder: RawPath) throws -> [LivePhotoCandidate] {
    try flush()
    let result = try db.query(
      "SELECT \(LivePhotoCandidate.columns) FROM files f JOIN roots r ON r.id = f.root_id WHERE \(LivePhotoCandidate.condition) AND r.host = ?",
      LivePhotoCandidate.bounds(folder) + [.text(host)])
    return (0..<result.count).map { LivePhotoCandidate(row: result.at($0)) }
  }

  func setLivePhoto(id: Int64, partner: [UInt8]?) throws {
    try db.setLivePhoto(id: id, partner: partner)
  }

  func pathsAwaitingLivePhotoLinks(rootID: Int64) throws -> [RawPath] {
    flushIgnoringFailure()
    let result = try db.query(
      "SELECT path FROM files WHERE root_id = ? AND content_id IS NOT NULL AND live_photo IS NULL",
      [.integer(rootID)])
    return (0..<result.count).map { RawPath(bytes: result.at($0).blob(at: 0)) }
  }

  // MARK: Copying

  func addRoot(_ root: CatalogRoot) throws -> Int64 {
    let id =
      try db.query(
        "INSERT INTO roots(host, path, path_text) VALUES(?, ?, ?) RETURNING id",
        [.text(root.host ?? host), .blob(root.path.bytes), .text(root.path.escaped)]
      ).at(0).integer(at: 0) ?? 0
    try CatalogCopy.describe(root, as: id, in: self)
    return id
  }

  func fileCount() throws -> Int {
    flushIgnoringFailure()
    return Int(try db.query("SELECT count(*) FROM files").at(0).integer(at: 0) ?? 0)
  }

  func forEachEntryForCopy(_ body: (CatalogEntry, Bool, String) throws -> Void) throws {
    try db.forEachRow(
      "SELECT \(CatalogSchema.entryColumns(.postgres)), f.trusted, f.search_text FROM files f JOIN roots r ON r.id = f.root_id ORDER BY f.id",
      []
    ) { row in
      try body(
        CatalogStore.entry(from: row), row.integer(at: CatalogStore.trustedColumn) == 1,
        row.text(at: CatalogStore.searchTextColumn) ?? "")
    }
  }

  // MARK: Reading

  func entry(path: RawPath) throws -> CatalogEntry? {
    flushIgnoringFailure()
    let result = try db.query(
      "SELECT \(CatalogSchema.entryColumns(.postgres)) FROM files f JOIN roots r ON r.id = f.root_id WHERE f.path = ? AND r.host = ?",
      [.blob(path.bytes), .text(host)])
    return result.count == 0 ? nil : CatalogStore.entry(from: result.at(0))
  }

  private func select(_ columns: String, _ query: CatalogQuery, sort: [CatalogSort], limit: Int?) throws
    -> (String, [DatabaseValue])
  {
    try CatalogReading.select(columns, matching: query, sort: sort, limit: limit, .postgres)
  }

  func forEachEntry(
    matching query: CatalogQuery, sort: [CatalogSort], limit: Int?, chunkNames: Bool,
    _ body: (CatalogEntry) throws -> Void
  ) throws {
    flushIgnoringFailure()
    let (sql, parameters) = try select(CatalogSchema.entryColumns(.postgres), query, sort: sort, limit: limit)
    try db.forEachRow(sql, parameters) { row in
      try body(CatalogStore.entry(from: row, chunkNames: chunkNames))
    }
  }

  func paths(matching query: CatalogQuery, sort: [CatalogSort], limit: Int?) throws -> [RawPath] {
    flushIgnoringFailure()
    let (sql, parameters) = try select("f.path", query, sort: sort, limit: limit)
    let result = try db.query(sql, parameters)
    return (0..<result.count).map { RawPath(bytes: result.at($0).blob(at: 0)) }
  }

  func stats(matching query: CatalogQuery) throws -> CatalogStats {
    flushIgnoringFailure()
    var totals = CatalogTotals()
    guard query.groups.isEmpty else {
      let (sql, parameters) = try CatalogTotals.sql(matching: query, .postgres)
      try db.forEachRow(sql, parameters) { totals.add($0) }
      return totals.stats(roots: try roots().filter { totals.rootIDs.contains($0.id) })
    }
    try db.forEachRow(CatalogTotals.sql(.postgres), []) { totals.add($0) }
    return totals.stats(roots: try roots())
  }
}
