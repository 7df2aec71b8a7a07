import ShelfTestSupport

/// A folder `root` filled by a test and indexed into a SQLite catalogue of its own: the
/// fixture of the suites that run queries and templates against a few known files.
final class IndexedRoot {
  let folder: TemporaryDirectory
  let root: String
  let database: String

  /// Makes `root`, lets `fill` put the files in it (given the temporary folder and the root's
  /// path), and indexes it.
  init(fill: (TemporaryDirectory, String) throws -> Void) throws {
    folder = try TemporaryDirectory()
    root = folder.path + "/root"
    try folder.makeDirectory("root")
    try fill(folder, root)
    database = folder.path + "/catalog.sqlite"
    let indexed = try ShelfProcess.run(["--db", database, "index", root])
    precondition(indexed.status == 0, indexed.stderr)
  }

  /// shelf with `arguments`, against this catalogue.
  func run(_ arguments: [String]) throws -> ShelfResult {
    try ShelfProcess.run(["--db", database] + arguments)
  }
}
