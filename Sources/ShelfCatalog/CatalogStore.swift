import ShelfAudio
import ShelfCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A catalogue-level failure: no catalogue yet, a newer schema, busy, and the like.
public struct CatalogError: ShelfError, Equatable {
  public var path: RawPath
  public var reason: String
  public var failure: FailureKind
  /// An error about the catalogue (or root) at `path`.
  public init(path: RawPath, reason: String, failure: FailureKind) {
    self.path = path
    self.reason = reason
    self.failure = failure
  }
  public var description: String { "\(path.escaped): \(reason)" }
}

/// A root folder the catalogue knows.
public struct CatalogRoot: Sendable, Equatable {
  public var id: Int64
  public var path: RawPath
  public var isSandbox: Bool
  public var bundle: BundleInfo?
  /// When the last scan of this root finished, in nanoseconds since the epoch.
  public var lastScanNanoseconds: Int64?
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
  public var duration: Double
  public var errors: Int
  public var mismatches: Int
  public var byKind: [CatalogGroupStats]
  public var byArea: [CatalogGroupStats]
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
public final class CatalogStore {
  /// The database file.
  public let path: RawPath
  /// Where a damaged catalogue was moved before this one was created, if that happened.
  public private(set) var movedAsideCorruptFile: RawPath?
  let db: SQLiteConnection
  private var upsertStatement: SQLiteStatement?
  private var ftsDelete: SQLiteStatement?
  private var ftsInsert: SQLiteStatement?

  private init(path: RawPath, db: SQLiteConnection) {
    self.path = path
    self.db = db
  }

  /// Opens the catalogue at `path`. With `create`, makes it (and its folder) when missing;
  /// without, a missing catalogue is a `.missingInput` error. A file that is not a valid
  /// catalogue is moved aside (see `movedAsideCorruptFile`) and a fresh one is created.
  public static func open(at path: RawPath, create: Bool) throws -> CatalogStore {
    let exists = (try? FileStatus.stat(path)) != nil
    if !exists {
      guard create else {
        throw CatalogError(
          path: path, reason: "no catalogue yet (run `shelf index FOLDER` first)", failure: .missingInput)
      }
      try Directories.make(path.absolute.parent)
    }
    do {
      return try connect(path)
    } catch let error as SQLiteError where error.isCorruption {
      let aside = try moveAside(path)
      let store = try connect(path)
      store.movedAsideCorruptFile = aside
      return store
    } catch let error as CatalogError where error.failure == .badInput {
      let aside = try moveAside(path)
      let store = try connect(path)
      store.movedAsideCorruptFile = aside
      return store
    }
  }

  private static func connect(_ path: RawPath) throws -> CatalogStore {
    let db = try SQLiteConnection(path: path, create: true)
    try db.setBusyTimeout(milliseconds: 5000)
    // Any read of a file that is not a database fails here with SQLITE_NOTADB.
    _ = try db.query("SELECT count(*) FROM sqlite_master")
    _ = try? db.query("PRAGMA journal_mode=WAL")
    try db.execute(
      "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA cache_size=-32768; PRAGMA temp_store=MEMORY")
    let store = CatalogStore(path: path, db: db)
    try store.migrate()
    return store
  }

  private func migrate() throws {
    let version = Int(try db.query("PRAGMA user_version").first?.first?.integer ?? 0)
    if version == CatalogSchema.version { return }
    if version > CatalogSchema.version {
      throw CatalogError(
        path: path, reason: "catalogue was written by a newer shelf (schema \(version))", failure: .badInput)
    }
    let tables = try db.query(
      "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")
    if version == 0 && !tables.isEmpty && !tables.contains(where: { $0.first?.text == "roots" }) {
      throw CatalogError(path: path, reason: "not a shelf catalogue", failure: .badInput)
    }
    try db.transaction {
      var oldRoots: [[UInt8]] = []
      if version > 0 {
        oldRoots = try db.query("SELECT path FROM roots").compactMap { $0.first?.bytes }
        try db.execute(CatalogSchema.drop)
      }
      try db.execute(CatalogSchema.create)
      for root in oldRoots {
        try db.run(
          "INSERT OR IGNORE INTO roots(path, path_text) VALUES(?, ?)",
          [.blob(root), .text(String(decoding: root, as: UTF8.self))])
      }
      try db.execute("PRAGMA user_version = \(CatalogSchema.version)")
    }
  }

  /// Makes the folders the catalogue at `path` lives in (for the lock file and the database).
  public static func prepareLocation(_ path: RawPath) throws {
    try Directories.make(path.absolute.parent)
  }

  /// Moves this (damaged) catalogue aside and returns a fresh one in its place (see
  /// `movedAsideCorruptFile`). Writers call this when SQLite reports corruption mid-scan.
  public func movingAsideAndRebuilding() throws -> CatalogStore {
    try Self.rebuild(self)
  }

  /// Closes the catalogue and reopens a fresh one after moving a damaged file aside.
  static func rebuild(_ store: CatalogStore) throws -> CatalogStore {
    let path = store.path
    store.upsertStatement = nil
    store.ftsDelete = nil
    store.ftsInsert = nil
    try? store.db.close()
    let aside = try moveAside(path)
    let fresh = try connect(path)
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
      "SELECT id, path, is_sandbox, bundle_path, bundle_id, bundle_name, bundle_version, last_scan_ns FROM roots ORDER BY path"
    ).map { row in
      var bundle: BundleInfo?
      if let bundlePath = row[3].bytes {
        bundle = BundleInfo(
          identifier: row[4].text, name: row[5].text, version: row[6].text,
          bundlePath: RawPath(bytes: bundlePath))
      }
      return CatalogRoot(
        id: row[0].integer ?? 0, path: RawPath(bytes: row[1].bytes ?? []), isSandbox: row[2].integer == 1,
        bundle: bundle, lastScanNanoseconds: row[7].integer)
    }
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

