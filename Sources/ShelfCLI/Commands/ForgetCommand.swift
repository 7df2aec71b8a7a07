import ShelfCatalog
import ShelfCore

/// `shelf forget ROOT…`: drop roots and their entries from the catalogue.
enum ForgetCommand {
  static let command = Command(
    name: "forget",
    abstract: "Drop roots and their entries from the catalogue.",
    discussion: """
      Removes each ROOT (as shelf roots lists it) and every entry under it from the \
      catalogue, with the backups found in it (the roots listed under it), one line each, \
      the backups first. The files on disk are not touched. A ROOT whose folder is gone can be \
      forgotten by the path the catalogue knows. A ROOT the catalogue does not know is an \
      error naming it: the others are still forgotten, and the exit status is 1 (66 when no \
      ROOT was known). Like index, forget takes the catalogue's writer lock: while another \
      index or forget runs, it waits briefly, then exits with status 75.
      """,
    arguments: [
      ArgumentSpec("root", help: "A catalogued root to forget.", repeating: true, completion: .directory)
    ],
    examples: [
      Example("shelf forget ~/Sandboxes/Old", "Forget a root; its files stay on disk."),
      Example("shelf index --prune", "Forget every root whose folder is gone (and rescan the others)."),
    ],
    run: run)

  /// The options of one `shelf forget` run.
  struct Options {
    /// The roots to forget.
    var roots: [RawPath]
    /// How long to wait for another writer (`Invocation.lockWait`).
    var lockWait: Double

    init(_ invocation: Invocation) throws(UsageError) {
      roots = invocation.arguments.positionals.map(\.path)
      lockWait = try invocation.lockWait()
    }
  }

  static func run(_ invocation: Invocation) async throws -> ExitStatus {
    let options = try Options(invocation)
    let store = try invocation.openCatalogueForWriting(lockWait: options.lockWait, create: false)
    var outcome = BatchOutcome()
    for root in options.roots {
      do {
        let forgottenRoots = try store.forgetRoot(root, lockWait: options.lockWait)
        for (index, forgotten) in forgottenRoots.enumerated() {
          let count = forgotten.entries
          // The named root comes last, after the backups found in it.
          let what = index == forgottenRoots.count - 1 ? "root" : "backup"
          invocation.console.write(
            "\(forgotten.root.path.escaped): forgot the \(what) and its \(count) entr\(count == 1 ? "y" : "ies")\n"
          )
        }
        outcome.succeeded()
      } catch {
        outcome.failed(AdvisedCatalogError.advising(error), console: invocation.console)
      }
    }
    return outcome.exitStatus
  }
}
