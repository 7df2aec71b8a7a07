import ShelfBackup
import ShelfCatalog
import ShelfCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Where the password of an encrypted backup comes from: `--password-file FILE`, else
/// `SHELF_BACKUP_PASSWORD`, else a prompt without echo when a person sits at a terminal.
///
/// Asked only when an encrypted backup is met. The password given (or the last one typed) is
/// tried on every backup of the run first; on a terminal, a backup it does not open is asked
/// for by name, and a wrong answer is asked again, three times in all (as sudo does). The
/// password never goes to stdout, to an error line or to the command line (where `ps` would
/// show it).
final class BackupPasswordInput: Sendable {
  private let file: RawPath?
  private let environmentPassword: String?
  private let console: Console
  private let state = Mutex(State())

  /// What earlier questions left: the password file's or environment's answer (read once),
  /// the last password typed, and how many times each backup was prompted for.
  private struct State {
    var given: Result<BackupPassword?, FileError>?
    var typed: BackupPassword?
    var prompts: [RawPath: Int] = [:]
  }

  /// Prompts for one backup, as sudo allows.
  static let promptsPerBackup = 3

  init(_ invocation: Invocation) {
    file = invocation.globals.passwordFile
    environmentPassword = invocation.environment["SHELF_BACKUP_PASSWORD"].flatMap { $0.isEmpty ? nil : $0 }
    console = invocation.console
  }

  /// A resolver of catalogued backup paths that asks this input for passwords.
  func resolver() -> BackupEntryResolver {
    BackupEntryResolver { folder, refused in try self.password(for: folder, refused: refused) }
  }

  /// The password to try on the backup at `backup`, which has refused `refused` passwords so
  /// far; nil when there is none (more) to give and nobody can be asked (the backup then
  /// reports that it needs one, or that the last was wrong). Throws when the password file
  /// cannot be read.
  func password(for backup: RawPath, refused: Int = 0) throws(FileError) -> BackupPassword? {
    let result = state.withLock { state -> Result<BackupPassword?, FileError> in
      Result { () throws(FileError) in try answer(for: backup, refused: refused, state: &state) }
    }
    return try result.get()
  }

  private func answer(for backup: RawPath, refused: Int, state: inout State) throws(FileError)
    -> BackupPassword?
  {
    if state.given == nil { state.given = Result { () throws(FileError) in try givenPassword() } }
    let given = try state.given?.get()
    let shared = given ?? state.typed
    if refused == 0, let shared { return shared }
    guard console.stdinIsTerminal && console.stderrIsTerminal else { return nil }
    let prompts = state.prompts[backup, default: 0]
    guard prompts < Self.promptsPerBackup else { return nil }
    if prompts > 0 {
      console.note("Sorry, try again.")
    } else if shared != nil {
      console.note("\(backup.escaped): the password given does not open this backup")
    }
    state.prompts[backup] = prompts + 1
    let typed = prompt("Password for the encrypted backup \(backup.escaped): ")
    if given == nil, let typed { state.typed = typed }
    return typed
  }

  /// The password of `--password-file` or `SHELF_BACKUP_PASSWORD`, if either gives one.
  private func givenPassword() throws(FileError) -> BackupPassword? {
    if let file {
      var bytes = try RegularFile(path: file).readAll(limit: 1 << 16)
      // The first line: a file written by `echo` ends with a line break that is no part of it.
      if let end = bytes.firstIndex(where: { $0 == 0x0A || $0 == 0x0D }) {
        bytes.replaceSubrange(end..., with: [])
      }
      defer { Self.wipe(&bytes) }
      return BackupPassword(bytes: bytes)
    }
    if let environmentPassword { return BackupPassword(bytes: Array(environmentPassword.utf8)) }
    return nil
  }

  /// Overwrites a copy of the password before its memory is released.
  private static func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { raw in
      if let base = raw.baseAddress { memset(base, 0, raw.count) }
    }
  }

  /// Reads one line from the terminal with echo turned off (restored afterwards). Echo goes off
  /// before the prompt shows, as getpass(3) does: what is typed once the prompt is visible is
  /// neither echoed nor discarded by the flush.
  private func prompt(_ text: String) -> BackupPassword? {
    console.clearStatus()
    var saved = termios()
    let canHide = tcgetattr(STDIN_FILENO, &saved) == 0
    if canHide {
      var quiet = saved
      quiet.c_lflag &= ~tcflag_t(ECHO)
      tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
    }
    Console.writeAll(STDERR_FILENO, Array(text.utf8))
    defer {
      if canHide { tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved) }
      Console.writeAll(STDERR_FILENO, Array("\n".utf8))
    }
    var bytes: [UInt8] = []
    var byte: UInt8 = 0
    while true {
      let count = read(STDIN_FILENO, &byte, 1)
      if count < 0 && errno == EINTR { continue }
      if count <= 0 || byte == 0x0A || byte == 0x0D { break }
      bytes.append(byte)
    }
    defer { Self.wipe(&bytes) }
    return bytes.isEmpty ? nil : BackupPassword(bytes: bytes)
  }
}

/// A backup error with the CLI's advice: how to give the password it needs.
struct AdvisedBackupError: ShelfError {
  let error: BackupError

  /// `error` with advice when it is a `BackupError` that needs it, else `error` itself.
  static func advising(_ error: any Error) -> any Error {
    guard let backup = error as? BackupError, backup.reason == .passwordRequired else { return error }
    return AdvisedBackupError(error: backup)
  }

  var failure: FailureKind { error.failure }

  var description: String {
    error.description
      + " (give --password-file FILE, set SHELF_BACKUP_PASSWORD, or run on a terminal to be asked)"
  }
}
