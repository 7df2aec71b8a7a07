public import ShelfAudio
public import ShelfBackup
public import ShelfCore
import ShelfWorkers
import Synchronization

/// Readable files for the catalogued paths of iPhone backup entries given where a file is
/// expected (`info`, `show`, `play`, `crush`): such a path exists only in the catalogue, so
/// its content is read from the backup (decrypted) into a private spooled file that lives as
/// long as this value. Paths that exist on disk are used as they are.
public final class BackupEntryFiles: Sendable {
  public let resolver: BackupEntryResolver
  /// Where spooled content goes when memory is not the place (see `SpooledFile`).
  public let temporaryFolder: RawPath
  /// The spooled files, kept open for the command's life, by their readable path, with the
  /// catalogued path each stands for.
  private let spooled = Mutex<[RawPath: (file: SpooledFile, name: RawPath)]>([:])

  /// Backup entries read through `resolver` (which asks each backup's password once).
  public init(resolver: BackupEntryResolver, temporaryFolder: RawPath) {
    self.resolver = resolver
    self.temporaryFolder = temporaryFolder
  }

  /// A readable path for `path`: the spooled content of the backup entry it names, or nil
  /// when it names none (it exists on disk, or lies in no backup). Throws the backup's errors
  /// (a wrong password, a missing stored file).
  public func readablePath(_ path: RawPath) throws -> RawPath? {
    try spool(path)?.path
  }

  /// The backup entry `path` names and the readable path of its spooled content; nil when
  /// `path` names none.
  public func spool(_ path: RawPath) throws -> (entry: BackupEntry, path: RawPath)? {
    guard Operand.namesBackupEntry(path),
      let (entry, file) = try resolver.spool(path, temporaryFolder: temporaryFolder)
    else { return nil }
    spooled.withLock { $0[file.path] = (file, path) }
    return (entry, file.path)
  }

  /// Checks that `path` names an entry of a backup that opens (its password asked and checked
  /// now), without reading the entry's content; false when `path` names no backup entry.
  public func check(_ path: RawPath) throws -> Bool {
    guard Operand.namesBackupEntry(path), let (folder, cataloguePath) = BackupEntryResolver.locate(path)
    else {
      return false
    }
    guard try resolver.entry(at: cataloguePath, in: folder) != nil else {
      throw FileError(path: path, reason: "no such file or directory in the backup", failure: .missingInput)
    }
    return true
  }

  /// Opens a track for `play` when its turn comes: a backup entry's content is decrypted only
  /// now, into a private file that the decoder keeps open (it is gone when the decoder is), so
  /// one track at a time is held; any other path is opened as it is. Errors name `path`.
  public func openAudio(_ path: RawPath) throws(AudioError) -> any AudioDecoder {
    guard Operand.namesBackupEntry(path) else { return try AudioDecoders.open(path: path) }
    let spooled: SpooledFile
    do {
      guard let (_, file) = try resolver.spool(path, temporaryFolder: temporaryFolder) else {
        return try AudioDecoders.open(path: path)
      }
      spooled = file
    } catch let error as AudioError {
      throw error
    } catch {
      let failure = (error as? any ShelfError)?.failure
      throw AudioError(
        path: path, reason: failure == .missingInput ? .missingFile : .damaged,
        message: (error as? BackupError)?.explanation ?? (error as? FileError)?.reason ?? "\(error)")
    }
    do {
      return try AudioDecoders.open(path: spooled.path)
    } catch {
      throw AudioError(path: path, reason: error.reason, message: error.message)
    }
  }

  /// The catalogued path a readable path stands for (itself when it is not spooled).
  public func name(of path: RawPath) -> RawPath {
    spooled.withLock { $0[path]?.name } ?? path
  }

  /// The event with the paths of spooled files given as the catalogued paths they stand for.
  public func naming(_ event: PlayerEvent) -> PlayerEvent {
    switch event {
    case .started(let track, let path, let info): .started(track: track, path: name(of: path), info: info)
    case .finished(let track, let path): .finished(track: track, path: name(of: path))
    case .failed(let track, let path, let error): .failed(track: track, path: name(of: path), error: error)
    case .startPastEnd(let track, let path, let start, let duration):
      .startPastEnd(track: track, path: name(of: path), start: start, duration: duration)
    default: event
    }
  }

  /// The spooled files' readable paths with the catalogued paths they stand for.
  public func spooledNames() -> [(path: RawPath, name: RawPath)] {
    spooled.withLock { $0.map { (path: $0.key, name: $0.value.name) } }
  }
}
