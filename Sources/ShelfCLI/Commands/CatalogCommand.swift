import ShelfCatalog
import ShelfCore

/// `shelf catalog copy FROM TO`: copies a whole catalogue between stores.
enum CatalogCommand {
  /// The actions `shelf catalog` takes.
  static let actions = ["copy"]

  static let command = Command(
    name: "catalog",
    abstract: "Copy a whole catalogue between a SQLite file and a PostgreSQL server.",
    discussion: """
      copy FROM TO copies every root and entry of the catalogue FROM into the catalogue TO. \
      Each is a SQLite file or a postgresql:// URL (as for --db): copy a SQLite catalogue to \
      a server to share it between machines, or a shared one back to a file for a backup. \
      The entries are streamed and committed at least every second, with a progress bar on \
      a terminal; at the end the number of entries in TO is checked against FROM, and a \
      PostgreSQL TO is analysed (ANALYZE), so that its first queries are planned on its \
      rows rather than after autovacuum comes by. TO must be \
      new or empty: a catalogue that already holds roots or entries is refused (exit 73) and \
      left as it was. A SQLite file holds one machine's roots, so a shared catalogue with \
      roots of several hosts cannot be copied into one (exit 65). FROM is only read. The \
      copied entries keep their facts; files whose timestamps were too fresh to trust at \
      their last scan are read again by the next shelf index.
      """,
    arguments: [
      ArgumentSpec("action", help: "What to do: copy.", completion: .choices(actions)),
      ArgumentSpec("from", help: "The catalogue to copy: a SQLite file or a postgresql:// URL."),
      ArgumentSpec("to", help: "Where to copy it: a new SQLite file or an empty PostgreSQL database."),
    ],
    examples: [
      Example(
        "shelf catalog copy ~/.local/share/shelf/catalog.sqlite postgresql://me@nas/shelf",
        "Move the local catalogue to a shared server."),
      Example(
        "shelf catalog copy postgres:///shelf?host=/run/postgresql backup.sqlite",
        "Back the shared catalogue up into a file."),
    ],
    manSections: SharedCatalogueManual.catalogSections,
    run: run)

  static func run(_ invocation: Invocation) async throws -> ExitStatus {
    let positionals = invocation.arguments.positionals
    let action = positionals[0].string
    guard actions.contains(action) else {
      throw invocation.usageError("unknown action '\(action)': expected 'copy'")
    }
    guard positionals.count == 3 else { throw invocation.usageError("copy takes FROM and TO") }
    let from = location(positionals[1])
    let to = location(positionals[2])
    let console = invocation.console
    do {
      let source = try CatalogStore.openForReading(at: from, shelfVersion: ShelfInfo.version)
      if case .file(let path) = to,
        case .failure(let error) = Result(catching: { () throws(FileError) in
          try FileStatus.stat(path.absolute.parent)
        }), error.isNoSuchFile
      {
        throw FileError(
          path: path.absolute.parent, reason: "no such folder for the catalogue", failure: .cannotCreate)
      }
      let name = RawPath(to.description)
      let count = try CatalogCopy.copy(from: source, to: to, shelfVersion: ShelfInfo.version) {
        copied, total in
        console.progressBar("Copying", finished: copied, of: total, current: name)
      }
      console.clearStatus()
      console.write("\(from) → \(to): copied \(count) entr\(count == 1 ? "y" : "ies")\n")
      return .success
    } catch {
      console.clearStatus()
      throw AdvisedCatalogError.advising(error)
    }
  }

  /// A catalogue named on the command line: a URL, else a file (any bytes).
  private static func location(_ argument: CommandLineArgument) -> CatalogLocation {
    PostgresURL(argument.string).map { .postgres($0) } ?? .file(argument.path)
  }
}
