import ShelfCatalog
import ShelfCore

#if canImport(Glibc)
  import Glibc
#endif

extension Invocation {
  /// Opens the catalogue read-only, as every reader command does (`ls`, `info`, `stats`,
  /// `play`, `roots`); its errors carry the CLI's advice.
  func openCatalogueForReading() throws -> CatalogStore {
    try refuseFolderAsCatalogue(failure: .missingInput)
    do {
      return try CatalogStore.openForReading(at: globals.catalogue, shelfVersion: ShelfInfo.version)
    } catch let error as CatalogError {
      throw AdvisedCatalogError(error)
    }
  }

  /// Opens the catalogue for a writer command (`index`, `forget`, `record`) under the writer
  /// lock. With `create`, a missing catalogue is made: the default catalogue's folder is
  /// created too, a named catalogue's folder must exist (exit 73 naming it).
  func openCatalogueForWriting(lockWait: Double, create: Bool = true) throws -> CatalogStore {
    try refuseFolderAsCatalogue(failure: .cannotCreate)
    if create, case .file(let path) = globals.catalogue {
      let folder = path.absolute.parent
      if !globals.databasePathIsExplicit {
        try Directories.make(folder)
      } else if case .failure(let error) = Result(catching: { () throws(FileError) in
        try FileStatus.stat(folder)
      }), error.isNoSuchFile {
        throw FileError(path: folder, reason: "no such folder for the catalogue", failure: .cannotCreate)
      }
    }
    do {
      return try CatalogStore.openForWriting(
        at: globals.catalogue, shelfVersion: ShelfInfo.version, lockWait: lockWait, create: create)
    } catch let error as CatalogError {
      throw AdvisedCatalogError(error)
    }
  }
}

extension Invocation {
  /// A folder named as the catalogue (`--db ~/media`) is said to be one, with the file it
  /// may have meant, rather than as SQLite's "unable to open database file".
  func refuseFolderAsCatalogue(failure: FailureKind) throws(FileError) {
    guard case .file(let path) = globals.catalogue, (try? FileStatus.stat(path))?.type == .directory else {
      return
    }
    throw FileError(
      path: path,
      reason: "is a directory; the catalogue is a file (e.g. \(path.appending("catalog.sqlite").escaped))",
      failure: failure)
  }
}

/// A catalogue error with the CLI's advice added: the command that puts it right.
struct AdvisedCatalogError: ShelfError {
  let error: CatalogError

  init(_ error: CatalogError) { self.error = error }

  /// `error` with advice when it is a `CatalogError`, else `error` itself.
  static func advising(_ error: any Error) -> any Error {
    (error as? CatalogError).map(AdvisedCatalogError.init) ?? error
  }

  var failure: FailureKind { error.failure }

  var description: String {
    let subject = error.path.escaped
    switch error.reason {
    case .noCatalogue: return "\(subject): no catalogue yet (run `shelf index FOLDER` first)"
    case .olderSchema:
      return "\(subject): \(error.explanation): run 'shelf index' to upgrade the catalogue"
    case .busy:
      return
        "\(subject): catalogue is busy: another `shelf index` or `shelf forget` is writing it (try again when it has finished)"
    case .interrupted: return "\(subject): \(error.explanation) (run shelf index again to finish)"
    case .unknownRoot: return "\(subject): not a catalogued root (see `shelf roots`)"
    case .excludesBelongToRoot(let root):
      return "\(error.description): give --exclude when indexing \(root.escaped)"
    case .notACatalogue, .newerSchema, .cannotLock, .notEmpty, .severalHosts, .countMismatch:
      return error.description
    }
  }
}

/// Hides a password given in a catalogue URL on the command line from other users' `ps`:
/// the process's own copy of its arguments (what `/proc/PID/cmdline` shows) is overwritten
/// with the password's characters replaced by `*`. Until then (the first moments of the
/// process) it is visible, which is why the README advises `~/.pgpass` or `PGPASSWORD`.
enum CommandLinePasswords {
  static func hide() {
    for index in 0..<Int(CommandLine.argc) {
      guard let argument = CommandLine.unsafeArgv[index] else { continue }
      let text = String(cString: argument)
      let body = text.hasPrefix("--db=") ? String(text.dropFirst(5)) : text
      guard PostgresURL.isPostgres(body) else { continue }
      let hidden = ((text.count == body.count ? "" : "--db=") + PostgresURL.mask(body, keepingLength: true))
        .utf8CString
      // Same length by construction; checked so that nothing past the argument is written.
      guard hidden.count == strlen(argument) + 1 else { continue }
      for (offset, byte) in hidden.enumerated() { argument[offset] = byte }
    }
  }
}

extension Invocation {
  /// Opens the catalogue for reading with what `query` needs: the answers of its `copies` and
  /// `copy-in` terms computed first (see `prepareCopyFields`).
  func openCatalogue(for query: CatalogQuery) async throws -> CatalogStore {
    let store = try openCatalogueForReading()
    try await prepareCopyFields(query, in: store)
    return store
  }

  /// Compares the catalogue's contents for the `copies` and `copy-in` terms of `query`, if it
  /// has any (`CatalogStore.prepareCopyFields`), with the backups' passwords asked as for
  /// `extract`.
  func prepareCopyFields(_ query: CatalogQuery, in store: CatalogStore) async throws {
    guard
      let report = try await store.prepareCopyFields(
        for: query, backups: BackupPasswordInput(self).resolver())
    else { return }
    finishContentSearch(report, in: store)
  }

  /// After a search of contents: one warning per file or backup it could not read, and the
  /// digests it computed kept in the catalogue when it can take them now (else a warning: they
  /// are computed again next time).
  func finishContentSearch(_ report: DuplicateReport, in store: CatalogStore) {
    for skipped in report.skipped {
      console.warning("\(skipped.description); skipped")
    }
    if let reason = DuplicateFinder.keepDigests(
      of: report, in: store.location, shelfVersion: ShelfInfo.version)
    {
      console.warning("content hashes not kept in the catalogue (\(reason)); they will be computed again")
    }
  }
}
