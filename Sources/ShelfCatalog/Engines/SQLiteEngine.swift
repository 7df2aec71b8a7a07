import ShelfCore
import ShelfDatabase

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The SQLite catalogue's engine: the one owner of its database connection (use from one
/// thread).
///
/// Readers open it read-only and never change it; a writer holds the `WriterLock` for as long
/// as the store lives, and is the only one that creates, migrates or moves aside a damaged
/// catalogue. A file that is not a shelf catalogue is refused by both and never touched. The
/// catalogue holds one machine's roots (no host filter) and one writer at a time, and writes
/// each file's row at once.
final class SQLiteEngine: CatalogEngine {
  /// The database file.
  let path: RawPath
  /// Where a damaged catalogue was moved before this one was created, if that happened.
  private(set) var movedAsideCorruptFile: RawPath?
  let db: SQLiteConnection
  /// The writer lock, held for the life of a writer; nil for a reader.
  private let lock: WriterLock?
  private var writeStatementsPrepared: WriteStatements?
  /// True once `movingAsideAndRebuilding` closed the connection and handed the file to a
  /// fresh store: the journal mode is then that store's to set, not this one's.
  private var replaced = false

  private init(path: RawPath, db: SQLiteConnection, lock: WriterLock?) {
    self.path = path
    self.db = db
    self.lock = lock
  }

  deinit {
    guard lock != nil, !replaced else { return }
    writeStatementsPrepared = nil
    // Back to a rollback journal when no reader is in: a read-only connection to a WAL
    // database has to create -wal and -shm files beside it (and cannot remove them), so
    // readers of an idle catalogue leave nothing behind. Busy readers keep it in WAL.
    try? db.setBusyTimeout(milliseconds: 0)
    _ = try? db.query("PRAGMA journal_mode=DELETE")
  }

  /// Opens an existing catalogue read-only, as reader commands do: nothing is created,
  /// migrated or moved. `shelfVersion` names this shelf in the error about a newer schema.
  static func openForReading(at path: RawPath, shelfVersion: String) throws -> SQLiteEngine {
    switch try CatalogFileIdentity.identify(path) {
    case .missing: throw CatalogError(path: path, reason: .noCatalogue)
    case .other: throw CatalogError(path: path, reason: .notACatalogue)
    case .shelf: break
    }
    let db = try readOnlyConnection(path)
    // Mapped, a listing reads the rows an index points at without a system call each (SQLite
    // caps the size at what it was built for; writers keep ordinary reads).
    try db.execute("PRAGMA cache_size=-32768; PRAGMA temp_store=MEMORY; PRAGMA mmap_size=\(Int64(1) << 40)")
    let store = SQLiteEngine(path: path, db: db, lock: nil)
    let schema = try store.schemaVersion()
    if schema < CatalogSchema.version { throw CatalogError(path: path, reason: .olderSchema(schema)) }
    if schema > CatalogSchema.version {
      throw CatalogError(
        path: path, reason: .newerSchema(schema, writtenBy: try store.writerVersion(), reader: shelfVersion))
    }
    return store
  }

  /// A read-only connection. A catalogue left in WAL mode (a writer that could not switch
  /// back, or an older shelf) needs its -shm file, which SQLite cannot create in a folder the
  /// reader may not write: then, with no -wal file (so every committed page is in the main
  /// file, and no writer can be at work there), it is read as immutable.
  private static func readOnlyConnection(_ path: RawPath) throws -> SQLiteConnection {
    do {
      let db = try SQLiteConnection(path: path, create: false, readOnly: true)
      try db.setBusyTimeout(milliseconds: 5000)
      _ = try db.query("SELECT count(*) FROM sqlite_master")
      return db
    } catch  where error.cannotSetUpReading {
      let wal = RawPath(bytes: path.bytes + Array("-wal".utf8))
      guard (try? FileStatus.lstat(wal)) == nil else { throw error }
      return try SQLiteConnection(path: path, create: false, immutable: true)
    }
  }

