import ShelfAudio
import ShelfCore

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
    }
  }

  public var description: String { "\(path.escaped): \(explanation)" }
}

/// A root folder the catalogue knows.
public struct CatalogRoot: Sendable, Equatable {
  public var id: Int64
  public var path: RawPath
  public var isSandbox: Bool
  public var bundle: BundleInfo?
  /// When the last scan of this root finished, in nanoseconds since the epoch.
  public var lastScanNanoseconds: Int64?
  /// The `--exclude` patterns every scan of this root applies, until replaced.
  public var excludes: [String] = []
  /// For an iPhone backup, the device and how the backup was written.
  public var backup: BackupRootFacts?

  /// True when the root's folder no longer exists (removed, renamed, or on a drive that is
  /// gone): a rescan skips it rather than emptying it.
  public var folderIsGone: Bool {
    if case .failure(let error) = Result(catching: { () throws(FileError) in try FileStatus.stat(path) }) {
      return error.isNoSuchFile
    }
    return false
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
}

/// The SQLite catalogue: the one owner of its database connection (use from one thread).
///
/// Readers open it read-only and never change it; a writer holds the `WriterLock` for as long
/// as the store lives, and is the only one that creates, migrates or moves aside a damaged
/// catalogue. A file that is not a shelf catalogue is refused by both and never touched.
public final class CatalogStore {
  /// The database file.
  public let path: RawPath
  /// Where a damaged catalogue was moved before this one was created, if that happened.
  public private(set) var movedAsideCorruptFile: RawPath?
  let db: SQLiteConnection
  /// The writer lock, held for the life of a writer; nil for a reader.
  private let lock: WriterLock?
  private var upsertStatement: SQLiteStatement?
  private var ftsDelete: SQLiteStatement?
  private var ftsInsert: SQLiteStatement?

  private init(path: RawPath, db: SQLiteConnection, lock: WriterLock?) {
    self.path = path
    self.db = db
    self.lock = lock
  }

  deinit {
    guard lock != nil else { return }
    upsertStatement = nil
    ftsDelete = nil
    ftsInsert = nil
    // Back to a rollback journal when no reader is in: a read-only connection to a WAL
    // database has to create -wal and -shm files beside it (and cannot remove them), so
    // readers of an idle catalogue leave nothing behind. Busy readers keep it in WAL.
    try? db.setBusyTimeout(milliseconds: 0)
    _ = try? db.query("PRAGMA journal_mode=DELETE")
  }

