internal import CCrypto

/// A backup password, as the CLI read it from a file, the environment or a prompt.
///
/// It is kept only as long as the backup is being opened, wiped when released, and never
/// printed: its description is `<password>`, so it cannot leak into a log or an error line.
public final class BackupPassword: @unchecked Sendable, CustomStringConvertible, CustomDebugStringConvertible
{
  /// The password's bytes (UTF-8 as typed); wiped on deinit.
  private(set) var bytes: [UInt8]

  /// Takes the password's bytes; the caller should wipe its own copy.
  public init(bytes: [UInt8]) { self.bytes = bytes }

  deinit { SecretBytes.wipe(&bytes) }

  public var description: String { "<password>" }
  public var debugDescription: String { "<password>" }
}

/// Wipes key material in a way the optimiser cannot remove (OpenSSL's `OPENSSL_cleanse`).
enum SecretBytes {
  static func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { raw in
      if let base = raw.baseAddress { OPENSSL_cleanse(base, raw.count) }
    }
  }
}

/// A key held only as long as it is needed and wiped when released.
final class SecretKey: @unchecked Sendable {
  private(set) var bytes: [UInt8]

  init(_ bytes: [UInt8]) { self.bytes = bytes }

  deinit { SecretBytes.wipe(&bytes) }
}
