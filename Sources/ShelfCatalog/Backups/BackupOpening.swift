public import ShelfBackup
public import ShelfCore

extension Backup {
  /// Gives the password to try on the backup at a folder, which has refused `refused`
  /// passwords so far; nil when there is none (more) to give.
  public typealias PasswordSource = @Sendable (RawPath, _ refused: Int) throws -> BackupPassword?

  /// Opens the backup at `folder`: an encrypted one asks `password` for its password, and again
  /// after each wrong one, until it has no other to give (the backup's last error is thrown:
  /// a password required, or a wrong one). The one way `index`, `extract`, `info`, `show`,
  /// `play` and `crush` open a backup, so each asks for a password the same way.
  static func open(_ folder: RawPath, password: PasswordSource) throws -> Backup {
    var given: BackupPassword?
    var refused = 0
    while true {
      let attempt = Result { () throws(BackupError) in try Backup(folder: folder, password: given) }
      guard case .failure(let error) = attempt else { return try attempt.get() }
      switch error.reason {
      case .passwordRequired where given == nil: break
      case .wrongPassword: refused += 1
      default: throw error
      }
      guard let next = try password(folder, refused) else { throw error }
      given = next
    }
  }
}
