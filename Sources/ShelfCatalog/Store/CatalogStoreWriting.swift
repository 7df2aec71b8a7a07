import ShelfCore
import ShelfDatabase

/// The writer's side of the catalogue (the indexer, `catalog copy`), written once for both
/// databases over the engine's connection; the row of a file is the engine's to write (see
/// `CatalogEngine.upsert`). The SQL is in the dialect SQLite and PostgreSQL both accept, so the
/// two cannot drift apart on what a root or file update means.
extension CatalogStore {
  var ownFiles: [RawPath] { engine.ownFiles }

  /// Makes this writer the only indexer of the root at `path` (waiting up to `wait`
  /// seconds), or throws `.busy`.
  func lockRoot(_ path: RawPath, wait: Double) throws { try engine.lockRoot(path, wait: wait) }

  // MARK: Roots

  /// The columns and values that name the root at `path` of `host` (nil: the one machine's).
  private func rootKey(_ path: RawPath, host: String?) -> (columns: [String], values: [DatabaseValue]) {
    guard let host else { return (["path"], [.blob(path.bytes)]) }
    return (["host", "path"], [.text(host), .blob(path.bytes)])
  }

  /// The id of this machine's root at `path`, added when new.
  func rootID(for path: RawPath) throws -> Int64 {
    let (columns, values) = rootKey(path, host: host)
    try connection.run(
      "INSERT INTO roots(\(columns.joined(separator: ", ")), path_text) VALUES(\(columns.map { _ in "?, " }.joined())?) ON CONFLICT DO NOTHING",
      values + [.text(path.escaped)])
    return try connection.integer(
      "SELECT id FROM roots WHERE \(columns.map { "\($0) = ?" }.joined(separator: " AND "))", values) ?? 0
  }

  /// Adds a root as it is described (host, layout, bundle, excludes, backup, last scan), for
  /// `catalog copy`: a root of another machine keeps its host where the catalogue has hosts.
  func addRoot(_ root: CatalogRoot) throws -> Int64 {
    let (columns, values) = rootKey(root.path, host: host.map { root.host ?? $0 })
    let id =
      try connection.integer(
        "INSERT INTO roots(\(columns.joined(separator: ", ")), path_text) VALUES(\(columns.map { _ in "?, " }.joined())?) RETURNING id",
        values + [.text(root.path.escaped)]) ?? 0
    try updateRoot(
      id: id, layout: SandboxLayout(isSandbox: root.isSandbox, bundleName: nil), bundle: root.bundle,
      scannedAt: root.lastScanNanoseconds)
    try setExcludes(rootID: id, patterns: root.excludes)
    if let backup = root.backup { try updateBackupRoot(id: id, facts: backup) }
    return id
  }

  /// Replaces the exclude patterns stored with a root (empty patterns are dropped; none left
  /// clears them).
  func setExcludes(rootID: Int64, patterns: [String]) throws {
    let kept = patterns.filter { !$0.isEmpty }
    try connection.run(
      "UPDATE roots SET excludes = ? WHERE id = ?",
      [kept.isEmpty ? .null : .text(ExcludeRules.storedText(kept)), .integer(rootID)])
  }

  /// Records what a scan learnt about a root.
  func updateRoot(id: Int64, layout: SandboxLayout, bundle: BundleInfo?, scannedAt: Int64?) throws {
    try connection.run(
      "UPDATE roots SET is_sandbox = ?, bundle_path = ?, bundle_id = ?, bundle_name = ?, bundle_version = ?, last_scan_ns = coalesce(?, last_scan_ns) WHERE id = ?",
      [
        .from(layout.isSandbox), bundle.map { .blob($0.bundlePath.bytes) } ?? .null,
        .from(bundle?.identifier),
        .from(bundle?.name), .from(bundle?.version), .from(scannedAt), .integer(id),
      ])
  }

  /// Records what a backup root is (device, iOS version, date, encryption, era).
  func updateBackupRoot(id: Int64, facts: BackupRootFacts) throws {
    try connection.run(
      "UPDATE roots SET backup_device = ?, backup_product = ?, backup_ios = ?, backup_date = ?, backup_encrypted = ?, backup_format = ? WHERE id = ?",
      [
        .from(facts.deviceName), .from(facts.productType), .from(facts.iosVersion), .from(facts.date),
        .from(facts.isEncrypted), .text(facts.format.rawValue), .integer(id),
      ])
  }

  /// Records the root a root was found in (nil: none).
  func setParent(rootID: Int64, parentID: Int64?) throws {
    try connection.run(
      "UPDATE roots SET parent_id = ? WHERE id = ?",
      [parentID.map { .integer($0) } ?? .null, .integer(rootID)])
  }

  // MARK: Files

