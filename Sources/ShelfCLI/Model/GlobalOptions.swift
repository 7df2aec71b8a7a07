import ShelfCatalog
import ShelfCore

/// Options every command accepts, before or after the command name.
package struct GlobalOptions: Sendable {
  /// The catalogue: `--db`, else `SHELF_DB`, else `$XDG_DATA_HOME/shelf/catalog.sqlite`
  /// (`~/.local/share/shelf/catalog.sqlite`). A `postgresql://` URL names a shared catalogue
  /// on a PostgreSQL server.
  package let catalogue: CatalogLocation
  /// True when the catalogue was named (`--db` or `SHELF_DB`): only the default catalogue's
  /// folder is created automatically; a named one's folder must exist.
  package let databasePathIsExplicit: Bool
  /// `--password-file`: where the password of encrypted iPhone backups is read from.
  package let passwordFile: RawPath?
  /// `-v`: print details (skipped files, per-file errors in a scan).
  package let verbose: Bool
  /// `SHELF_LOCK_WAIT`, read once: the seconds a writer waits for another before it exits 75
  /// (2 when unset), or why the variable's text is no such number. Only the commands that
  /// wait (`Invocation.lockWait`) refuse a bad one.
  let lockWait: Result<Double, UsageError>

  // The global options, declared once: listed in every help page and read by these keys.
  static let db = Option(
    "db", value: "path|url",
    help:
      "Use the catalogue at <path>, or on the PostgreSQL server at <url> (postgresql://USER@HOST:PORT/DB; default: $SHELF_DB, else $XDG_DATA_HOME/shelf/catalog.sqlite)."
  )
  static let passwordFile = Option(
    "password-file", value: "file",
    help:
      "Read the password of encrypted iPhone backups from <file> (else $SHELF_BACKUP_PASSWORD, else a prompt on a terminal)."
  )
  static let verbose = Flag(
    "verbose", short: "v", help: "Print details, such as each file skipped or failed.")
  static let help = Flag("help", short: "h", help: "Show help information.")
  static let version = Flag("version", short: "V", help: "Show the version.")

  static let specs: [OptionSpec] =
    ([Self.db, Self.passwordFile, Self.verbose, Self.help, Self.version] as [any OptionKey])
    .map(\.spec)

  /// Reads the global options; an empty `--db` is a usage error (it would otherwise name the
  /// current folder, or fall back to the default catalogue unasked).
  init(parsed: ParsedArguments, environment: [String: String]) throws(UsageError) {
    if let db = parsed.path(Self.db), db.bytes.isEmpty {
      throw UsageError("option '--db' needs a catalogue file or a postgresql:// URL, not an empty value")
    }
    verbose = parsed[Self.verbose]
    lockWait = Self.lockWait(environment["SHELF_LOCK_WAIT"])
    passwordFile = parsed.path(Self.passwordFile)
    if let url = parsed[Self.db].flatMap(PostgresURL.init) {
      catalogue = .postgres(url)
      databasePathIsExplicit = true
      if url.hasPassword { CommandLinePasswords.hide() }
    } else if let db = parsed.path(Self.db) {
      catalogue = .file(db)
      databasePathIsExplicit = true
    } else if let db = environment["SHELF_DB"], !db.isEmpty {
      catalogue = CatalogLocation(db)
      databasePathIsExplicit = true
    } else if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
      catalogue = .file(RawPath(data).appending("shelf/catalog.sqlite"))
      databasePathIsExplicit = false
    } else {
      let home = environment["HOME"] ?? "/"
      catalogue = .file(RawPath(home).appending(".local/share/shelf/catalog.sqlite"))
      databasePathIsExplicit = false
    }
  }
}

extension GlobalOptions {
  /// A writer's wait from the text of `SHELF_LOCK_WAIT`; nil (unset) is 2 seconds.
  static func lockWait(_ text: String?) -> Result<Double, UsageError> {
    guard let text else { return .success(2) }
    guard let seconds = Double(text), seconds.isFinite, seconds >= 0 else {
      return .failure(
        UsageError(
          "invalid value '\(text)' for SHELF_LOCK_WAIT: expected a number of seconds, such as 2 or 0.5"))
    }
    return .success(seconds)
  }
}

/// Everything a command's `run` receives.
package struct Invocation: Sendable {
  package let command: Command
  package let arguments: ParsedArguments
  package let globals: GlobalOptions
  package let console: Console
  package let environment: [String: String]

  /// How long a writer waits for another before it exits 75 (`SHELF_LOCK_WAIT`, else 2
  /// seconds); a bad value is a usage error of the command that would wait.
  package func lockWait() throws(UsageError) -> Double {
    switch globals.lockWait {
    case .success(let seconds): return seconds
    case .failure(let error): throw usageError(error.message)
    }
  }

  /// A usage error for this command, for checks made after parsing.
  package func usageError(_ message: String) -> UsageError {
    UsageError(message, command: command.name)
  }

  /// Where a command spools what it must hold in a file of its own (standard input, a backup
  /// entry's content): `$TMPDIR`, else `/tmp`.
  var temporaryFolder: RawPath {
    RawPath(environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp")
  }
}
