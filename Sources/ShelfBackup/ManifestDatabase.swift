internal import CSQLite
import ShelfCore

/// `Manifest.db` (iOS 10 and later), read-only: opened immutable from the backup folder (so
/// SQLite writes no journal or lock file beside it) or, when the backup is encrypted, from the
/// decrypted bytes in memory (`sqlite3_deserialize`), never from a temporary file.
final class ManifestDatabase {
  private var handle: OpaquePointer?
  let path: RawPath

  /// Opens the database file at `path` without ever writing to it.
  init(file path: RawPath) throws(BackupError) {
    self.path = path
    var db: OpaquePointer?
    let uri = "file:" + path.absolute.fileURIPath + "?immutable=1"
    let code = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nil)
    handle = db
    guard code == SQLITE_OK else { throw error("cannot open Manifest.db") }
    try check()
  }

  /// Opens a decrypted database held in memory.
  init(bytes: [UInt8], path: RawPath) throws(BackupError) {
    self.path = path
    var db: OpaquePointer?
    guard sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK
    else {
      handle = db
      throw error("cannot open an in-memory database")
    }
    handle = db
    guard let buffer = sqlite3_malloc64(sqlite3_uint64(max(bytes.count, 1))) else {
      throw BackupError(path: path, reason: .io("out of memory for the decrypted Manifest.db"))
    }
    bytes.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
    let flags = UInt32(SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY)
    let code = sqlite3_deserialize(
      db, "main", buffer.assumingMemoryBound(to: UInt8.self), sqlite3_int64(bytes.count),
      sqlite3_int64(bytes.count), flags)
    guard code == SQLITE_OK else { throw error("cannot load the decrypted Manifest.db") }
    try check()
  }

  /// The largest truncated Manifest.db read into memory to salvage its rows.
  static let salvageLimit: Int64 = 1 << 30

  /// Opens what is left of a truncated Manifest.db: SQLite refuses a file shorter than its
  /// header says, so the file is read into memory, cut to whole pages and its header's page
  /// count set to match; rows on lost pages then end the scan with a problem. Nil when even
  /// that does not open.
  convenience init?(salvaging path: RawPath) {
    guard var bytes = try? RegularFile(path: path, followLinks: false).readAll(limit: Self.salvageLimit),
      bytes.count >= 100, bytes.starts(with: Array("SQLite format 3".utf8) + [0])
    else { return nil }
    let declared = Int(bytes[16]) << 8 | Int(bytes[17])
    let pageSize = declared == 1 ? 65536 : declared
    guard pageSize >= 512, pageSize.nonzeroBitCount == 1, bytes.count >= pageSize else { return nil }
    let pages = bytes.count / pageSize
    bytes.removeSubrange((pages * pageSize)...)
    for index in 0..<4 {
      bytes[28 + index] = UInt8(truncatingIfNeeded: pages >> (8 * (3 - index)))
      // SQLite trusts the header's page count only when "version-valid-for" matches the change counter.
      bytes[92 + index] = bytes[24 + index]
    }
    try? self.init(bytes: bytes, path: path)
  }

  deinit { sqlite3_close_v2(handle) }

  /// Confirms the file is a database with a Files table (an encrypted Manifest.db read without
  /// its key, or a damaged one, fails here).
  private func check() throws(BackupError) {
    var statement: OpaquePointer?
    let code = sqlite3_prepare_v2(
      handle, "SELECT fileID, domain, relativePath, flags, file FROM Files LIMIT 0", -1, &statement, nil)
    sqlite3_finalize(statement)
    guard code == SQLITE_OK else { throw error("Manifest.db is not a backup manifest") }
  }

  private func error(_ context: String) -> BackupError {
    let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
    return BackupError(path: path, reason: .corruptManifest("\(context): \(message)"))
  }

  /// Every row, in table order (so a truncated file yields the rows on its surviving pages); a row that cannot be understood is a problem, and a
  /// database that breaks off part way (truncated, damaged) ends the list with one.
  func records(folder: RawPath) -> (records: [ManifestRecord], problems: [BackupError]) {
    rows(where: "", bind: nil, folder: folder)
  }

  /// The row of one fileID, if the manifest has it.
  func record(fileID: String, folder: RawPath) throws(BackupError) -> ManifestRecord? {
    let result = rows(where: " WHERE fileID = ?1", bind: fileID, folder: folder)
    if let record = result.records.first { return record }
    if let problem = result.problems.first { throw problem }
    return nil
  }

  private func rows(where clause: String, bind: String?, folder: RawPath) -> (
    records: [ManifestRecord], problems: [BackupError]
  ) {
    var records: [ManifestRecord] = []
    var problems: [BackupError] = []
    var statement: OpaquePointer?
    let sql = "SELECT fileID, domain, relativePath, flags, file FROM Files" + clause
    guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else {
      return ([], [error("cannot read Manifest.db")])
    }
    defer { sqlite3_finalize(statement) }
    if let bind {
      sqlite3_bind_text(statement, 1, bind, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
    }
    while true {
      let code = sqlite3_step(statement)
      if code == SQLITE_DONE { break }
      guard code == SQLITE_ROW else {
        problems.append(error("Manifest.db breaks off after \(records.count + problems.count) rows"))
        break
      }
      let fileID = String(decoding: column(statement, 0), as: UTF8.self)
      let domain = String(decoding: column(statement, 1), as: UTF8.self)
      let relativePath = RawPath(bytes: column(statement, 2))
      let flags = sqlite3_column_int64(statement, 3)
      let blob = column(statement, 4)
      let rowPath = BackupEntry(
        domain: domain, relativePath: relativePath, fileID: fileID, type: .file, size: 0, mode: 0, modified: 0
      ).cataloguePath(in: folder)
      do throws(BackupError.Reason) {
        records.append(
          try record(fileID: fileID, domain: domain, relativePath: relativePath, flags: flags, blob: blob))
      } catch {
        problems.append(BackupError(path: rowPath, reason: error))
      }
    }
    return (records, problems)
  }

  private func column(_ statement: OpaquePointer?, _ index: Int32) -> [UInt8] {
    guard let bytes = sqlite3_column_blob(statement, index) else { return [] }
    let count = Int(sqlite3_column_bytes(statement, index))
    return Array(UnsafeRawBufferPointer(start: bytes, count: count))
  }

  private func record(fileID: String, domain: String, relativePath: RawPath, flags: Int64, blob: [UInt8])
    throws(BackupError.Reason) -> ManifestRecord
  {
    guard ManifestNames.isSafeDomain(domain), ManifestNames.isSafeRelativePath(relativePath) else {
      throw .unsafePath(RawPath(domain).appending(relativePath))
    }
    guard ManifestNames.isFileID(fileID) else { throw .corruptManifest("manifest row has a bad fileID") }
    guard !blob.isEmpty else { throw .corruptManifest("manifest row has no file record") }
    let archived = try ArchivedFileRecord(blob)
    let type: BackupEntryType
    switch flags {
    case 1: type = .file
    case 2: type = .folder
    case 4: type = .symlink
    default:
      guard let fromMode = ManifestNames.type(ofMode: archived.mode) else {
        throw .corruptManifest("manifest row has unknown flags \(flags)")
      }
      type = fromMode
    }
    var entry = BackupEntry(
      domain: domain, relativePath: relativePath, fileID: fileID.lowercased(), type: type,
      size: type == .file ? archived.size : 0, mode: archived.mode,
      modified: archived.lastModified.multipliedReportingOverflow(by: 1_000_000_000).partialValue,
      protectionClass: archived.protectionClass)
    if type == .symlink { entry.linkTarget = archived.target ?? RawPath("") }
    var fileKey: WrappedFileKey?
    if type == .file, let key = archived.encryptionKey {
      guard let parsed = WrappedFileKey(key) else {
        throw .corruptManifest("file record has a bad encryption key")
      }
      fileKey = parsed
    }
    return ManifestRecord(entry: entry, fileKey: fileKey)
  }

}