  /// What is known about the files of the root `rootID` at `rootPath`, by path.
  func knownFiles(rootID: Int64, rootPath: RawPath) throws -> KnownFiles {
    try Self.knownFiles(on: connection, dialect, rootID: rootID, rootPath: rootPath)
  }

  /// Loads `knownFiles` on a connection of its own, so the indexer can load it on another
  /// thread while it walks the tree.
  func knownFilesLoader() -> @Sendable (_ rootID: Int64, _ rootPath: RawPath) throws -> KnownFiles {
    let open = engine.connectionOpener
    let dialect = dialect
    return { rootID, rootPath in
      try CatalogStore.knownFiles(on: try open(), dialect, rootID: rootID, rootPath: rootPath)
    }
  }

  /// What is known about the files of a root, read through any connection to the catalogue.
  private static func knownFiles(
    on db: any DatabaseConnection, _ dialect: SQLDialect, rootID: Int64, rootPath: RawPath
  ) throws -> KnownFiles {
    // Room made at once for every file of the catalogue (counted from its smallest index).
    let count = try db.integer("SELECT count(*) FROM files") ?? 0
    var condition = "root_id = ?"
    var parameters: [DatabaseValue] = [.integer(rootID)]
    let roots = try db.integer("SELECT count(*) FROM roots") ?? 0
    if !dialect.indexesFilesByRoot && roots > 1 {
      // SQLite has no index by root (PostgreSQL's rows are unique by root and path): a root
      // holding a small part of the catalogue is read through the range of its paths in the
      // path index (a root's files all lie below it) instead of the whole table, which every
      // root's scan read again. A root holding most of it is read row after row, which is
      // faster; so is the only root, without counting its range (5 ms for /usr/share's).
      let bounds = rootPath.descendantBounds
      let below: [DatabaseValue] = [.blob(bounds.lower), .blob(bounds.upper)]
      let inRange = try db.integer("SELECT count(*) FROM files WHERE path >= ? AND path < ?", below) ?? 0
      if inRange * 2 < count {
        condition = "path >= ? AND path < ? AND root_id = ?"
        parameters = below + parameters
      }
    }
    var known = KnownFiles(capacity: Int(clamping: count))
    typealias Column = KnownFile.Column
    try db.forEachRow("SELECT \(Column.selectList) FROM files WHERE \(condition)", parameters) { row in
      // Every column is NOT NULL; the positions are the cases' raw values, constants.
      func integer(_ column: Column) -> Int64 { row.integerOrZero(at: column.rawValue) }
      row.withBlob(at: Column.path.rawValue) { path in
        known.add(
          path: path,
          KnownFile(
            id: integer(.id), path: RawPath(bytes: []), size: integer(.size), mtime: integer(.mtime),
            ctime: integer(.ctime), inode: UInt64(bitPattern: integer(.inode)),
            device: UInt64(bitPattern: integer(.device)), trusted: integer(.trusted) == 1,
            extractorVersion: Int(truncatingIfNeeded: integer(.extractorVersion)),
            failedInWorker: integer(.failedInWorker) == 1))
      }
    }
    known.indexPaths()
    return known
  }

  /// Inserts or replaces the row of `entry` (matched by root and path), and its full text
  /// (`FactField.searchWords`).
  func upsert(_ entry: CatalogEntry, rootID: Int64, trusted: Bool, isNew: Bool = false) throws {
    try engine.upsert(entry, rootID: rootID, trusted: trusted, isNew: isNew)
  }

  /// Removes one file's rows.
  func deleteFile(id: Int64) throws {
    try engine.writeQueuedRows()
    try connection.run("DELETE FROM files WHERE id = ?", [.integer(id)])
    if let fullText = dialect.fullTextTable {
      try connection.run("DELETE FROM \(fullText) WHERE rowid = ?", [.integer(id)])
    }
  }

  /// Records that a file moved (same inode and size): new path and status, facts kept.
  func moveFile(id: Int64, to path: RawPath, area: CatalogArea, status: FileStatus, trusted: Bool) throws {
    try engine.writeQueuedRows()
    let name = String(decoding: path.lastComponent.bytes, as: UTF8.self)
    let pathText = String(decoding: path.bytes, as: UTF8.self)
    try connection.run(
      "UPDATE files SET path = ?, path_text = ?, name = ?, ext = ?, area = ?, mtime_ns = ?, ctime_ns = ?, trusted = ? WHERE id = ?",
      [
        .blob(path.bytes), .text(pathText), .text(name), .text(path.lowercasedExtension),
        .text(area.rawValue),
        .integer(status.mtimeNanoseconds), .integer(status.ctimeNanoseconds), .from(trusted), .integer(id),
      ])
  }

  /// How many entries the catalogue holds.
  func fileCount() throws -> Int {
    writeQueuedRowsBeforeReading()
    return Int(try connection.integer("SELECT count(*) FROM files") ?? 0)
  }