  /// Opens an existing catalogue read-only, as reader commands do: nothing is created,
  /// migrated or moved. `shelfVersion` names this shelf in the error about a newer schema.
  public static func openForReading(at path: RawPath, shelfVersion: String) throws -> CatalogStore {
    switch try CatalogFileIdentity.identify(path) {
    case .missing: throw CatalogError(path: path, reason: .noCatalogue)
    case .other: throw CatalogError(path: path, reason: .notACatalogue)
    case .shelf: break
    }
    let db = try readOnlyConnection(path)
    try db.execute("PRAGMA cache_size=-32768; PRAGMA temp_store=MEMORY")
    let store = CatalogStore(path: path, db: db, lock: nil)
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
  public static func openForWriting(
    at path: RawPath, shelfVersion: String, lockWait: Double = 2, create: Bool = true
  ) throws -> CatalogStore {
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
    -> CatalogStore
  {
    let db = try SQLiteConnection(path: path, create: false)
    try db.setBusyTimeout(milliseconds: 5000)
    // A damaged file fails here, before anything is written to it.
    _ = try db.query("SELECT count(*) FROM sqlite_master")
    let store = CatalogStore(path: path, db: db, lock: nil)
    // A newer schema is refused before anything (even the journal mode) changes.
    let schema = try store.schemaVersion()
    if schema > CatalogSchema.version {
      throw CatalogError(
        path: path, reason: .newerSchema(schema, writtenBy: try store.writerVersion(), reader: shelfVersion))
    }
    _ = try? db.query("PRAGMA journal_mode=WAL")
    try db.execute(
      "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA cache_size=-32768; PRAGMA temp_store=MEMORY")
    let writer = CatalogStore(path: path, db: db, lock: lock)
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
      if CatalogSchema.upgrades[version] == nil {
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
      while let step = CatalogSchema.upgrades[version], version < CatalogSchema.version {
        try db.execute(step)
        version += 1
      }
      try Self.stampIdentity(db, shelfVersion: shelfVersion)
    }
  }

  /// Moves this (damaged) catalogue aside and returns a fresh one in its place (see
  /// `movedAsideCorruptFile`), holding the same lock. Writers call this when SQLite reports
  /// corruption mid-scan.
  public func movingAsideAndRebuilding(shelfVersion: String) throws -> CatalogStore {
    guard let lock else { preconditionFailure("only a writer moves the catalogue aside") }
    upsertStatement = nil
    ftsDelete = nil
    ftsInsert = nil
    try? db.close()
    let aside = try Self.moveAside(path)
    try Self.createFile(at: path, shelfVersion: shelfVersion)
    let fresh = try Self.connectWriter(path, lock: lock, shelfVersion: shelfVersion)
    fresh.movedAsideCorruptFile = aside
    return fresh
  }

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

  // MARK: Roots

  /// Every root the catalogue knows, in path order.
  public func roots() throws -> [CatalogRoot] {
    try db.query(
      "SELECT id, path, is_sandbox, bundle_path, bundle_id, bundle_name, bundle_version, last_scan_ns, excludes, backup_device, backup_product, backup_ios, backup_date, backup_encrypted, backup_format FROM roots ORDER BY path"
    ).map(Self.root(from:))
  }

  private static func root(from row: [SQLiteValue]) -> CatalogRoot {
    var bundle: BundleInfo?
    if let bundlePath = row[3].bytes {
      bundle = BundleInfo(
        identifier: row[4].text, name: row[5].text, version: row[6].text,
        bundlePath: RawPath(bytes: bundlePath))
    }
    var backup: BackupRootFacts?
    if let format = row[14].text {
      backup = BackupRootFacts(
        deviceName: row[9].text, productType: row[10].text, iosVersion: row[11].text, date: row[12].text,
        isEncrypted: row[13].integer == 1, format: format)
    }
    return CatalogRoot(
      id: row[0].integer ?? 0, path: RawPath(bytes: row[1].bytes ?? []), isSandbox: row[2].integer == 1,
      bundle: bundle, lastScanNanoseconds: row[7].integer, excludes: ExcludeRules.storedPatterns(row[8].text),
      backup: backup)
  }

  /// Every root with the number and total size of its entries, in path order.
  public func rootListings() throws -> [CatalogRootListing] {
    let usage = try db.query("SELECT root_id, count(*), coalesce(sum(size), 0) FROM files GROUP BY root_id")
    var byRoot: [Int64: (Int, Int64)] = [:]
    for row in usage { byRoot[row[0].integer ?? 0] = (Int(row[1].integer ?? 0), row[2].integer ?? 0) }
    return try roots().map { root in
      let (files, size) = byRoot[root.id] ?? (0, 0)
      return CatalogRootListing(root: root, files: files, size: size)
    }
  }

  /// The catalogued root at `path`: its exact path, else the folder it resolves to now.
  public func root(at path: RawPath) throws -> CatalogRoot? {
    let known = try roots()
    let absolute = path.absolute
    if let root = known.first(where: { $0.path == absolute }) { return root }
    guard let resolved = try? TreeWalker.realPath(absolute) else { return nil }
    return known.first { $0.path == resolved }
  }

  /// Replaces the exclude patterns stored with a root (empty patterns are dropped; none left
  /// clears them).
  func setExcludes(rootID: Int64, patterns: [String]) throws {
    let kept = patterns.filter { !$0.isEmpty }
    try db.run(
      "UPDATE roots SET excludes = ? WHERE id = ?",
      [kept.isEmpty ? .null : .text(ExcludeRules.storedText(kept)), .integer(rootID)])
  }

  /// The id of the root at `path`, added when new.
  func rootID(for path: RawPath) throws -> Int64 {
    if let id = try db.query("SELECT id FROM roots WHERE path = ?", [.blob(path.bytes)]).first?.first?.integer
    {
      return id
    }
    try db.run("INSERT INTO roots(path, path_text) VALUES(?, ?)", [.blob(path.bytes), .text(path.escaped)])
    return db.lastInsertRowID
  }

  /// Records what a scan learnt about a root.
  func updateRoot(id: Int64, layout: SandboxLayout, bundle: BundleInfo?, scannedAt: Int64?) throws {
    try db.run(
      "UPDATE roots SET is_sandbox = ?, bundle_path = ?, bundle_id = ?, bundle_name = ?, bundle_version = ?, last_scan_ns = coalesce(?, last_scan_ns) WHERE id = ?",
      [
        .from(layout.isSandbox), bundle.map { .blob($0.bundlePath.bytes) } ?? .null,
        .from(bundle?.identifier),
        .from(bundle?.name), .from(bundle?.version), .from(scannedAt), .integer(id),
      ])
  }

  /// Records what a backup root is (device, iOS version, date, encryption, era).
  func updateBackupRoot(id: Int64, facts: BackupRootFacts) throws {
    try db.run(
      "UPDATE roots SET backup_device = ?, backup_product = ?, backup_ios = ?, backup_date = ?, backup_encrypted = ?, backup_format = ? WHERE id = ?",
      [
        .from(facts.deviceName), .from(facts.productType), .from(facts.iosVersion), .from(facts.date),
        .from(facts.isEncrypted), .text(facts.format), .integer(id),
      ])
  }

  /// Moves the entries of root `inner` to root `outer` and forgets `inner` (a new root that
  /// contains it takes it over).
  func mergeRoot(_ inner: Int64, into outer: Int64) throws {
    try db.run("UPDATE files SET root_id = ? WHERE root_id = ?", [.integer(outer), .integer(inner)])
    try db.run("DELETE FROM roots WHERE id = ?", [.integer(inner)])
  }

  /// Drops a root and its entries from the catalogue (the files on disk are not touched) and
  /// returns how many entries went; throws `.unknownRoot` when no root is at `path`.
  @discardableResult
  public func forgetRoot(_ path: RawPath) throws -> Int {
    guard let root = try root(at: path) else { throw CatalogError(path: path, reason: .unknownRoot) }
    return try db.transaction {
      let id = SQLiteValue.integer(root.id)
      let count =
        try db.query("SELECT count(*) FROM files WHERE root_id = ?", [id]).first?.first?.integer ?? 0
      try db.run("DELETE FROM files_fts WHERE rowid IN (SELECT id FROM files WHERE root_id = ?)", [id])
      try db.run("DELETE FROM files WHERE root_id = ?", [id])
      try db.run("DELETE FROM roots WHERE id = ?", [id])
      return Int(count)
    }
  }

  // MARK: Files (writer side)

  /// What is known about the files of a root, by path.
  func knownFiles(rootID: Int64) throws -> [PathKey: KnownFile] {
    try Self.knownFiles(db: db, rootID: rootID)
  }

  /// What is known about the files of a root, read through any connection to the catalogue.
  static func knownFiles(db: SQLiteConnection, rootID: Int64) throws -> [PathKey: KnownFile] {
    let statement = try db.prepare(
      "SELECT id, path, size, mtime_ns, ctime_ns, inode, device, trusted, extractor_version FROM files WHERE root_id = ?"
    )
    try statement.bind([.integer(rootID)])
    var known: [PathKey: KnownFile] = [:]
    let count =
      try db.query("SELECT count(*) FROM files WHERE root_id = ?", [.integer(rootID)]).first?.first?.integer
      ?? 0
    known.reserveCapacity(Int(count))
    while try statement.step() {
      let path = RawPath(bytes: statement.blob(at: 1))
      known[PathKey(path.bytes)] = KnownFile(
        id: statement.integer(at: 0) ?? 0, path: path, size: statement.integer(at: 2) ?? -1,
        mtime: statement.integer(at: 3) ?? 0, ctime: statement.integer(at: 4) ?? 0,
        inode: UInt64(bitPattern: statement.integer(at: 5) ?? 0),
        device: UInt64(bitPattern: statement.integer(at: 6) ?? 0),
        trusted: statement.integer(at: 7) == 1, extractorVersion: Int(statement.integer(at: 8) ?? 0))
    }
    return known
  }

  private static let fileColumns = [
    "root_id", "path", "path_text", "name", "ext", "area", "kind", "mime", "detected_by", "ext_mismatch",
    "size", "mtime_ns", "ctime_ns", "inode", "device", "trusted", "extractor_version", "error",
    "width", "height", "bit_depth", "color_type", "alpha", "interlaced", "cgbi", "frames", "image_format",
    "chunks",
    "duration", "sample_rate", "channels", "audio_frames", "format", "subtype", "title", "artist", "album",
    "date", "year", "track", "track_no", "genre", "comment",
    "encoding", "bom", "line_endings", "lines", "words", "chars", "first_line",
    "plist_format", "plist_root", "plist_keys",
    "backup_domain", "backup_app", "backup_file_id", "backup_protection", "backup_mode",
    "codec", "bitrate", "album_artist", "disc", "disc_total", "track_total", "artwork", "frame_rate",
    "rotation", "audio_codec", "taken",
    "camera", "lens", "orientation", "gps_lat", "gps_lon", "gps_alt", "software", "content_id",
  ]

  /// Inserts or replaces the row of `entry` (matched by path), and its full-text row.
  func upsert(_ entry: CatalogEntry, rootID: Int64, trusted: Bool, searchText: String, isNew: Bool = false)
    throws
  {
    if upsertStatement == nil {
      let columns = Self.fileColumns
      let updates = columns.filter { $0 != "path" }.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
      upsertStatement = try db.prepare(
        "INSERT INTO files(\(columns.joined(separator: ", "))) VALUES(\(columns.map { _ in "?" }.joined(separator: ", "))) ON CONFLICT(path) DO UPDATE SET \(updates) RETURNING id"
      )
      ftsDelete = try db.prepare("DELETE FROM files_fts WHERE rowid = ?")
      ftsInsert = try db.prepare("INSERT INTO files_fts(rowid, tags, body) VALUES(?, ?, ?)")
    }
    let name = entry.path.lastComponent
    let nameText = String(decoding: name.bytes, as: UTF8.self)
    let pathText = String(decoding: entry.path.bytes, as: UTF8.self)
    let image = entry.image
    let audio = entry.audio
    let text = entry.text
    let plist = entry.plist
    let video = entry.video
    // A video shares the picture and sound columns (width, duration, rate…) so that one query
    // (`width>=1920`, `duration>60`) finds images, sounds and videos alike.
    let width = video?.width ?? image?.width
    let height = video?.height ?? image?.height
    let duration = video?.duration ?? audio?.duration
    let sampleRate = video?.sampleRate ?? audio?.sampleRate
    let channels = video?.channels ?? audio?.channels
    let values: [SQLiteValue] = [
      .integer(rootID), .blob(entry.path.bytes), .text(pathText), .text(nameText), .text(entry.fileExtension),
      .text(entry.area), .text(entry.kind.rawValue), .text(entry.mime), .text(entry.detectedBy.rawValue),
      .from(entry.extensionMismatch), .integer(entry.size), .integer(entry.mtimeNanoseconds),
      .integer(entry.ctimeNanoseconds), .integer(Int64(bitPattern: entry.inode)),
      .integer(Int64(bitPattern: entry.device)), .from(trusted), .integer(Int64(entry.extractorVersion)),
      .from(entry.error),
      .from(width), .from(height), .from(image?.bitDepth), .from(image?.colorType),
      .from(image?.alpha), .from(image?.interlaced), .from(image?.cgbi), .from(image?.frames),
      .from(image?.format), image.map { .text($0.chunks.joined(separator: " ")) } ?? .null,
      .from(duration), .from(sampleRate), .from(channels), .from(audio?.frames),
      .from(audio?.format ?? video?.format), .from(audio?.subtype), .from(audio?.title ?? video?.title),
      .from(audio?.artist),
      .from(audio?.album), .from(audio?.date), .from(audio?.year), .from(audio?.track),
      .from(audio?.trackNumber), .from(audio?.genre), .from(audio?.comment),
      .from(text?.encoding.rawValue), .from(text?.bom), .from(text?.lineEndings), .from(text?.lines),
      .from(text?.words), .from(text?.chars), .from(text?.firstLine),
      .from(plist?.format), .from(plist?.root), plist.map { .text($0.keys.joined(separator: "\n")) } ?? .null,
      .from(entry.backup?.domain), .from(entry.backup?.app), .from(entry.backup?.fileID),
      .from(entry.backup?.protectionClass), .from(entry.backup.map { Int($0.mode) }),
      .from(audio?.codec ?? video?.codec), .from(audio?.bitrate ?? video?.bitrate),
      .from(audio?.tags.albumArtist),
      .from(audio?.tags.disc), .from(audio?.tags.discTotal), .from(audio?.tags.trackTotal),
      .from(audio?.artwork),
      .from(video?.frameRate), .from(video?.rotation), .from(video?.audioCodec),
      .from(video?.taken ?? entry.exif?.taken),
      .from(entry.exif?.camera), .from(entry.exif?.lens), .from(entry.exif?.orientation),
      .from(entry.exif?.gps?.latitude), .from(entry.exif?.gps?.longitude), .from(entry.exif?.gps?.altitude),
      .from(entry.exif?.software), .from(entry.contentIdentifier),
    ]
    try upsertStatement!.bind(values)
    guard try upsertStatement!.step() else { return }
    let id = upsertStatement!.integer(at: 0) ?? 0
    while try upsertStatement!.step() {}
    // A new file has no full-text row yet (unless another root listed the same path).
    if !isNew { try ftsDelete!.run([.integer(id)]) }
    var tags = ""
    if let audio {
      tags = [
        audio.title, audio.artist, audio.album, audio.tags.albumArtist, audio.genre, audio.comment,
        audio.date,
      ].compactMap { $0 }.joined(separator: " ")
    } else if let title = video?.title {
      tags = title
    } else if let plist {
      tags = plist.keys.joined(separator: " ")
    }
    let body = text != nil ? searchText : ""
    // Only tags and text are indexed; most files have neither and get no full-text row.
    if tags.isEmpty && body.isEmpty { return }
    let row: [SQLiteValue] = [.integer(id), .text(tags), .text(body)]
    do {
      try ftsInsert!.run(row)
    } catch {
      guard isNew && error.code & 0xFF == 19 else { throw error }  // SQLITE_CONSTRAINT
      try ftsDelete!.run([.integer(id)])
      try ftsInsert!.run(row)
    }
  }

  /// Removes one file's rows.
  func deleteFile(id: Int64) throws {
    try db.run("DELETE FROM files WHERE id = ?", [.integer(id)])
    try db.run("DELETE FROM files_fts WHERE rowid = ?", [.integer(id)])
  }

  /// Records that a file moved (same inode and size): new path and status, facts kept.
  func moveFile(id: Int64, to path: RawPath, area: String, status: FileStatus, trusted: Bool) throws {
    let name = String(decoding: path.lastComponent.bytes, as: UTF8.self)
    let pathText = String(decoding: path.bytes, as: UTF8.self)
    try db.run(
      "UPDATE files SET path = ?, path_text = ?, name = ?, ext = ?, area = ?, mtime_ns = ?, ctime_ns = ?, trusted = ? WHERE id = ?",
      [
        .blob(path.bytes), .text(pathText), .text(name), .text(path.lowercasedExtension), .text(area),
        .integer(status.mtimeNanoseconds), .integer(status.ctimeNanoseconds), .from(trusted), .integer(id),
      ])

  }

  /// Runs `body` in one transaction.
  func transaction<R>(_ body: () throws -> R) throws -> R { try db.transaction(body) }

  private var pendingTransaction = false

  /// Runs `body` inside a transaction left open for the next call, until `commitPending`.
  func transaction(continuing: Bool, _ body: () throws -> Void) throws {
    if !pendingTransaction {
      try db.execute("BEGIN IMMEDIATE")
      pendingTransaction = true
    }
    try body()
  }

  /// Commits the transaction `transaction(continuing:)` left open, if any.
  func commitPending() throws {
    guard pendingTransaction else { return }
    try db.execute("COMMIT")
    pendingTransaction = false
  }

  /// Rolls back an open transaction (after a failure), if any.
  func rollbackPending() {
    guard pendingTransaction else { return }
    try? db.execute("ROLLBACK")
    pendingTransaction = false
  }

  // MARK: Reading

  /// The catalogue's entry for an absolute path, if any.
  public func entry(path: RawPath) throws -> CatalogEntry? {
    let statement = try db.prepare(
      "SELECT \(CatalogSchema.entryColumns) FROM files f JOIN roots r ON r.id = f.root_id WHERE f.path = ?")
    try statement.bind([.blob(path.bytes)])
    guard try statement.step() else { return nil }
    return Self.entry(from: statement)
  }

  /// The entries matching `query`, sorted (by each of `sort` in turn, then by path) and limited.
  public func entries(matching query: CatalogQuery, sort: [CatalogSort] = [], limit: Int? = nil) throws
    -> [CatalogEntry]
  {
    var entries: [CatalogEntry] = []
    try forEachEntry(matching: query, sort: sort, limit: limit) { entries.append($0) }
    return entries
  }

  /// Calls `body` for each entry matching `query`, without holding them all in memory. Without
  /// `chunkNames` (listings), only what a listing shows is decoded (see `entry(from:)`).
  public func forEachEntry(
    matching query: CatalogQuery, sort: [CatalogSort] = [], limit: Int? = nil, chunkNames: Bool = true,
    _ body: (CatalogEntry) throws -> Void
  ) throws {
    let (whereSQL, parameters) = try query.sql()
    var sql =
      "SELECT \(CatalogSchema.entryColumns) FROM files f JOIN roots r ON r.id = f.root_id WHERE \(whereSQL)"
    sql += " ORDER BY " + CatalogSort.orderBy(sort)
    if let limit { sql += " LIMIT \(max(limit, 0))" }
    let statement = try db.prepare(sql)
    try statement.bind(parameters)
    while try statement.step() { try body(Self.entry(from: statement, chunkNames: chunkNames)) }
  }

  /// The paths of matching entries only (fast path for `-0` and players).
  public func paths(matching query: CatalogQuery, sort: [CatalogSort] = [], limit: Int? = nil) throws
    -> [RawPath]
  {
    let (whereSQL, parameters) = try query.sql()
    var sql =
      "SELECT f.path FROM files f JOIN roots r ON r.id = f.root_id WHERE \(whereSQL) ORDER BY "
      + CatalogSort.orderBy(sort)
    if let limit { sql += " LIMIT \(max(limit, 0))" }
    let statement = try db.prepare(sql)
    try statement.bind(parameters)
    var paths: [RawPath] = []
    while try statement.step() { paths.append(RawPath(bytes: statement.blob(at: 0))) }
    return paths
  }

  /// The longest duration (a week, in seconds) summed into totals: a longer, infinite or
  /// negative one comes from a header that lies, and would make every total absurd.
  public static let longestPlausibleDuration: Double = 7 * 24 * 3600

  /// Totals by kind and by area; durations that are not plausible are counted, not summed.
  public func stats() throws -> CatalogStats {
    let plausible = "CASE WHEN duration BETWEEN 0 AND \(Self.longestPlausibleDuration) THEN duration END"
    func groups(_ column: String) throws -> [CatalogGroupStats] {
      try db.query(
        "SELECT \(column), count(*), coalesce(sum(size), 0), coalesce(sum(\(plausible)), 0) FROM files GROUP BY \(column) ORDER BY \(column)"
      ).map {
        CatalogGroupStats(
          name: $0[0].text ?? "", count: Int($0[1].integer ?? 0), size: $0[2].integer ?? 0,
          duration: $0[3].real ?? 0)
      }
    }
    let totals = try db.query(
      "SELECT count(*), coalesce(sum(size), 0), coalesce(sum(\(plausible)), 0), count(error), coalesce(sum(ext_mismatch), 0), count(duration) - count(\(plausible)) FROM files"
    )[0]
    return CatalogStats(
      files: Int(totals[0].integer ?? 0), size: totals[1].integer ?? 0, duration: totals[2].real ?? 0,
      implausibleDurations: Int(totals[5].integer ?? 0),
      errors: Int(totals[3].integer ?? 0), mismatches: Int(totals[4].integer ?? 0),
      byKind: try groups("kind"), byArea: try groups("area"), photosByYear: try photosByYear(),
      roots: try roots())
  }

  /// Images with an EXIF date, counted by the year it names.
  private func photosByYear() throws -> [CatalogGroupStats] {
    try db.query(
      "SELECT substr(taken, 1, 4) AS y, count(*), coalesce(sum(size), 0) FROM files WHERE kind = 'image' AND taken IS NOT NULL GROUP BY y ORDER BY y"
    ).map {
      CatalogGroupStats(
        name: $0[0].text ?? "", count: Int($0[1].integer ?? 0), size: $0[2].integer ?? 0, duration: 0)
    }
  }

  /// Decodes a row of `CatalogSchema.entryColumns`. With `chunkNames` false (listings), the
  /// columns a listing never shows are not decoded: root, PNG chunks, album and the other
  /// secondary tags, word and character counts, first line.
  static func entry(from s: SQLiteStatement, chunkNames: Bool = true) -> CatalogEntry {
    let full = chunkNames
    func text(_ i: Int) -> String? { s.text(at: i) }
    func int(_ i: Int) -> Int? { s.integer(at: i).map { Int($0) } }
    func bool(_ i: Int) -> Bool? { s.integer(at: i).map { $0 != 0 } }
    var entry = CatalogEntry(
      path: RawPath(bytes: s.blob(at: 0)), root: full ? RawPath(bytes: s.blob(at: 1)) : nil,
      area: text(2) ?? "other", kind: FileKind(rawValue: text(3) ?? "") ?? .other, mime: text(4) ?? "",
      detectedBy: full ? DetectionMethod(rawValue: text(5) ?? "") ?? .content : .content,
      extensionMismatch: bool(6) ?? false, size: s.integer(at: 7) ?? 0,
      mtimeNanoseconds: s.integer(at: 8) ?? 0,
      ctimeNanoseconds: s.integer(at: 9) ?? 0,
      inode: UInt64(bitPattern: s.integer(at: 10) ?? 0), device: UInt64(bitPattern: s.integer(at: 11) ?? 0),
      error: text(12), extractorVersion: int(13) ?? 0)
    // The media columns follow the backup columns (47–51).
    if entry.kind == .video, let width = int(14), let height = int(15) {
      entry.video = VideoFacts(
        duration: s.value(at: 24).real ?? 0, width: width, height: height, codec: text(52) ?? "",
        frameRate: s.value(at: 59).real, rotation: int(60) ?? 0, audioCodec: text(61), sampleRate: int(25),
        channels: int(26), bitrate: int(53), taken: text(62), contentIdentifier: text(70),
        format: text(28) ?? "",
        title: text(30))
    } else {
      // The EXIF columns (63–70) follow the media columns.
      var exif = EXIFFacts(
        taken: text(62), camera: text(63), lens: text(64), orientation: int(65), software: text(69),
        contentIdentifier: text(70))
      if let latitude = s.value(at: 66).real, let longitude = s.value(at: 67).real {
        exif.gps = GPSPosition(latitude: latitude, longitude: longitude, altitude: s.value(at: 68).real)
      }
      if !exif.isEmpty { entry.exif = exif }
      if let width = int(14), let height = int(15) {
        entry.image = ImageFacts(
          format: full ? text(22) ?? "" : "", width: width, height: height, bitDepth: int(16),
          colorType: text(17),
          alpha: bool(18), interlaced: bool(19), cgbi: bool(20), frames: int(21),
          chunks: full ? (text(23) ?? "").split(separator: " ").map(String.init) : [])
      }
      if let rate = int(25) {
        entry.audio = AudioFacts(
          duration: s.value(at: 24).real ?? 0, sampleRate: rate, channels: int(26) ?? 0,
          frames: s.integer(at: 27) ?? 0, format: text(28) ?? "", subtype: full ? text(29) : nil,
          tags: AudioTags(
            title: text(30), artist: text(31), album: full ? text(32) : nil, date: full ? text(33) : nil,
            track: full ? text(34) : nil, genre: full ? text(35) : nil, comment: full ? text(36) : nil,
            albumArtist: full ? text(54) : nil, trackTotal: full ? int(57) : nil, disc: full ? int(55) : nil,
            discTotal: full ? int(56) : nil),
          codec: text(52), bitrate: int(53), artwork: bool(58) ?? false)
      }
    }
    if let partner = s.value(at: 71).bytes { entry.livePhoto = RawPath(bytes: partner) }
    if let encoding = text(37).flatMap(TextEncoding.init(rawValue:)) {
      entry.text = TextFacts(
        encoding: encoding, bom: bool(38) ?? false, lineEndings: text(39) ?? "none", lines: int(40) ?? 0,
        words: full ? int(41) ?? 0 : 0, chars: full ? int(42) ?? 0 : 0, firstLine: full ? text(43) ?? "" : "")
    }
    if let domain = text(47) {
      entry.backup = BackupFacts(
        domain: domain, app: text(48), fileID: text(49) ?? "", protectionClass: int(50),
        mode: UInt32(truncatingIfNeeded: s.integer(at: 51) ?? 0))
    }
    if let format = text(44) {
      let keys = text(46) ?? ""
      entry.plist = PlistFacts(
        format: format, root: text(45) ?? "",
        keys: keys.isEmpty
          ? [] : keys.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
    }
    return entry
  }

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
