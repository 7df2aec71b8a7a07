import ShelfCore

/// Options every command accepts, before or after the command name.
public struct GlobalOptions: Sendable {
  /// The catalogue database: `--db`, else `SHELF_DB`, else
  /// `$XDG_DATA_HOME/shelf/catalog.sqlite` (`~/.local/share/shelf/catalog.sqlite`).
  public let databasePath: RawPath
  /// True when the catalogue was named (`--db` or `SHELF_DB`): only the default catalogue's
  /// folder is created automatically; a named one's folder must exist.
  public let databasePathIsExplicit: Bool
  /// `--password-file`: where the password of encrypted iPhone backups is read from.
  public let passwordFile: RawPath?
  /// `-v`: print details (skipped files, per-file errors in a scan).
  public let verbose: Bool

  static let specs: [OptionSpec] = [
    OptionSpec(
      "db", value: "path",
      help: "Use the catalogue at <path> (default: $SHELF_DB, else $XDG_DATA_HOME/shelf/catalog.sqlite)."),
    OptionSpec(
      "password-file", value: "file",
      help:
        "Read the password of encrypted iPhone backups from <file> (else $SHELF_BACKUP_PASSWORD, else a prompt on a terminal)."
    ),
    OptionSpec("verbose", short: "v", help: "Print details, such as each file skipped or failed."),
    OptionSpec("help", short: "h", help: "Show help information."),
    OptionSpec("version", short: "V", help: "Show the version."),
  ]

  init(parsed: ParsedArguments, environment: [String: String]) {
    verbose = parsed.flag("verbose")
    passwordFile = parsed.pathValue("password-file")
    if let db = parsed.pathValue("db") {
      databasePath = db
      databasePathIsExplicit = true
    } else if let db = environment["SHELF_DB"], !db.isEmpty {
      databasePath = RawPath(db)
      databasePathIsExplicit = true
    } else if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
      databasePath = RawPath(data).appending("shelf/catalog.sqlite")
      databasePathIsExplicit = false
    } else {
      let home = environment["HOME"] ?? "/"
      databasePath = RawPath(home).appending(".local/share/shelf/catalog.sqlite")
      databasePathIsExplicit = false
    }
  }
}

/// Everything a command's `run` receives.
public struct Invocation: Sendable {
  public let command: Command
  public let arguments: ParsedArguments
  public let globals: GlobalOptions
  public let console: Console
  public let environment: [String: String]

  /// A usage error for this command, for checks made after parsing.
  public func usageError(_ message: String) -> UsageError {
    UsageError(message, command: command.name)
  }
}