  /// Opens the catalogue at `path` for writing: takes the writer lock (waiting up to
  /// `lockWait` seconds), creates the catalogue when missing and `create` is set, migrates an
  /// older schema, and records `shelfVersion` as its writer. A shelf catalogue that SQLite
  /// finds damaged is moved aside and rebuilt (see `movedAsideCorruptFile`); a file that is
  /// not a shelf catalogue is refused before the lock file is made. The folder must exist.
  static func openForWriting(
    at path: RawPath, shelfVersion: String, lockWait: Double = 2, create: Bool = true
  ) throws -> SQLiteEngine {
    // Checked before the lock file is made beside it.
    switch try CatalogFileIdentity.identify(path) {
    case .other: throw CatalogError(path: path, reason: .notACatalogue)
    case .missing where !create: throw CatalogError(path: path, reason: .noCatalogue)
    case .missing, .shelf: break
    }
    let lock = try WriterLock(catalogue: path, wait: lockWait)
    // Identified again under the lock: another writer may have created it meanwhile.
    switch try CatalogFileIdentity.identify(path) {
    case .other: throw CatalogError(path: path, reason: .notACatalogue)
    case .missing:
      guard create else { throw CatalogError(path: path, reason: .noCatalogue) }
      try createFile(at: path, shelfVersion: shelfVersion)
      return try connectWriter(path, lock: lock, shelfVersion: shelfVersion)
    case .shelf:
      do {
        return try connectWriter(path, lock: lock, shelfVersion: shelfVersion)
      } catch let error as SQLiteError where error.isCorruption {
        let aside = try moveAside(path)
        try createFile(at: path, shelfVersion: shelfVersion)
        let store = try connectWriter(path, lock: lock, shelfVersion: shelfVersion)
        store.movedAsideCorruptFile = aside
        return store
      }
    }
  }

  /// Makes a new, empty catalogue at `path` in one step: built beside it under a temporary
  /// name, then renamed into place, so a catalogue file is either complete or absent (an
  /// interrupted creation never leaves an empty file that would then be refused).
  private static func createFile(at path: RawPath, shelfVersion: String) throws {
    let temporary = RawPath(bytes: path.bytes + Array(".new-\(getpid())".utf8))
    defer { _ = temporary.withCString { unlink($0) } }
    let db = try SQLiteConnection(path: temporary, create: true)
    // Pages of 16 KiB rather than 4: the full-text segments and the long rows of texts span
    // fewer pages, and an index run of /usr/share spent 6 % less CPU (fixed at creation).
    try db.execute("PRAGMA page_size = 16384")
    try db.transaction {
      try db.execute(CatalogSchema.create)
      try stampIdentity(db, shelfVersion: shelfVersion)
    }
    try db.close()
    guard (try? FileStatus.lstat(path)) == nil else {
      throw CatalogError(path: path, reason: .notACatalogue)
    }
    let result = temporary.withCString { from in path.withCString { to in rename(from, to) } }
    guard result == 0 else { throw FileError(path: path, errno: errno, doing: "cannot create the catalogue") }
  }

  /// Marks a catalogue as shelf's, of the current schema, last written by `shelfVersion`.
  private static func stampIdentity(_ db: SQLiteConnection, shelfVersion: String) throws {
    try db.execute(
      "PRAGMA application_id = \(Int32(bitPattern: CatalogSchema.applicationID)); PRAGMA user_version = \(CatalogSchema.version)"
    )
    try db.run(
      "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)",
      [.text(CatalogSchema.writerVersionKey), .text(shelfVersion)])
  }

  private static func connectWriter(_ path: RawPath, lock: WriterLock, shelfVersion: String) throws
    -> SQLiteEngine
  {
    let db = try SQLiteConnection(path: path, create: false)
    try db.setBusyTimeout(milliseconds: 5000)
    // A damaged file fails here, before anything is written to it.
    _ = try db.query("SELECT count(*) FROM sqlite_master")
    let store = SQLiteEngine(path: path, db: db, lock: nil)
    // A newer schema is refused before anything (even the journal mode) changes.
    let schema = try store.schemaVersion()
    if schema > CatalogSchema.version {
      throw CatalogError(
        path: path, reason: .newerSchema(schema, writtenBy: try store.writerVersion(), reader: shelfVersion))
    }
    _ = try? db.query("PRAGMA journal_mode=WAL")
    try db.execute(
      "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA cache_size=-32768; PRAGMA temp_store=MEMORY")
    let writer = SQLiteEngine(path: path, db: db, lock: lock)
    try writer.upgrade(shelfVersion: shelfVersion)
    return writer
  }

