import ShelfCore

/// The backup keybag from Manifest.plist's `BackupKeyBag`: TLV records (4-byte tag, 4-byte
/// big-endian length) with a header (VERS TYPE UUID HMCK WRAP SALT ITER DPWT DPIC DPSL) and one
/// group per protection class (UUID CLAS WRAP KTYP WPKY). Unlocking it with the password gives
/// the class keys that unwrap every file's key.
package struct Keybag {
  /// The most PBKDF2 rounds accepted for either stage. Real backups use 10,000,000 SHA-256
  /// rounds (DPIC) and 10,000 SHA-1 rounds (ITER); a keybag asking for more is refused.
  static let iterationLimit: Int64 = 20_000_000

  /// Class keys whose WRAP has this bit are wrapped with the password-derived key.
  private static let wrapPasscode: Int64 = 2

  struct ClassKey {
    var protectionClass: Int64
    var wrap: Int64
    var wrappedKey: [UInt8]
  }

  var salt: [UInt8]
  var iterations: Int64
  /// The SHA-256 stage's salt and rounds (iOS 10.2 and later); nil before.
  var secondSalt: [UInt8]?
  var secondIterations: Int64?
  var classes: [ClassKey] = []

  /// Parses the TLV records, checking every length against the data.
  package init(_ data: [UInt8]) throws(BackupError.Reason) {
    var header: [String: [UInt8]] = [:]
    var current: [String: [UInt8]]?
    var seenUUID = false
    var groups: [[String: [UInt8]]] = []
    var offset = 0
    while offset < data.count {
      guard offset + 8 <= data.count else { throw .corruptKeybag("truncated record header") }
      let tag = String(decoding: data[offset..<offset + 4], as: UTF8.self)
      let length =
        Int(data[offset + 4]) << 24 | Int(data[offset + 5]) << 16 | Int(data[offset + 6]) << 8
        | Int(data[offset + 7])
      offset += 8
      guard length <= data.count - offset else { throw .corruptKeybag("\(tag) record runs past the end") }
      let value = Array(data[offset..<offset + length])
      offset += length
      if tag == "UUID" {
        if seenUUID {
          if let current { groups.append(current) }
          current = [:]
        }
        seenUUID = true
        continue
      }
      if current != nil {
        current![tag] = value
      } else if header[tag] == nil {
        header[tag] = value
      }
    }
    if let current { groups.append(current) }

    func integer(_ bytes: [UInt8]?, _ name: String) throws(BackupError.Reason) -> Int64 {
      guard let bytes, (1...8).contains(bytes.count) else { throw .corruptKeybag("no \(name)") }
      return bytes.reduce(Int64(0)) { $0 << 8 | Int64($1) }
    }
    guard let salt = header["SALT"], !salt.isEmpty else { throw .corruptKeybag("no SALT") }
    self.salt = salt
    iterations = try integer(header["ITER"], "ITER")
    if let dpsl = header["DPSL"] {
      secondSalt = dpsl
      secondIterations = try integer(header["DPIC"], "DPIC")
    }
    for group in groups {
      guard let wrappedKey = group["WPKY"] else { continue }
      classes.append(
        ClassKey(
          protectionClass: try integer(group["CLAS"], "CLAS"), wrap: try integer(group["WRAP"], "WRAP"),
          wrappedKey: wrappedKey))
    }
    guard !classes.isEmpty else { throw .corruptKeybag("no class keys") }
  }

  /// Derives the password key (SHA-256 stage first when the keybag has one, then SHA-1) and
  /// unwraps every password-wrapped class key with it. A failed unwrap means a wrong password:
  /// nothing else has been read yet.
  func unlock(with password: BackupPassword) throws(BackupError.Reason) -> [Int64: SecretKey] {
    for (name, count) in [("ITER", iterations), ("DPIC", secondIterations)] {
      guard let count else { continue }
      guard count >= 1, count <= Self.iterationLimit else {
        throw .absurdIterationCount(field: name, count: count)
      }
    }
    var secret = password.bytes
    defer { SecretBytes.wipe(&secret) }
    if let secondSalt, let secondIterations {
      guard
        let first = BackupCrypto.pbkdf2(
          secret, salt: secondSalt, iterations: Int32(secondIterations), digest: .sha256)
      else { throw .corruptKeybag("key derivation failed") }
      SecretBytes.wipe(&secret)
      secret = first.bytes
    }
    guard
      let passwordKey = BackupCrypto.pbkdf2(secret, salt: salt, iterations: Int32(iterations), digest: .sha1)
    else { throw .corruptKeybag("key derivation failed") }
    var keys: [Int64: SecretKey] = [:]
    for classKey in classes where classKey.wrap & Self.wrapPasscode != 0 {
      guard let key = BackupCrypto.unwrap(classKey.wrappedKey, with: passwordKey) else {
        throw .wrongPassword
      }
      keys[classKey.protectionClass] = key
    }
    guard !keys.isEmpty else { throw .corruptKeybag("no password-protected class keys") }
    return keys
  }
}

/// A file key as manifests store it: a 4-byte little-endian protection class, then the
/// 40-byte RFC 3394 wrapped key.
struct WrappedFileKey: Sendable, Equatable {
  var protectionClass: Int64
  var wrapped: [UInt8]

  init?(_ bytes: [UInt8]) {
    guard bytes.count == 44 else { return nil }
    protectionClass =
      Int64(bytes[0]) | Int64(bytes[1]) << 8 | Int64(bytes[2]) << 16 | Int64(bytes[3]) << 24
    wrapped = Array(bytes[4...])
  }
}
