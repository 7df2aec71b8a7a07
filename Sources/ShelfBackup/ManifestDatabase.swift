import Dispatch
import ShelfCore
internal import ShelfDatabase
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// `Manifest.db` (iOS 10 and later), read-only through shelf's one SQLite wrapper: opened
/// immutable from the backup folder (so SQLite writes no journal or lock file beside it) or,
/// when the backup is encrypted, from the decrypted bytes in memory (`sqlite3_deserialize`),
/// never from a temporary file.
final class ManifestDatabase {
  private let connection: SQLiteConnection
  let path: RawPath

  /// Opens the database file at `path` without ever writing to it.
  init(file path: RawPath) throws(BackupError) {
    self.path = path
    do {
      connection = try SQLiteConnection(path: path, create: false, immutable: true, functions: [])
    } catch {
      throw Self.error("cannot open Manifest.db", error, path: path)
    }
    try check()
  }

  /// Opens a decrypted database held in memory.
  init(bytes: [UInt8], path: RawPath) throws(BackupError) {
    self.path = path
    do {
      connection = try SQLiteConnection(bytes: bytes, path: path)
    } catch {
      throw Self.error("cannot load the decrypted Manifest.db", error, path: path)
    }
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

  /// The start of every query: the columns of `Column`, in its order.
  private static let select = "SELECT \(Column.selectList) FROM Files"

  /// The columns of `Files` every query reads, in the order selected.
  private enum Column: Int, SelectedColumn {
    case fileID, domain, relativePath, flags, file

    var sql: String {
      switch self {
      case .fileID: "fileID"
      case .domain: "domain"
      case .relativePath: "relativePath"
      case .flags: "flags"
      case .file: "file"
      }
    }
  }

  /// Confirms the file is a database with a Files table (an encrypted Manifest.db read without
  /// its key, or a damaged one, fails here).
  private func check() throws(BackupError) {
    do {
      _ = try connection.prepare(Self.select + " LIMIT 0")
    } catch {
      throw Self.error("Manifest.db is not a backup manifest", error, path: path)
    }
  }

  private static func error(_ context: String, _ error: SQLiteError, path: RawPath) -> BackupError {
    BackupError(path: path, reason: .corruptManifest("\(context): \(error.message)"))
  }

  /// Every row, in table order (so a truncated file yields the rows on its surviving pages); a
  /// row that cannot be understood is a problem, and a database that breaks off part way
  /// (truncated, damaged) ends the list with one.
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

  /// One row as SQLite gives it, before its file record is parsed.
  private struct RawRow: Sendable {
    var fileID: String
    var domain: String
    var relativePath: RawPath
    var flags: Int64
    var blob: [UInt8]
  }

  /// Rows read before their file records are parsed, on several threads when there are this
  /// many: a manifest has one NSKeyedArchiver record per file, and parsing them is most of the
  /// time it takes to list a large backup (what `extract` waits for before its first copy).
  /// Parsing batch by batch keeps the unparsed records in memory to one batch.
  static let parseBatchRows = 2048

  private func rows(where clause: String, bind: String?, folder: RawPath) -> (
    records: [ManifestRecord], problems: [BackupError]
  ) {
    var records: [ManifestRecord] = []
    var problems: [BackupError] = []
    let statement: SQLiteStatement
    do {
      statement = try connection.prepare(Self.select + clause)
      if let bind { try statement.bind(bind, at: 1) }
    } catch {
      return ([], [Self.error("cannot read Manifest.db", error, path: path)])
    }
    func blob(_ column: Column) -> [UInt8] { statement.blob(at: column.rawValue) }
    var batch: [RawRow] = []
    var ended = false
    var breaksOff: BackupError?
    while !ended {
      batch.removeAll(keepingCapacity: true)
      while batch.count < Self.parseBatchRows {
        do {
          guard try statement.step() else {
            ended = true
            break
          }
        } catch {
          let rows = records.count + problems.count + batch.count
          breaksOff = Self.error("Manifest.db breaks off after \(rows) rows", error, path: path)
          ended = true
          break
        }
        batch.append(
          RawRow(
            fileID: String(decoding: blob(.fileID), as: UTF8.self),
            domain: String(decoding: blob(.domain), as: UTF8.self),
            relativePath: RawPath(bytes: blob(.relativePath)),
            flags: statement.integer(at: Column.flags.rawValue) ?? 0, blob: blob(.file)))
      }
      for parsed in Self.parse(batch, folder: folder) {
        switch parsed {
        case .success(let record): records.append(record)
        case .failure(let problem): problems.append(problem)
        }
      }
    }
    // After the problems of the rows before it, as each row's came in order.
    if let breaksOff { problems.append(breaksOff) }
    return (records, problems)
  }

  /// Each row's record or problem, in row order; a large manifest's rows in as many slices as
  /// there are cores (up to 4), parsed side by side.
  private static func parse(_ rows: [RawRow], folder: RawPath) -> [Result<ManifestRecord, BackupError>] {
    let cores = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    let width = rows.count < 256 ? 1 : min(cores, 4)
    if width == 1 { return rows.map { parse($0, folder: folder) } }
    let slice = (rows.count + width - 1) / width
    let parts = Mutex<[[Result<ManifestRecord, BackupError>]]>(Array(repeating: [], count: width))
    DispatchQueue.concurrentPerform(iterations: width) { part in
      let range = part * slice..<min(rows.count, (part + 1) * slice)
      let parsed = rows[range].map { parse($0, folder: folder) }
      parts.withLock { $0[part] = parsed }
    }
    return parts.withLock { $0.flatMap { $0 } }
  }

  private static func parse(_ row: RawRow, folder: RawPath) -> Result<ManifestRecord, BackupError> {
    do throws(BackupError.Reason) {
      return .success(
        try record(
          fileID: row.fileID, domain: row.domain, relativePath: row.relativePath, flags: row.flags,
          blob: row.blob
        ))
    } catch {
      let rowPath = BackupEntry(
        domain: row.domain, relativePath: row.relativePath, fileID: row.fileID, type: .file, size: 0, mode: 0,
        modified: 0
      ).cataloguePath(in: folder)
      return .failure(BackupError(path: rowPath, reason: error))
    }
  }

  private static func record(
    fileID: String, domain: String, relativePath: RawPath, flags: Int64, blob: [UInt8]
  )
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