  /// The schema version (`PRAGMA user_version`).
  private func schemaVersion() throws -> Int {
    Int(try db.query("PRAGMA user_version").first?.first?.integer ?? 0)
  }

  /// The version of the shelf that last wrote the catalogue, when it recorded one.
  private func writerVersion() throws -> String? {
    let hasMeta = try db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'")
    guard !hasMeta.isEmpty else { return nil }
    return try db.query("SELECT value FROM meta WHERE key = ?", [.text(CatalogSchema.writerVersionKey)])
      .first?.first?.text
  }

  /// Brings an older schema up to date (writers only): step by step where a migration exists,
  /// else rebuilt keeping the roots. (A newer schema was refused, never dropped, before.)
  private func upgrade(shelfVersion: String) throws {
    var version = try schemaVersion()
    if version == CatalogSchema.version {
      if try writerVersion() != shelfVersion {
        try db.transaction { try Self.stampIdentity(db, shelfVersion: shelfVersion) }
      }
      return
    }
    try db.transaction {
      if !CatalogSchema.migrates(from: version, .sqlite) {
        let oldRoots = try db.query("SELECT path FROM roots").compactMap { $0.first?.bytes }
        try db.execute(CatalogSchema.drop)
        try db.execute(CatalogSchema.create)
        for root in oldRoots {
          try db.run(
            "INSERT OR IGNORE INTO roots(path, path_text) VALUES(?, ?)",
            [.blob(root), .text(String(decoding: root, as: UTF8.self))])
        }
        version = CatalogSchema.version
      }
      while version < CatalogSchema.version {
        if version + 1 == CatalogSchema.searchFoldingVersion {
          try Self.refoldFullText(db)
        } else {
          guard let step = CatalogSchema.upgrade(from: version, .sqlite) else { break }
          try db.execute(step)
        }
        version += 1
      }
      try Self.stampIdentity(db, shelfVersion: shelfVersion)
    }
  }

  /// Folds the full-text rows of a catalogue older than `CatalogSchema.searchFoldingVersion`
  /// as new rows are folded (`SearchTextFolding`), a few hundred rows at a time; rows of
  /// ASCII alone stay as they are.
  private static func refoldFullText(_ db: SQLiteConnection) throws {
    var after: Int64 = 0
    while true {
      let rows = try db.query(
        "SELECT rowid, tags, body FROM files_fts WHERE rowid > ? ORDER BY rowid LIMIT 256", [.integer(after)])
      guard let last = rows.last?.first?.integer else { return }
      after = last
      for row in rows {
        let tags = row[1].text ?? ""
        let body = row[2].text ?? ""
        let folded = (SearchTextFolding.indexed(tags), SearchTextFolding.indexed(body))
        guard !folded.0.utf8.elementsEqual(tags.utf8) || !folded.1.utf8.elementsEqual(body.utf8) else {
          continue
        }
        try db.run(
          "UPDATE files_fts SET tags = ?, body = ? WHERE rowid = ?",
          [.text(folded.0), .text(folded.1), row[0]])
      }
    }
  }

  /// Moves this (damaged) catalogue aside and returns a fresh one in its place (see
  /// `movedAsideCorruptFile`), holding the same lock. Writers call this when SQLite reports
  /// corruption mid-scan.
  func movingAsideAndRebuilding(shelfVersion: String) throws -> any CatalogEngine {
    guard let lock else { preconditionFailure("only a writer moves the catalogue aside") }
    writeStatementsPrepared = nil
    try? db.close()
    replaced = true
    let aside = try Self.moveAside(path)
    try Self.createFile(at: path, shelfVersion: shelfVersion)
    let fresh = try Self.connectWriter(path, lock: lock, shelfVersion: shelfVersion)
    fresh.movedAsideCorruptFile = aside
    return fresh
  }

  func isDamage(_ error: any Error) -> Bool { (error as? SQLiteError)?.isCorruption == true }

