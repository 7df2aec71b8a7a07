import ShelfAudio
import ShelfBackup
import ShelfCatalog
import ShelfCore
import ShelfFacts
import ShelfPNG
import ShelfWorkers

extension BackupEntryFiles {
  /// The backup entries of this command's arguments, their backups' passwords asked as
  /// `--password-file`, `SHELF_BACKUP_PASSWORD` or the terminal give them.
  convenience init(_ invocation: Invocation) {
    self.init(
      resolver: BackupPasswordInput(invocation).resolver(), temporaryFolder: invocation.temporaryFolder)
  }
}

extension InfoCommand {
  /// Describes a backup entry named by its catalogued path (see
  /// `BackupEntryResolver.entry(describing:)`). Nil when `path` names no backup entry.
  static func describeBackupEntry(
    _ path: RawPath, store: CatalogStore?, files: BackupEntryFiles, extractors: ExtractorPool? = nil
  ) throws -> Description? {
    guard Operand.namesBackupEntry(path),
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
    for (index, track) in operands.tracks.enumerated() {
      do {
        _ = try files.check(track.path)
        if operands.foundInFolders.contains(index) { keptFromFolders.insert(kept.count) }
        kept.append(track)
      } catch {
        let advised = AdvisedBackupError.advising(error)
        if told.insert(String(describing: advised)).inserted { console.error(String(describing: advised)) }
        failures.append((advised as? any ShelfError)?.failure ?? .io)
      }
    }
    operands.tracks = kept
    operands.foundInFolders = keptFromFolders
  }
}

extension BackupEntryFiles {
  /// The error with the path of a spooled file, where it names one, told as the catalogued
  /// path the file stands for: a decoder names the file it opened, which the user never gave.
  func naming(_ error: any ShelfError) -> any ShelfError {
    guard let file = spooledNames().first(where: { error.description.contains($0.path.escaped) }) else {
      return error
    }
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
