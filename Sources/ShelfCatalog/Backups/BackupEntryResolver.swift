public import ShelfBackup
public import ShelfCore
public import ShelfWorkers
import Synchronization

/// Turns a catalogued path inside an iPhone backup (`BACKUP/DOMAIN/relativePath`, a path
/// that exists only in the catalogue) into the backup and the entry it names, and the entry
/// into content: what lets `extract`, `info`, `show`, `play` and `crush` read backup files
/// without extracting them first.
///
/// Each backup is opened once (its password asked once) and its manifest read once, however
/// many of its entries are asked for; all of it may be used from several threads.
public final class BackupEntryResolver: Sendable {
  private let password: Backup.PasswordSource
  private let opened = Mutex<[RawPath: Result<OpenedBackup, BackupOpenFailure>]>([:])

  /// A backup with its entries by catalogued path, and its symbolic links (never catalogued).
  private final class OpenedBackup: Sendable {
    let backup: Backup
    let entries: [PathKey: BackupEntry]
    let links: [BackupEntry]

    init(_ backup: Backup, folder: RawPath) throws {
      self.backup = backup
      var byPath: [PathKey: BackupEntry] = [:]
      var links: [BackupEntry] = []
      for entry in try backup.entries().entries {
        byPath[PathKey(entry.cataloguePath(in: folder).bytes)] = entry
        if entry.type == .symlink { links.append(entry) }
      }
      entries = byPath
      self.links = links
    }
  }

  /// Why a backup could not be opened, kept so that it is reported once, not once per entry.
  private struct BackupOpenFailure: Error {
    let error: any Error
  }

  /// A resolver that asks `password` for the password of each encrypted backup it opens (and
  /// again after a wrong one).
  public init(password: @escaping Backup.PasswordSource) { self.password = password }

  /// The backup at `folder` (its resolved path, as the catalogue knows it) with its entries,
  /// opened once: an encrypted backup asks `password` first (see `Backup.open`). Throws the backup's error (a
  /// wrong password, not a backup) the first and every later time.
  private func openedBackup(_ folder: RawPath) throws -> OpenedBackup {
    let result = opened.withLock { known -> Result<OpenedBackup, BackupOpenFailure> in
      if let result = known[folder] { return result }
      let fresh = Result { () throws(BackupOpenFailure) -> OpenedBackup in
        do {
          return try OpenedBackup(Backup.open(folder, password: password), folder: folder)
        } catch {
          throw BackupOpenFailure(error: error)
        }
      }
      known[folder] = fresh
      return fresh
    }
    switch result {
    case .success(let opened): return opened
    case .failure(let failure): throw failure.error
    }
  }

  /// The backup folder that holds `path` and the resolved catalogued path: the nearest folder
  /// above `path` that is a backup. Nil when no folder above it is one.
  public static func locate(_ path: RawPath) -> (folder: RawPath, cataloguePath: RawPath)? {
    let absolute = path.absolute
    var folder = absolute.parent
    while folder.bytes.count > 1 {
      if Backup.isBackup(folder) {
        let resolved = (try? TreeWalker.realPath(folder)) ?? folder
        let rest = RawPath(bytes: Array(absolute.bytes.dropFirst(folder.bytes.count + 1)))
        return (resolved, resolved.appending(rest))
      }
      folder = folder.parent
    }
    return nil
  }

  /// The backup and entry that the catalogued path `cataloguePath` names in the backup at
  /// `folder`; nil when the backup holds no such entry.
  public func entry(at cataloguePath: RawPath, in folder: RawPath) throws -> (
    backup: Backup, entry: BackupEntry
  )? {
    let opened = try openedBackup(folder)
    return opened.entries[PathKey(cataloguePath.bytes)].map { (opened.backup, $0) }
  }

  /// Opens the backup at `folder` before its entries are asked for, so that it can be done on
  /// another thread while other work goes on; throws as `entry(at:in:)` would.
  public func open(_ folder: RawPath) throws {
    _ = try openedBackup(folder)
  }

  /// The symbolic-link entries of the backup at `folder`, in manifest order: `extract` reports
  /// them, as it neither follows nor recreates them.
  public func symbolicLinks(in folder: RawPath) throws -> [BackupEntry] {
    try openedBackup(folder).links
  }

  /// The content of a backup entry named by a path that does not exist on disk, in a spooled
  /// file in `temporaryFolder`: nil when `path` lies in no backup. Throws `BackupError` for a
  /// path the backup does not hold (`.missingStoredFile`… or not in the manifest) and every
  /// error of reading it.
  public func spool(_ path: RawPath, temporaryFolder: RawPath) throws -> (
    entry: BackupEntry, file: SpooledFile
  )? {
    guard let (folder, cataloguePath) = Self.locate(path) else { return nil }
    guard let (backup, entry) = try entry(at: cataloguePath, in: folder) else {
      throw FileError(path: path, reason: "no such file or directory in the backup", failure: .missingInput)
    }
    let spooled = try SpooledFile(in: SpooledFile.preferredFolder(fallback: temporaryFolder))
    try backup.read(entry) { try spooled.write($0) }
    return (entry, spooled)
  }
}
