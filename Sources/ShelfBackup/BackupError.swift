import ShelfCore

/// Why a backup, or one file of it, could not be read: the path concerned and a typed reason,
/// so that the CLI can map a wrong password to its own exit status and print one line per
/// problem.
public struct BackupError: ShelfError, Equatable {
  /// What went wrong.
  public enum Reason: Error, Sendable, Equatable {
    /// The folder holds no Info.plist with a manifest of any era.
    case notABackup
    /// The backup is encrypted and no password was given.
    case passwordRequired
    /// The password does not unlock the backup's keybag (found at key unwrap, before any file
    /// is read).
    case wrongPassword
    /// Info.plist, Manifest.plist or Status.plist cannot be parsed.
    case badPropertyList(String)
    /// The keybag in Manifest.plist is damaged.
    case corruptKeybag(String)
    /// The keybag asks for no PBKDF2 rounds or more than `Keybag.iterationLimit` (a hostile backup
    /// could otherwise keep the reader busy for days).
    case absurdIterationCount(field: String, count: Int64)
    /// Manifest.db, Manifest.mbdb or an mdinfo/mdbackup record is truncated or damaged.
    case corruptManifest(String)
    /// Status.plist says the backup is still being written.
    case unfinished
    /// A manifest row names a path that would escape its domain (`..`, absolute, NUL).
    case unsafePath(RawPath)
    /// The stored file of an entry (named here as in the backup folder) is missing.
    case missingStoredFile(name: String)
    /// The stored file is not a multiple of 16 bytes, or its padding is wrong, or it does not
    /// decrypt (a damaged key).
    case badCiphertext(String)
    /// The content's size differs from the manifest's.
    case sizeMismatch(expected: Int64, actual: Int64)
    /// The entry is a folder or a link: it has no content to read.
    case notAFile(BackupEntryType)
    /// Reading failed (an I/O error of the file system).
    case io(String)
  }

  /// The backup folder, or the entry's catalogued path.
  public var path: RawPath
  public var reason: Reason

  /// An error about `path` (a backup folder, a file of it, or an entry's catalogued path).
  public init(path: RawPath, reason: Reason) {
    self.path = path
    self.reason = reason
  }

  public var failure: FailureKind {
    switch reason {
    case .passwordRequired, .wrongPassword: .noPermission
    case .notABackup, .missingStoredFile: .missingInput
    case .io: .io
    case .badPropertyList, .corruptKeybag, .absurdIterationCount, .corruptManifest, .unfinished, .unsafePath,
      .badCiphertext, .sizeMismatch, .notAFile:
      .badInput
    }
  }

  /// The reason in words, without the path.
  public var explanation: String {
    switch reason {
    case .notABackup:
      "not an iPhone backup (no Info.plist with Manifest.db, Manifest.mbdb, .mdinfo or .mdbackup files)"
    case .passwordRequired: "encrypted backup: a password is needed"
    case .wrongPassword: "wrong password for this encrypted backup"
    case .badPropertyList(let why): why
    case .corruptKeybag(let why): "corrupt keybag in Manifest.plist: \(why)"
    case .absurdIterationCount(let field, let count):
      "keybag asks for \(count) \(field) key-derivation rounds, outside the accepted 1 to \(Keybag.iterationLimit)"
    case .corruptManifest(let why): why
    case .unfinished: "backup is unfinished (Status.plist says it is still being written)"
    case .unsafePath(let path): "manifest path escapes its domain: \(path.escaped)"
    case .missingStoredFile(let name): "stored file \(name) is missing from the backup"
    case .badCiphertext(let why): why
    case .sizeMismatch(let expected, let actual):
      "content is \(actual) bytes but the manifest says \(expected)"
    case .notAFile(let type): "is a \(type.rawValue) in the backup, not a file"
    case .io(let why): why
    }
  }

  public var description: String { "\(path.escaped): \(explanation)" }
}
