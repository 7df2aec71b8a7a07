/// What kind of failure an error is, so that the CLI can map it to a sysexits code.
///
/// Domain libraries classify their errors with this; only ShelfCLI turns it into an exit status.
public enum FailureKind: String, Sendable, Equatable, WireCodable {
  /// The input exists but its content is wrong (corrupt, truncated, unsupported): exit 65.
  case badInput
  /// The input is missing or cannot be read: exit 66.
  case missingInput
  /// An output file or folder cannot be created: exit 73.
  case cannotCreate
  /// Reading or writing failed part way (disk full, device gone): exit 74.
  case io
  /// A service the command needs (the catalogue's database server) cannot be reached: exit 69.
  case unavailable
  /// The catalogue is locked by another writer: exit 75.
  case busy
  /// The user interrupted the work (Ctrl-C, SIGTERM): exit 130.
  case interrupted
  /// The request itself was malformed (bad option value found late): exit 64.
  case usage
  /// Access was refused: a wrong or missing password for an encrypted backup: exit 77.
  case noPermission
}

/// An error of one of shelf's libraries: a one-line description naming the file and the reason,
/// and the kind of failure it is.
public protocol ShelfError: Error, CustomStringConvertible {
  /// How the failure should be classified for exit codes.
  var failure: FailureKind { get }
}