  private static func moveAside(_ path: RawPath) throws -> RawPath {
    var counter = 0
    var target = RawPath(bytes: path.bytes + Array(".corrupt".utf8))
    while (try? FileStatus.lstat(target)) != nil {
      counter += 1
      target = RawPath(bytes: path.bytes + Array(".corrupt-\(counter)".utf8))
    }
    let result = path.withCString { from in target.withCString { to in rename(from, to) } }
    guard result == 0 else {
      throw FileError(path: path, errno: errno, doing: "cannot move the damaged catalogue aside")
    }
    for suffix in ["-wal", "-shm"] {
      let side = RawPath(bytes: path.bytes + Array(suffix.utf8))
      _ = side.withCString { unlink($0) }
    }
    return target
  }

  // MARK: The engine

  var connection: any DatabaseConnection { db }
  var dialect: SQLDialect { .sqlite }
  var location: CatalogLocation { .file(path) }
  /// One machine's roots: no host filter.
  var host: String? { nil }

  /// The database file and the files SQLite and the lock keep beside it.
  var ownFiles: [RawPath] {
    let base = path.absolute
    let resolved = (try? TreeWalker.realPath(base)) ?? base
    return [base, resolved].flatMap { path in
      ["", "-wal", "-shm", "-journal", ".lock"].map { RawPath(bytes: path.bytes + Array($0.utf8)) }
    }
  }

  /// A read-only connection of its own.
  var connectionOpener: @Sendable () throws -> any DatabaseConnection {
    let path = path
    return {
      let reader = try SQLiteConnection(path: path, create: false, readOnly: true)
      try reader.setBusyTimeout(milliseconds: 5000)
      // Mapped, the known files of a root are read without a system call per page.
      try reader.execute("PRAGMA mmap_size=\(Int64(1) << 40)")
      return reader
    }
  }

  /// One writer holds the whole catalogue (`WriterLock`), so a root needs no lock of its own.
  func lockRoot(_ path: RawPath, wait: Double) throws {}

  /// Inserts or replaces the row of `entry` (matched by path), and its full-text row.
  /// Writes a file's row and its full-text rows. Each is a statement that touches one table
  /// (a plain INSERT, or an UPDATE that leaves the path and root alone), never an upsert, a
  /// RETURNING or a trigger (but for a path another root holds): a statement that writes two tables opens a statement journal, and
  /// SQLite then asks every FTS5 table written in the transaction to flush its pending terms
  /// as a new segment (`xSavepoint`), which made each file's row cost the full-text index a
  /// segment merge. Writing the path trigrams here rather than by a trigger keeps them in
  /// memory until the commit.
  func upsert(_ entry: CatalogEntry, rootID: Int64, trusted: Bool, isNew: Bool) throws {
    let statements = try writeStatements()
    let values = CatalogSchema.fileValues(entry, rootID: rootID, trusted: trusted)
    let path = values[CatalogSchema.pathValueIndex]
    // A known file's row is updated in place; a new one (or one the caller could not tell) is
    // inserted.
    var updated = false
    if !isNew {
      try statements.update.run(CatalogSchema.updatedValues(values) + [path, .integer(rootID)])
      updated = db.changes > 0
    }
    var inserted = false
    if !updated {
      do {
        try statements.insert.run(values)
        inserted = true
      } catch {
        // The path is another root's (a root inside another): that root's row becomes this one's.
        guard error.code & 0xFF == 19 else { throw error }  // SQLITE_CONSTRAINT
        try statements.upsert.run(values)
      }
    }
    let id: Int64
    if inserted {
      id = db.lastInsertRowID
      try statements.pathsInsert.run([.integer(id), values[CatalogSchema.pathTextValueIndex]])
    } else {
      try statements.idByPath.bind([path])
      guard try statements.idByPath.step() else { return }
      id = statements.idByPath.integer(at: 0) ?? 0
      while try statements.idByPath.step() {}
      // An updated row may have a full-text row: it is written anew.
      try statements.ftsDelete.run([.integer(id)])
    }
    let (tags, body) = FactField.searchWords(entry)
    // Only tags and text are indexed; most files have neither and get no full-text row.
    if tags.isEmpty && body.isEmpty { return }
    try statements.ftsInsert.run([.integer(id), .text(tags), .text(body)])
  }

