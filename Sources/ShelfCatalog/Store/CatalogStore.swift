import ShelfAudio
import ShelfBackup
import ShelfCore
import ShelfDatabase
import ShelfFacts

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A catalogue-level failure with a typed reason: the CLI turns the reason into advice (which
/// command to run), the library only says what is wrong.
public struct CatalogError: ShelfError, Equatable {
  /// Why the catalogue, or a root in it, could not be used.
  public enum Reason: Sendable, Equatable {
    /// There is no catalogue file at the path yet.
    case noCatalogue
    /// The file is not a shelf catalogue: not SQLite, empty, or another program's database.
    case notACatalogue
    /// The catalogue has an older schema, which only a writer (under the lock) migrates.
    case olderSchema(Int)
    /// The catalogue was written by a newer shelf (its version, when it recorded one); `reader`
    /// is the version of the shelf that tried to open it.
    case newerSchema(Int, writtenBy: String?, reader: String)
    /// Another writer holds the catalogue's lock.
    case busy
    /// The lock file could not be created or locked (the system's reason).
    case cannotLock(String)
    /// The path is not a root the catalogue knows.
    case unknownRoot
    /// Exclude patterns were given for a folder that lies inside the catalogued root named:
    /// patterns belong to a root, relative to its folder.
    case excludesBelongToRoot(RawPath)
    /// A scan stopped on request; what it committed is kept.
    case interrupted
    /// A copy's destination already holds roots or entries.
    case notEmpty
    /// A copy's destination is a SQLite catalogue, which holds one machine's roots, and the
    /// source holds several machines'.
    case severalHosts
    /// A copy ended with another number of entries than its source holds.
    case countMismatch(expected: Int, found: Int)
  }

  public var path: RawPath
  public var reason: Reason

  /// An error about the catalogue (or root) at `path`.
  public init(path: RawPath, reason: Reason) {
    self.path = path
    self.reason = reason
  }

  public var failure: FailureKind {
    switch reason {
    case .noCatalogue, .unknownRoot: .missingInput
    case .notACatalogue, .olderSchema, .newerSchema, .excludesBelongToRoot: .badInput
    case .busy: .busy
    case .cannotLock: .cannotCreate
    case .interrupted: .interrupted
    case .notEmpty: .cannotCreate
    case .severalHosts: .badInput
    case .countMismatch: .io
    }
  }

  /// What is wrong, without advice.
  public var explanation: String {
    switch reason {
    case .noCatalogue: "no catalogue yet"
    case .notACatalogue: "not a shelf catalogue"
    case .olderSchema(let schema):
      "the catalogue has schema \(schema), older than this shelf's schema \(CatalogSchema.version)"
    case .newerSchema(let schema, let writer, let reader):
      "catalogue was written by shelf \(writer ?? "of a later version") (schema \(schema)); this is shelf \(reader) (schema \(CatalogSchema.version))"
    case .busy: "catalogue is busy: another writer holds its lock"
    case .cannotLock(let message): "cannot lock the catalogue: \(message)"
    case .unknownRoot: "not a catalogued root"
    case .excludesBelongToRoot(let root):
      "lies inside the catalogued root \(root.escaped); exclude patterns are stored with that root"
    case .interrupted: "interrupted; what was scanned so far is kept"
    case .notEmpty: "the catalogue is not empty: a copy goes into a new or empty catalogue only"
    case .severalHosts:
      "a SQLite catalogue holds one machine's roots, and the source holds several machines'"
    case .countMismatch(let expected, let found):
      "the copy holds \(found) entries, the source \(expected)"
    }
  }

  public var description: String { "\(path.escaped): \(explanation)" }
}

/// A root folder the catalogue knows.
public struct CatalogRoot: Sendable, Equatable {
  public var id: Int64
  public var path: RawPath
  /// The machine whose folder it is: nil in a SQLite catalogue, which holds one machine's
  /// roots; a PostgreSQL catalogue shared by several machines names each root's host.
  public var host: String? = nil
  public var isSandbox: Bool
  public var bundle: BundleInfo?
  /// When the last scan of this root finished, in nanoseconds since the epoch.
  public var lastScanNanoseconds: Int64?
  /// The `--exclude` patterns every scan of this root applies, until replaced.
  public var excludes: [String] = []
  /// For an iPhone backup, the device and how the backup was written.
  public var backup: BackupRootFacts?
  /// The root this one was found in (a backup inside an indexed folder): it is listed under
  /// that root and forgotten with it. Nil for a root named to `index` itself.
  public var parentID: Int64? = nil

  /// True when the root's folder no longer exists (removed, renamed, or on a drive that is
  /// gone): a rescan skips it rather than emptying it.
  public var folderIsGone: Bool {
    if !isLocal { return false }
    if case .failure(let error) = Result(catching: { () throws(FileError) in try FileStatus.stat(path) }) {
      return error.isNoSuchFile
    }
    return false
  }
}

extension CatalogRoot {
  /// True when the root is on this machine (always, in a SQLite catalogue).
  public var isLocal: Bool { host == nil || host == CatalogHost.current }

  /// `host:/path` when the catalogue holds roots of several machines, else the path alone.
  public func displayName(showingHost: Bool) -> String {
    guard showingHost, let host else { return path.escaped }
    return host + ":" + path.escaped
  }
}

/// A root with the number and total size of its catalogued files, for `shelf roots`.
public struct CatalogRootListing: Sendable, Equatable {
  public var root: CatalogRoot
  /// How many entries the catalogue holds under the root.
  public var files: Int
  /// Their total size in bytes.
  public var size: Int64
}

/// A root `forgetRoot` dropped, with how many entries went with it.
public struct ForgottenRoot: Sendable, Equatable {
  public var root: CatalogRoot
  public var entries: Int
}

/// Counts, size and duration of a group of entries.
public struct CatalogGroupStats: Sendable, Equatable {
  public var name: String
  public var count: Int
  public var size: Int64
  public var duration: Double
}

/// Totals for `shelf stats`.
public struct CatalogStats: Sendable, Equatable {
  public var files: Int
  public var size: Int64
  /// The summed duration of the entries whose duration is plausible (see
  /// `CatalogStore.longestPlausibleDuration`).
  public var duration: Double
  /// Entries whose duration is not finite, negative or longer than a week: left out of
  /// every duration total.
  public var implausibleDurations: Int
  public var errors: Int
  public var mismatches: Int
  public var byKind: [CatalogGroupStats]
  public var byArea: [CatalogGroupStats]
  /// Photos (images with an EXIF date) by the year they were taken, oldest first.
  public var photosByYear: [CatalogGroupStats] = []
  public var roots: [CatalogRoot]
}

/// The columns `rootListings` reads, in the order selected: each root's entries counted and
/// their sizes summed.
private enum RootTotalColumn: Int, SelectedColumn {
  case rootID, count, size

  var sql: String {
    switch self {
    case .rootID: "root_id"
    case .count: "count(*)"
    case .size: "coalesce(sum(size), 0)"
    }
  }
}

/// The columns `forEachFileToCompare` reads, in the order selected.
private enum ComparedColumn: Int, SelectedColumn {
  case path, rootID, size, id

  var sql: String {
    switch self {
    case .path: "f.path"
    case .rootID: "f.root_id"
    case .size: "f.size"
    case .id: "f.id"
    }
  }
}

/// What the indexer knows about a catalogued file, to decide whether to read it again.
struct KnownFile: Sendable {
  var id: Int64
  var path: RawPath
  var size: Int64
  var mtime: Int64
  var ctime: Int64
  var inode: UInt64
  var device: UInt64
  var trusted: Bool
  var extractorVersion: Int
  /// Its last reading crashed, timed out or ran out of memory in a worker.
  var failedInWorker = false
}

/// The name of this machine in a shared catalogue: `SHELF_HOST` when set (a laptop whose host
/// name changes from network to network keeps one), else the system's host name.
public enum CatalogHost {
  /// This machine's name, read once.
  public static let current: String = {
    if let named = getenv("SHELF_HOST").map({ String(cString: $0) }), !named.isEmpty { return named }
    var buffer = [CChar](repeating: 0, count: 256)
    guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }()
}

/// Where a catalogue lives: a SQLite file (the default) or a PostgreSQL database that several
/// machines share.
public enum CatalogLocation: Sendable, Equatable, CustomStringConvertible {
  case file(RawPath)
  case postgres(PostgresURL)

  /// A `postgresql://` or `postgres://` URL names a server's database; anything else a file.
  public init(_ text: String) {
    self = PostgresURL(text).map { .postgres($0) } ?? .file(RawPath(text))
  }

  /// The catalogue as messages name it: the file's path, or the URL with its password masked.
  public var description: String {
    switch self {
    case .file(let path): path.escaped
    case .postgres(let url): url.masked
    }
  }

  /// The name a `CatalogError` carries for this catalogue.
  var errorPath: RawPath {
    switch self {
    case .file(let path): path
    case .postgres(let url): RawPath("catalogue " + url.masked)
    }
  }
}

/// The catalogue: entries and roots behind one interface, in a SQLite file or a PostgreSQL
/// database (see `CatalogLocation`). Use from one thread.
///
/// Readers never change it; a writer creates and migrates it, and indexes a root only while
/// it is that root's only indexer. A database that is not a shelf catalogue is refused by
/// both and never touched. The reads and writes are written here once for both databases;
/// what differs between them is the `CatalogEngine`'s.
public final class CatalogStore {
  let engine: any CatalogEngine
  /// The engine's connection, which every statement here runs on.
  let connection: any DatabaseConnection
  let dialect: SQLDialect
  /// The engine's host filter (see `CatalogEngine.host`).
  let host: String?
  /// True while a transaction is open: one of `transaction(_:)`, or the one
  /// `transaction(continuing:_:)` leaves open until `commitPending`.
  var pendingTransaction = false

  init(_ engine: any CatalogEngine) {
    self.engine = engine
    connection = engine.connection
    dialect = engine.dialect
    host = engine.host
  }

  /// Opens an existing catalogue for reading, as reader commands do: nothing is created,
  /// migrated or moved. `shelfVersion` names this shelf in the error about a newer schema.
  public static func openForReading(at location: CatalogLocation, shelfVersion: String) throws -> CatalogStore
  {
    switch location {
    case .file(let path):
      CatalogStore(try SQLiteEngine.openForReading(at: path, shelfVersion: shelfVersion))
    case .postgres(let url):
      CatalogStore(
        try PostgresEngine.open(url, shelfVersion: shelfVersion, writing: false, create: false))
    }
  }

  /// Opens the SQLite catalogue at `path` for reading.
  public static func openForReading(at path: RawPath, shelfVersion: String) throws -> CatalogStore {
    try openForReading(at: .file(path), shelfVersion: shelfVersion)
  }

  /// Opens the catalogue for writing: creates it when missing and `create` is set, migrates
  /// an older schema, and records `shelfVersion` as its writer. A SQLite catalogue has one
  /// writer at a time (waiting up to `lockWait` seconds for the lock); a PostgreSQL one has
  /// one per root (see `Indexer`). A damaged SQLite file is moved aside and rebuilt (see
  /// `movedAsideCorruptFile`).
  public static func openForWriting(
    at location: CatalogLocation, shelfVersion: String, lockWait: Double = 2, create: Bool = true
  ) throws -> CatalogStore {
    switch location {
    case .file(let path):
      CatalogStore(
        try SQLiteEngine.openForWriting(
          at: path, shelfVersion: shelfVersion, lockWait: lockWait, create: create))
    case .postgres(let url):
      CatalogStore(
        try PostgresEngine.open(url, shelfVersion: shelfVersion, writing: true, create: create))
    }
  }

  /// Opens the SQLite catalogue at `path` for writing.
  public static func openForWriting(
    at path: RawPath, shelfVersion: String, lockWait: Double = 2, create: Bool = true
  ) throws -> CatalogStore {
    try openForWriting(at: .file(path), shelfVersion: shelfVersion, lockWait: lockWait, create: create)
  }

  /// Where the catalogue is.
  public var location: CatalogLocation { engine.location }

  /// Where a damaged catalogue was moved before this one was created, if that happened.
  public var movedAsideCorruptFile: RawPath? { engine.movedAsideCorruptFile }

  /// Moves this (damaged) SQLite catalogue aside and returns a fresh one in its place (see
  /// `movedAsideCorruptFile`), holding the same lock. Writers call this when an error mid-scan
  /// is damage (`isDamage`).
  public func movingAsideAndRebuilding(shelfVersion: String) throws -> CatalogStore {
    CatalogStore(try engine.movingAsideAndRebuilding(shelfVersion: shelfVersion))
  }

  /// True when `error`, thrown while writing this catalogue, says its file is damaged (SQLite's
  /// corruption), so that the writer moves it aside and rebuilds it.
  package func isDamage(_ error: any Error) -> Bool { engine.isDamage(error) }

  // MARK: Roots

  /// Every root the catalogue knows (of every machine), in path order.
  public func roots() throws -> [CatalogRoot] {
    writeQueuedRowsBeforeReading()
    return try connection.query(
      "SELECT \(CatalogSchema.rootColumns(dialect)) FROM roots ORDER BY \(dialect.rootOrder)", []
    ) { Self.root(from: $0) }
  }

  /// The roots of this machine, in path order: the only ones it scans, forgets or resolves
  /// paths against.
  public func localRoots() throws -> [CatalogRoot] { try roots().filter(\.isLocal) }

  /// True when the catalogue holds roots of more than one machine: listings then name each
  /// entry's and root's host.
  public func hasSeveralHosts() throws -> Bool { Set(try roots().map(\.host)).count > 1 }

  /// Every root with the number and total size of its entries, in path order.
  public func rootListings() throws -> [CatalogRootListing] {
    var byRoot: [Int64: (Int, Int64)] = [:]
    typealias Column = RootTotalColumn
    try connection.forEachRow("SELECT \(Column.selectList) FROM files GROUP BY root_id", []) { row in
      func integer(_ column: Column) -> Int64 { row.integer(at: column.rawValue) ?? 0 }
      byRoot[integer(.rootID)] = (Int(integer(.count)), integer(.size))
    }
    return try roots().map { root in
      let (files, size) = byRoot[root.id] ?? (0, 0)
      return CatalogRootListing(root: root, files: files, size: size)
    }
  }

  /// This machine's catalogued root at `path`: its exact path, else the folder it resolves to.
  public func root(at path: RawPath) throws -> CatalogRoot? {
    let known = try localRoots()
    let absolute = path.absolute
    if let root = known.first(where: { $0.path == absolute }) { return root }
    guard let resolved = try? TreeWalker.realPath(absolute) else { return nil }
    return known.first { $0.path == resolved }
  }

  /// Drops a root of this machine and its entries from the catalogue, with the roots found in
  /// it (its backups) and theirs (the files on disk are not touched). Returns what went,
  /// the roots found in it first; throws `.unknownRoot` when no root is at `path`, `.busy`
  /// while another writer indexes one of them.
  @discardableResult
  public func forgetRoot(_ path: RawPath, lockWait: Double = 2) throws -> [ForgottenRoot] {
    guard let root = try root(at: path) else { throw CatalogError(path: path, reason: .unknownRoot) }
    let nested = try localRoots().filter { $0.parentID == root.id }
    var forgotten: [ForgottenRoot] = []
    for inner in nested + [root] {
      try lockRoot(inner.path, wait: lockWait)
      forgotten.append(ForgottenRoot(root: inner, entries: try forgetRoot(id: inner.id)))
    }
    return forgotten
  }

  /// Drops a root and its entries (the files on disk are not touched); returns how many went.
  func forgetRoot(id: Int64) throws -> Int {
    try transaction {
      let id = DatabaseValue.integer(id)
      let count = try connection.integer("SELECT count(*) FROM files WHERE root_id = ?", [id]) ?? 0
      if let fullText = dialect.fullTextTable {
        try connection.run(
          "DELETE FROM \(fullText) WHERE rowid IN (SELECT id FROM files WHERE root_id = ?)", [id])
      }
      try connection.run("DELETE FROM files WHERE root_id = ?", [id])
      try connection.run("DELETE FROM roots WHERE id = ?", [id])
      return Int(count)
    }
  }

  // MARK: Reading

  /// The SQL and parameters that keep a read to this machine's roots, after a condition on
  /// `roots r`: none in a catalogue of one machine.
  var hostCondition: (sql: String, parameters: [DatabaseValue]) {
    host.map { (" AND r.host = ?", [.text($0)]) } ?? ("", [])
  }

  /// The catalogue's entry for an absolute path on this machine, if any.
  public func entry(path: RawPath) throws -> CatalogEntry? {
    writeQueuedRowsBeforeReading()
    let (hostSQL, hostParameters) = hostCondition
    return try connection.query(
      "SELECT \(CatalogSchema.entryColumns(dialect)) FROM files f JOIN roots r ON r.id = f.root_id WHERE f.path = ?\(hostSQL)",
      [.blob(path.bytes)] + hostParameters
    ) { Self.entry(from: $0) }.first
  }

  /// The entries matching `query`, sorted (by each of `sort` in turn, then by path) and limited.
  public func entries(matching query: CatalogQuery, sort: [CatalogSort] = [], limit: Int? = nil) throws
    -> [CatalogEntry]
  {
    var entries: [CatalogEntry] = []
    try forEachEntry(matching: query, sort: sort, limit: limit) { entries.append($0) }
    return entries
  }

  /// Calls `body` for each entry matching `query`, without holding them all in memory. For a
  /// `listing` (the `ls` table), only what it shows is read and decoded (see
  /// `CatalogSchema.EntryReading`).
  public func forEachEntry(
    matching query: CatalogQuery, sort: [CatalogSort] = [], limit: Int? = nil, listing: Bool = false,
    _ body: (CatalogEntry) throws -> Void
  ) throws {
    writeQueuedRowsBeforeReading()
    let (sql, parameters) = try CatalogReading.select(
      CatalogSchema.entryColumns(dialect, listing ? .listing : .full), matching: query, sort: sort,
      limit: limit, dialect)
    let reading: CatalogSchema.EntryReading = listing ? .listing : .full
    try connection.forEachRow(sql, parameters) { try body(Self.entry(from: $0, reading)) }
  }

  /// The entries matching `query` with what comparing contents needs of them (see
  /// the fields marked `compared`: no tags, text or EXIF), in path order.
  public func entriesToCompare(matching query: CatalogQuery) throws -> [CatalogEntry] {
    writeQueuedRowsBeforeReading()
    let (sql, parameters) = try CatalogReading.select(
      CatalogSchema.entryColumns(dialect, .comparison), matching: query, sort: [], limit: nil, dialect)
    return try connection.query(sql, parameters) { Self.entry(from: $0, .comparison) }
  }

  /// Calls `body` with each file matching `query` as comparing contents needs it (`dupes`,
  /// `copies`): path, size, whether it is a backup entry (the entries of a backup's root);
  /// nothing else is read, not even the times (`DuplicateFinder` takes them from the files), in
  /// no particular order (the groups are ordered once found), each root's path made once.
  func forEachFileToCompare(matching query: CatalogQuery, _ body: (ComparedFile) throws -> Void) throws {
    writeQueuedRowsBeforeReading()
    let roots = Dictionary(try self.roots().map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    let (whereSQL, parameters) = try query.sql(dialect)
    typealias Column = ComparedColumn
    let sql = "SELECT \(Column.selectList) FROM files f JOIN roots r ON r.id = f.root_id WHERE \(whereSQL)"
    // Rows come root by root: the last root found is mostly the next one's.
    var root: CatalogRoot?
    try connection.forEachRow(sql, parameters) { row in
      let rootID = row.integer(at: Column.rootID.rawValue)
      if root?.id != rootID { root = rootID.flatMap { roots[$0] } }
      try body(
        ComparedFile(
          path: RawPath(bytes: row.blob(at: Column.path.rawValue)), root: root?.path,
          size: row.integer(at: Column.size.rawValue) ?? 0, mtimeNanoseconds: 0,
          isBackupEntry: root?.backup != nil, host: root?.host, id: row.integer(at: Column.id.rawValue) ?? 0))
    }
  }

  /// The paths of matching entries only (fast path for `-0` and players).
  public func paths(matching query: CatalogQuery, sort: [CatalogSort] = [], limit: Int? = nil) throws
    -> [RawPath]
  {
    writeQueuedRowsBeforeReading()
    let (sql, parameters) = try CatalogReading.select(
      "f.path", matching: query, sort: sort, limit: limit, dialect)
    return try connection.query(sql, parameters) { RawPath(bytes: $0.blob(at: 0)) }
  }

  /// The longest duration (a week, in seconds) summed into totals: a longer, infinite or
  /// negative one comes from a header that lies, and would make every total absurd.
  public static let longestPlausibleDuration: Double = 7 * 24 * 3600

  /// Totals by kind and by area of the entries matching `query`, with the roots that hold
  /// them; durations that are not plausible are counted, not summed.
  public func stats(matching query: CatalogQuery = .all) throws -> CatalogStats {
    writeQueuedRowsBeforeReading()
    var totals = CatalogTotals()
    guard query.groups.isEmpty else {
      let (sql, parameters) = try CatalogTotals.sql(matching: query, dialect)
      try connection.forEachRow(sql, parameters) { totals.add($0) }
      return totals.stats(roots: try roots().filter { totals.rootIDs.contains($0.id) })
    }
    try connection.forEachRow(CatalogTotals.sql(dialect), []) { totals.add($0) }
    // SQLite's rows do not carry the years of the photos (see `CatalogTotals.sql`).
    let photosByYear = dialect.totalsCarryPhotoYears ? nil : try self.photosByYear()
    return totals.stats(photosByYear: photosByYear, roots: try roots())
  }

  /// Images with an EXIF date, counted by the year it names.
  private func photosByYear() throws -> [CatalogGroupStats] {
    typealias Column = CatalogTotals.YearColumn
    return try connection.query(CatalogTotals.photosByYear, []) { row in
      CatalogGroupStats(
        name: row.text(at: Column.year.rawValue) ?? "",
        count: Int(row.integer(at: Column.count.rawValue) ?? 0),
        size: row.integer(at: Column.size.rawValue) ?? 0, duration: 0)
    }
  }

  // MARK: Rows

  /// Decodes a row of `CatalogSchema.rootColumns`.
  static func root(from row: some DatabaseRow) -> CatalogRoot {
    typealias Column = CatalogSchema.RootColumn
    func text(_ column: Column) -> String? { row.text(at: column.rawValue) }
    func integer(_ column: Column) -> Int64? { row.integer(at: column.rawValue) }
    var bundle: BundleInfo?
    if text(.bundlePath) != nil {
      bundle = BundleInfo(
        identifier: text(.bundleID), name: text(.bundleName), version: text(.bundleVersion),
        bundlePath: RawPath(bytes: row.blob(at: Column.bundlePath.rawValue)))
    }
    var backup: BackupRootFacts?
    // An era this shelf does not know (named by a newer one) reads as the newest it knows.
    if let format = text(.backupFormat) {
      backup = BackupRootFacts(
        deviceName: text(.backupDevice), productType: text(.backupProduct), iosVersion: text(.backupIOS),
        date: text(.backupDate), isEncrypted: integer(.backupEncrypted) == 1,
        format: BackupFormat(rawValue: format) ?? .manifestDB)
    }
    return CatalogRoot(
      id: integer(.id) ?? 0, path: RawPath(bytes: row.blob(at: Column.path.rawValue)), host: text(.host),
      isSandbox: integer(.isSandbox) == 1, bundle: bundle, lastScanNanoseconds: integer(.lastScan),
      excludes: ExcludeRules.storedPatterns(text(.excludes)), backup: backup, parentID: integer(.parentID))
  }

  /// Decodes a row of `CatalogSchema.entryColumns(_:reading)`: each field read sets its fact from
  /// its column (a NULL leaves it unknown), in table order, which reads a kind's first column (a
  /// sound's duration, a text's encoding) before the others of its kind.
  static func entry(from row: some DatabaseRow, _ reading: CatalogSchema.EntryReading = .full) -> CatalogEntry
  {
    var entry = CatalogEntry(blankForRow: ())
    for (index, column) in reading.columns.enumerated() {
      guard let read = column.reader?.read else { continue }
      let value: DatabaseValue
      switch column.type {
      case .integer: value = row.integer(at: index).map { .integer($0) } ?? .null
      case .real: value = row.real(at: index).map { .real($0) } ?? .null
      case .text: value = row.text(at: index).map { .text($0) } ?? .null
      case .blob:
        let bytes = row.blob(at: index)
        value = bytes.isEmpty ? .null : .blob(bytes)
      }
      if value != .null { read(&entry, value) }
    }
    entry.finishReading()
    return entry
  }
}