  /// Every entry, with the text its full-text row was made from as its `searchText`, and
  /// whether its timestamps are trusted, in insertion order (for `catalog copy`).
  func forEachEntryForCopy(_ body: (CatalogEntry, Bool) throws -> Void) throws {
    let columns = CopyColumn.allCases.map { $0.sql(dialect) }.joined(separator: ", ")
    // The copy's own columns follow the entry's.
    let first = CatalogSchema.EntryReading.full.fields.count
    try connection.forEachRow(
      "SELECT \(CatalogSchema.entryColumns(dialect)), \(columns) FROM files f JOIN roots r ON r.id = f.root_id ORDER BY f.id",
      []
    ) { row in
      var entry = Self.entry(from: row)
      entry.searchText = row.text(at: first + CopyColumn.searchText.rawValue) ?? ""
      try body(entry, row.integer(at: first + CopyColumn.trusted.rawValue) == 1)
    }
  }

  /// The columns `forEachEntryForCopy` reads after an entry's, in the order selected.
  private enum CopyColumn: Int, CaseIterable {
    case trusted, searchText

    func sql(_ dialect: SQLDialect) -> String {
      switch self {
      case .trusted: "f.trusted"
      case .searchText: dialect.storedSearchText
      }
    }
  }

  /// Brings the query planner's statistics up to date after a bulk load.
  func refreshPlannerStatistics() throws { try engine.refreshPlannerStatistics() }

  // MARK: Live Photos

  /// This machine's files below `folder` that have a content identifier or a Live Photo link.
  func livePhotoCandidates(inFolder folder: RawPath) throws -> [LivePhotoCandidate] {
    try engine.writeQueuedRows()
    let (hostSQL, hostParameters) = hostCondition
    return try connection.query(
      "SELECT \(LivePhotoCandidate.Column.selectList) FROM files f\(host == nil ? "" : " JOIN roots r ON r.id = f.root_id") WHERE \(LivePhotoCandidate.condition)\(hostSQL)",
      LivePhotoCandidate.bounds(folder) + hostParameters
    ) { LivePhotoCandidate(row: $0) }
  }

  /// Links a Live Photo's still and movie (nil clears the link).
  func setLivePhoto(id: Int64, partner: [UInt8]?) throws {
    try connection.run(
      "UPDATE files SET live_photo = ?, live_photo_text = ? WHERE id = ?",
      [
        partner.map { .blob($0) } ?? .null,
        partner.map { .text(String(decoding: $0, as: UTF8.self)) } ?? .null,
        .integer(id),
      ])
  }

  /// The files of a root with a content identifier and no link yet.
  func pathsAwaitingLivePhotoLinks(rootID: Int64) throws -> [RawPath] {
    writeQueuedRowsBeforeReading()
    return try connection.query(
      "SELECT path FROM files WHERE root_id = ? AND content_id IS NOT NULL AND live_photo IS NULL",
      [.integer(rootID)]
    ) { RawPath(bytes: $0.blob(at: 0)) }
  }

  /// The folders of a root holding a file with a content identifier or a link: the only
  /// folders where `linkLivePhotos` has anything to do.
  func foldersWithLivePhotoCandidates(rootID: Int64) throws -> Set<RawPath> {
    writeQueuedRowsBeforeReading()
    return Set(
      try connection.query(
        "SELECT path FROM files WHERE root_id = ? AND (content_id IS NOT NULL OR live_photo IS NOT NULL)",
        [.integer(rootID)]
      ) { RawPath(bytes: $0.blob(at: 0)).parent })
  }

  // MARK: Transactions

  /// Before a read inside a transaction: the engine's queued rows are written first, so that
  /// the read sees them.
  func writeQueuedRowsBeforeReading() {
    if pendingTransaction { engine.writeQueuedRowsBeforeReading() }
  }

  /// Runs `body` in one transaction.
  func transaction<R>(_ body: () throws -> R) throws -> R {
    try connection.beginTransaction()
    pendingTransaction = true
    do {
      let result = try body()
      try commitPending()
      return result
    } catch {
      rollbackPending()
      throw error
    }
  }

  /// Runs `body` inside a transaction left open for the next call, until `commitPending`.
  func transaction(continuing: Bool, _ body: () throws -> Void) throws {
    if !pendingTransaction {
      try connection.beginTransaction()
      pendingTransaction = true
    }
    try body()
  }

  /// Commits the open transaction, if any, after the queued rows.
  func commitPending() throws {
    guard pendingTransaction else { return }
    try engine.writeQueuedRows()
    try connection.commitTransaction()
    pendingTransaction = false
  }

  /// Rolls back an open transaction (after a failure), if any, and the queued rows with it.
  func rollbackPending() {
    engine.discardQueuedRows()
    guard pendingTransaction else { return }
    connection.rollbackTransaction()
    pendingTransaction = false
  }
}
