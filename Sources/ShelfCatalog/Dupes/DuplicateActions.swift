public import ShelfCore

#if canImport(Glibc)
  import Glibc
#endif

/// What `shelf dupes` does to the duplicates it does not keep, when asked (none by default).
public enum DuplicateAction: String, Sendable {
  /// Replace each by a hard link to the kept file (same filesystem only).
  case hardLink = "hard"
  /// Replace each by a reflink of the kept file (FICLONE; filesystems that share blocks).
  case reflink
  /// Move each to the freedesktop.org trash of its filesystem.
  case trash
}

/// What became of one duplicate's name.
public struct DuplicateActionReport: Sendable {
  public enum Outcome: Sendable {
    /// Done (or, in a dry run, what would be done); for the trash, where the file went.
    case done(trashedTo: RawPath?)
    /// Left alone: it changed since it was hashed, or no longer holds the kept file's bytes.
    case skipped(String)
    case failed(any ShelfError)
  }

  public var path: RawPath
  public var kept: RawPath
  /// The content's size in bytes.
  public var size: Int64
  public var outcome: Outcome
}

/// Carries out a `DuplicateAction` on the groups `DuplicateFinder` found, under the catalogue's
/// writer lock, and records the result in the catalogue in one write: a name replaced by a
/// link or reflink gets its new inode and times, a trashed one leaves the catalogue (its file
/// is gone from the root). Before each name is touched it is checked again: it must still be
/// the file that was hashed (device, inode, size, times) and hold exactly the kept file's
/// bytes (compared byte for byte now); otherwise it is skipped. Backup entries and files under
/// reference folders are kept by the finder, so never reach here.
public struct DuplicateActions {
  public var action: DuplicateAction
  /// Report what would be done, change nothing.
  public var dryRun: Bool
  public var trash: FreedesktopTrash
  /// Runs with a duplicate's path once it is compared, right before it is acted on: lets tests
  /// change the file at that most delicate point.
  public var beforeAction: ((RawPath) -> Void)?

  public init(
    action: DuplicateAction, dryRun: Bool, trash: FreedesktopTrash, beforeAction: ((RawPath) -> Void)? = nil
  ) {
    self.action = action
    self.dryRun = dryRun
    self.trash = trash
    self.beforeAction = beforeAction
  }

  /// Acts on every group's duplicates; `writer` is the catalogue opened for writing (its
  /// lock held), updated as names change. `done` is called after each name.
  public func apply(
    _ groups: [DuplicateGroup], writer: CatalogStore, done: (DuplicateActionReport) -> Void = { _ in }
  ) throws -> [DuplicateActionReport] {
    var reports: [DuplicateActionReport] = []
    try writer.transaction {
      for group in groups {
        // The file the others become (or are compared with before the trash): a kept file
        // on disk, never a backup entry.
        guard let kept = group.members.first(where: { $0.keep && !$0.isBackupEntry })?.file.path else {
          for member in group.duplicates {
            let report = DuplicateActionReport(
              path: member.file.path, kept: member.file.path, size: group.size,
              outcome: .skipped("no kept copy on disk to compare it with"))
            reports.append(report)
            done(report)
          }
          continue
        }
        var replaced: [RawPath] = []
        for member in group.duplicates {
          for name in [member.file.path] + member.otherNames {
            let report = DuplicateActionReport(
              path: name, kept: kept, size: group.size,
              outcome: try act(on: name, member: member, kept: kept, writer: writer))
            if case .done = report.outcome, !dryRun, action != .trash { replaced.append(name) }
            reports.append(report)
            done(report)
          }
        }
        // Each new link changes the kept inode's ctime: its names are recorded once all are made.
        guard !replaced.isEmpty else { continue }
        let keptNames = group.members.filter { $0.keep && !$0.isBackupEntry }.flatMap {
          [$0.file.path] + $0.otherNames
        }
        for name in replaced + keptNames {
          if let status = try? FileStatus.lstat(name) {
            try writer.recordReplacedFile(at: name, status: status)
          }
        }
      }
    }
    return reports
  }

  private func act(on name: RawPath, member: DuplicateMember, kept: RawPath, writer: CatalogStore) throws
    -> DuplicateActionReport.Outcome
  {
    do {
      let status = try FileStatus.lstat(name)
      // Its ctime may have moved when another name of it was replaced: the inode, size and
      // modification time say it is the file hashed, the comparison below that it still holds
      // the bytes.
      guard let hashed = member.identity, status.device == hashed.device, status.inode == hashed.inode,
        status.size == hashed.size, status.mtimeNanoseconds == hashed.mtime
      else {
        return .skipped("changed since it was hashed")
      }
      guard try DuplicateReplacement.sameContent(name, kept) else {
        return .skipped("no longer holds the same bytes as \(kept.escaped)")
      }
      if dryRun { return .done(trashedTo: nil) }
      beforeAction?(name)
      switch action {
      case .hardLink:
        try DuplicateReplacement.replaceWithHardLink(name, keeping: kept, expecting: status)
      case .reflink:
        try DuplicateReplacement.replaceWithReflink(name, keeping: kept, expecting: status)
      case .trash:
        let trashed = try trash.trash(name, deletedAt: Int64(time(nil)), expecting: status)
        try writer.forgetFile(at: name)
        return .done(trashedTo: trashed)
      }
      return .done(trashedTo: nil)
    } catch let error as FileError where error.isChangedSinceRead {
      return .skipped("changed since it was compared")
    } catch let error as any ShelfError {
      return .failed(error)
    }
  }
}

extension CatalogStore {
  /// Records that the file at `path` (of this machine) was replaced by another file with the
  /// same content: its identity and times change, its facts stay.
  func recordReplacedFile(at path: RawPath, status: FileStatus) throws {
    let (hostSQL, hostParameters) = hostCondition
    try connection.run(
      "UPDATE files SET inode = ?, device = ?, mtime_ns = ?, ctime_ns = ? WHERE path = ? AND root_id IN (SELECT r.id FROM roots r WHERE 1 = 1\(hostSQL))",
      [
        .integer(Int64(bitPattern: status.inode)), .integer(Int64(bitPattern: status.device)),
        .integer(status.mtimeNanoseconds), .integer(status.ctimeNanoseconds), .blob(path.bytes),
      ] + hostParameters)
  }

  /// Removes the entry of a file of this machine that is gone (moved to the trash).
  func forgetFile(at path: RawPath) throws {
    let (hostSQL, hostParameters) = hostCondition
    let ids = try connection.query(
      "SELECT f.id FROM files f JOIN roots r ON r.id = f.root_id WHERE f.path = ?\(hostSQL)",
      [.blob(path.bytes)] + hostParameters
    ) { $0.integer(at: 0) }
    for case let id? in ids { try deleteFile(id: id) }
  }
}
