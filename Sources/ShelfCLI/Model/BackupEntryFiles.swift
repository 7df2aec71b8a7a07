import ShelfAudio
import ShelfBackup
import ShelfCatalog
import ShelfCore
import ShelfFacts
import ShelfPNG
import ShelfWorkers
import Synchronization

/// Readable files for the catalogued paths of iPhone backup entries given where a file is
/// expected (`info`, `show`, `play`, `crush`): such a path exists only in the catalogue, so
/// its content is read from the backup (decrypted) into a private spooled file that lives as
/// long as this value. Paths that exist on disk are used as they are.
final class BackupEntryFiles: Sendable {
  let resolver: BackupEntryResolver
  let temporaryFolder: RawPath
  /// The spooled files, kept open for the command's life, by their readable path, with the
  /// catalogued path each stands for.
  private let spooled = Mutex<[RawPath: (file: SpooledFile, name: RawPath)]>([:])

  init(_ invocation: Invocation) {
    resolver = BackupPasswordInput(invocation).resolver()
    temporaryFolder = invocation.temporaryFolder
  }

  /// True when nothing exists at `path` and a folder above it is an iPhone backup.
  static func isBackupEntryPath(_ path: RawPath) -> Bool {
    guard case .failure(let error) = Result(catching: { () throws(FileError) in try FileStatus.lstat(path) }),
      error.isNoSuchFile
    else { return false }
    return BackupEntryResolver.locate(path) != nil
  }

  /// A readable path for `path`: the spooled content of the backup entry it names, or nil
  /// when it names none (it exists on disk, or lies in no backup). Throws the backup's errors
  /// (a wrong password, a missing stored file).
  func readablePath(_ path: RawPath) throws -> RawPath? {
    try spool(path)?.path
  }

  /// The backup entry `path` names and the readable path of its spooled content; nil when
  /// `path` names none.
  func spool(_ path: RawPath) throws -> (entry: BackupEntry, path: RawPath)? {
    guard Self.isBackupEntryPath(path),
      let (entry, file) = try resolver.spool(path, temporaryFolder: temporaryFolder)
    else { return nil }
    spooled.withLock { $0[file.path] = (file, path) }
    return (entry, file.path)
  }

  /// Checks that `path` names an entry of a backup that opens (its password asked and checked
  /// now), without reading the entry's content; false when `path` names no backup entry.
  func check(_ path: RawPath) throws -> Bool {
    guard Self.isBackupEntryPath(path), let (folder, cataloguePath) = BackupEntryResolver.locate(path) else {
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
  func openAudio(_ path: RawPath) throws(AudioError) -> any AudioDecoder {
    guard Self.isBackupEntryPath(path) else { return try AudioDecoders.open(path: path) }
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
  func name(of path: RawPath) -> RawPath {
    spooled.withLock { $0[path]?.name } ?? path
  }

  /// The event with the paths of spooled files given as the catalogued paths they stand for.
  func naming(_ event: PlayerEvent) -> PlayerEvent {
    switch event {
    case .started(let track, let path, let info): .started(track: track, path: name(of: path), info: info)
    case .finished(let track, let path): .finished(track: track, path: name(of: path))
    case .failed(let track, let path, let error): .failed(track: track, path: name(of: path), error: error)
    case .startPastEnd(let track, let path, let start, let duration):
      .startPastEnd(track: track, path: name(of: path), start: start, duration: duration)
    default: event
    }
  }
}

extension InfoCommand {
  /// Describes a backup entry named by its catalogued path (see
  /// `BackupEntryResolver.entry(describing:)`). Nil when `path` names no backup entry.
  static func describeBackupEntry(
    _ path: RawPath, store: CatalogStore?, files: BackupEntryFiles, extractors: ExtractorPool? = nil
  ) throws -> Description? {
    guard BackupEntryFiles.isBackupEntryPath(path),
      let (entry, catalogued) = try files.resolver.entry(
        describing: path, store: store, temporaryFolder: files.temporaryFolder, extractors: extractors)
    else { return nil }
    return Description(path: entry.path, entry: entry, catalogued: catalogued)
  }
}

extension Playlist {
  /// Checks the backup entries among the tracks (from a query or named) before playing: each
  /// backup is opened once (a wrong password is found here, before anything plays) and each
  /// entry looked up; one the backup does not hold is reported and dropped. The content is
  /// read only when the track's turn comes (`BackupEntryFiles.openAudio`).
  mutating func checkBackupEntries(through files: BackupEntryFiles, console: Console) {
    var kept: [PlayerTrack] = []
    var keptFromFolders: Set<Int> = []
    // A backup that does not open is told once, however many of its tracks were asked for.
    var told: Set<String> = []
    for (index, track) in tracks.enumerated() {
      do {
        _ = try files.check(track.path)
        if foundInFolders.contains(index) { keptFromFolders.insert(kept.count) }
        kept.append(track)
      } catch {
        let advised = AdvisedBackupError.advising(error)
        if told.insert(String(describing: advised)).inserted { console.error(String(describing: advised)) }
        failures.append((advised as? any ShelfError)?.failure ?? .io)
      }
    }
    tracks = kept
    foundInFolders = keptFromFolders
  }
}

extension BackupEntryFiles {
  /// The error with the path of a spooled file, where it names one, told as the catalogued
  /// path the file stands for: a decoder names the file it opened, which the user never gave.
  func naming(_ error: any ShelfError) -> any ShelfError {
    let files = spooled.withLock { $0.map { (path: $0.key, name: $0.value.name) } }
    guard let file = files.first(where: { error.description.contains($0.path.escaped) }) else { return error }
    return RenamedError(error: error, spooled: file.path, name: file.name)
  }

  /// The report with a spooled backup entry named by its catalogued path, in its error too.
  func naming(_ report: PNGCrushReport) -> PNGCrushReport {
    let name = name(of: report.job.input)
    guard name != report.job.input else { return report }
    var named = report
    named.job.input = name
    if let error = report.error {
      named.error = RenamedError(error: error, spooled: report.job.input, name: name)
    }
    return named
  }
}

/// An error about a spooled file, told with the catalogued path the file stands for.
private struct RenamedError: ShelfError {
  let error: any ShelfError
  let spooled: RawPath
  let name: RawPath

  var failure: FailureKind { error.failure }
  var description: String { error.description.replacing(spooled.escaped, with: name.escaped) }
}
