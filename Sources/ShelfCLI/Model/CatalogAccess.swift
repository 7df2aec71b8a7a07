import ShelfCatalog
import ShelfCore

extension Invocation {
  /// Opens the catalogue read-only, as every reader command does (`ls`, `info`, `stats`,
  /// `play`, `roots`); its errors carry the CLI's advice.
  func openCatalogueForReading() throws -> CatalogStore {
    do {
      return try CatalogStore.openForReading(at: globals.databasePath, shelfVersion: ShelfInfo.version)
    } catch let error as CatalogError {
      throw AdvisedCatalogError(error)
    }
  }

  /// Opens the catalogue for a writer command (`index`, `forget`, `record`) under the writer
  /// lock. With `create`, a missing catalogue is made: the default catalogue's folder is
  /// created too, a named catalogue's folder must exist (exit 73 naming it).
  func openCatalogueForWriting(lockWait: Double, create: Bool = true) throws -> CatalogStore {
    let path = globals.databasePath
    if create {
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
        at: path, shelfVersion: ShelfInfo.version, lockWait: lockWait, create: create)
    } catch let error as CatalogError {
      throw AdvisedCatalogError(error)
    }
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
    case .notACatalogue, .newerSchema, .cannotLock: return error.description
    }
  }
}