  /// Moves the entries of root `inner` to root `outer` and forgets `inner` (a new root that
  /// contains it takes it over).
  func mergeRoot(_ inner: Int64, into outer: Int64) throws {
    try db.run("UPDATE files SET root_id = ? WHERE root_id = ?", [.integer(outer), .integer(inner)])
    try db.run("DELETE FROM roots WHERE id = ?", [.integer(inner)])
  }

  /// Removes a root and its entries.
  public func removeRoot(_ path: RawPath) throws -> Bool {
    guard
      let id = try db.query("SELECT id FROM roots WHERE path = ?", [.blob(path.bytes)]).first?.first?.integer
    else {
      return false
    }
    try db.transaction {
      try db.run(
        "DELETE FROM files_fts WHERE rowid IN (SELECT id FROM files WHERE root_id = ?)", [.integer(id)])
      try db.run("DELETE FROM files WHERE root_id = ?", [.integer(id)])
      try db.run("DELETE FROM roots WHERE id = ?", [.integer(id)])
    }
    return true
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
    let values: [SQLiteValue] = [
      .integer(rootID), .blob(entry.path.bytes), .text(pathText), .text(nameText), .text(entry.fileExtension),
      .text(entry.area), .text(entry.kind.rawValue), .text(entry.mime), .text(entry.detectedBy.rawValue),
      .from(entry.extensionMismatch), .integer(entry.size), .integer(entry.mtimeNanoseconds),
      .integer(entry.ctimeNanoseconds), .integer(Int64(bitPattern: entry.inode)),
      .integer(Int64(bitPattern: entry.device)), .from(trusted), .integer(Int64(entry.extractorVersion)),
      .from(entry.error),
      .from(image?.width), .from(image?.height), .from(image?.bitDepth), .from(image?.colorType),
      .from(image?.alpha), .from(image?.interlaced), .from(image?.cgbi), .from(image?.frames),
      .from(image?.format), image.map { .text($0.chunks.joined(separator: " ")) } ?? .null,
      .from(audio?.duration), .from(audio?.sampleRate), .from(audio?.channels), .from(audio?.frames),
      .from(audio?.format), .from(audio?.subtype), .from(audio?.title), .from(audio?.artist),
      .from(audio?.album), .from(audio?.date), .from(audio?.year), .from(audio?.track),
      .from(audio?.trackNumber), .from(audio?.genre), .from(audio?.comment),
      .from(text?.encoding.rawValue), .from(text?.bom), .from(text?.lineEndings), .from(text?.lines),
      .from(text?.words), .from(text?.chars), .from(text?.firstLine),
      .from(plist?.format), .from(plist?.root), plist.map { .text($0.keys.joined(separator: "\n")) } ?? .null,
    ]
    try upsertStatement!.bind(values)
    guard try upsertStatement!.step() else { return }
    let id = upsertStatement!.integer(at: 0) ?? 0
    while try upsertStatement!.step() {}
    // A new file has no full-text row yet (unless another root listed the same path).
    if !isNew { try ftsDelete!.run([.integer(id)]) }
    var tags = ""
    if let audio {
      tags = [audio.title, audio.artist, audio.album, audio.genre, audio.comment, audio.date].compactMap {
        $0
      }.joined(separator: " ")
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

  /// Totals by kind and by area.
  public func stats() throws -> CatalogStats {
    func groups(_ column: String) throws -> [CatalogGroupStats] {
      try db.query(
        "SELECT \(column), count(*), coalesce(sum(size), 0), coalesce(sum(duration), 0) FROM files GROUP BY \(column) ORDER BY \(column)"
      ).map {
        CatalogGroupStats(
          name: $0[0].text ?? "", count: Int($0[1].integer ?? 0), size: $0[2].integer ?? 0,
          duration: $0[3].real ?? 0)
      }
    }
    let totals = try db.query(
      "SELECT count(*), coalesce(sum(size), 0), coalesce(sum(duration), 0), count(error), coalesce(sum(ext_mismatch), 0) FROM files"
    )[0]
    return CatalogStats(
      files: Int(totals[0].integer ?? 0), size: totals[1].integer ?? 0, duration: totals[2].real ?? 0,
      errors: Int(totals[3].integer ?? 0), mismatches: Int(totals[4].integer ?? 0),
      byKind: try groups("kind"), byArea: try groups("area"), roots: try roots())
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
          track: full ? text(34) : nil, genre: full ? text(35) : nil, comment: full ? text(36) : nil))
    }
    if let encoding = text(37).flatMap(TextEncoding.init(rawValue:)) {
      entry.text = TextFacts(
        encoding: encoding, bom: bool(38) ?? false, lineEndings: text(39) ?? "none", lines: int(40) ?? 0,
        words: full ? int(41) ?? 0 : 0, chars: full ? int(42) ?? 0 : 0, firstLine: full ? text(43) ?? "" : "")
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