  /// The statements `upsert` runs, prepared once per store.
  private struct WriteStatements {
    var insert: SQLiteStatement
    /// Every written column but the path, its text and the root, by path and root.
    var update: SQLiteStatement
    var idByPath: SQLiteStatement
    /// For the rare path another root holds: the row moves to this root (the path trigram
    /// table follows by the `files_paths_update` trigger, which does not fire here).
    var upsert: SQLiteStatement
    var pathsInsert: SQLiteStatement
    var ftsDelete: SQLiteStatement
    var ftsInsert: SQLiteStatement
  }

  private func writeStatements() throws -> WriteStatements {
    if let writeStatementsPrepared { return writeStatementsPrepared }
    let columns = CatalogSchema.writtenFileColumns
    let placeholders = columns.map { _ in "?" }.joined(separator: ", ")
    let upsertSet = columns.filter { $0 != "path" }.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
    let updateSet = CatalogSchema.updatedFileColumns.map { "\($0) = ?" }.joined(separator: ", ")
    let prepared = WriteStatements(
      insert: try db.prepare("INSERT INTO files(\(columns.joined(separator: ", "))) VALUES(\(placeholders))"),
      update: try db.prepare("UPDATE files SET \(updateSet) WHERE path = ? AND root_id = ?"),
      idByPath: try db.prepare("SELECT id FROM files WHERE path = ?"),
      upsert: try db.prepare(
        "INSERT INTO files(\(columns.joined(separator: ", "))) VALUES(\(placeholders)) ON CONFLICT(path) DO UPDATE SET \(upsertSet)"
      ),
      pathsInsert: try db.prepare("INSERT INTO files_paths(rowid, path_text) VALUES(?, ?)"),
      ftsDelete: try db.prepare("DELETE FROM files_fts WHERE rowid = ?"),
      ftsInsert: try db.prepare("INSERT INTO files_fts(rowid, tags, body) VALUES(?, ?, ?)"))
    writeStatementsPrepared = prepared
    return prepared
  }

  /// Nothing is queued: each row is written at once.
  func writeQueuedRows() throws {}
  func writeQueuedRowsBeforeReading() {}
  func discardQueuedRows() {}

  /// Nothing: SQLite's queries here are planned from their indexes alone (no `sqlite_stat1`),
  /// as after any scan.
  func refreshPlannerStatistics() throws {}
}

/// What a file at a catalogue path is, told without changing it: from the SQLite header
/// (magic, `application_id`, `user_version`) and, for catalogues written before shelf stamped
/// its `application_id`, from their tables read through an immutable connection (which takes
/// no locks and creates no files).
enum CatalogFileIdentity: Equatable {
  case missing
  /// A shelf catalogue (possibly damaged past its header).
  case shelf
  /// Anything else: not SQLite, empty, or another program's database.
  case other

  /// The schemas that predate the `application_id` stamp.
  static let unstampedSchemas = 1..<CatalogSchema.firstIdentifiedVersion

  static func identify(_ path: RawPath) throws -> CatalogFileIdentity {
    let status: FileStatus
    switch Result(catching: { () throws(FileError) in try FileStatus.stat(path) }) {
    case .success(let found): status = found
    case .failure(let error):
      if error.isNoSuchFile { return .missing }
      throw error
    }
    guard status.type == .regular else { return .other }
    let header = try RegularFile(path: path).read(count: 100)
    guard header.count == 100, header.starts(with: Array("SQLite format 3".utf8) + [0]) else {
      return .other
    }
    func bigEndian(at offset: Int) -> UInt32 {
      header[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }
    let applicationID = bigEndian(at: 68)
    if applicationID == CatalogSchema.applicationID { return .shelf }
    guard applicationID == 0, unstampedSchemas.contains(Int(bigEndian(at: 60))) else { return .other }
    do {
      let db = try SQLiteConnection(path: path, create: false, immutable: true)
      func columns(_ table: String) throws -> Set<String> {
        Set(
          try db.query("SELECT name FROM pragma_table_info(?)", [.text(table)]).compactMap { $0.first?.text })
      }
      let shelfColumns =
        try columns("roots").isSuperset(of: ["id", "path", "path_text", "last_scan_ns"])
        && columns("files").isSuperset(of: ["root_id", "path", "extractor_version", "ext_mismatch"])
      return shelfColumns ? .shelf : .other
    } catch {
      // Unreadable tables in an unstamped file: nothing shows it is ours.
      return .other
    }
  }
}
