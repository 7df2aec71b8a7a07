import ShelfCore

/// The encryption of mdinfo-era backups (iTunes 8.2 to 9, iPhone OS 3), which predates the
/// keybag: Manifest.plist's `AuthData` holds an 8-byte salt, a 16-byte IV and, AES-256-CBC
/// under the PBKDF2-HMAC-SHA1 key of the password (a fixed 2,000 rounds), the 32-byte auth key
/// followed by its SHA-1. Each encrypted mdinfo's `Metadata` and each mddata is a blob: a
/// big-endian u16 length (66) and u16 magic (0x0100), a 16-byte IV, the blob's own key
/// encrypted under the auth key (48 bytes, the key in the first 32), then the content
/// encrypted under the blob key with the same IV and PKCS#7 padding. This is the layout the
/// iphone-dataprotection project's `backups/backup3.py` reads.
enum LegacyEncryption {
  /// PBKDF2 rounds of the password key: fixed by the format (AuthData records no count).
  static let rounds: Int32 = 2000
  /// The bytes before a blob's ciphertext.
  static let headerSize = 68

  /// The auth key from Manifest.plist's AuthData; `.wrongPassword` when its SHA-1 does not
  /// match (checked before any file is read).
  static func authKey(authData: [UInt8], password: BackupPassword) throws(BackupError.Reason) -> SecretKey {
    guard authData.count >= 24 + 64, (authData.count - 24) % 16 == 0 else {
      throw .corruptKeybag("AuthData is \(authData.count) bytes, too short or not whole AES blocks")
    }
    var secret = password.bytes
    defer { SecretBytes.wipe(&secret) }
    guard
      let passwordKey = BackupCrypto.pbkdf2(
        secret, salt: Array(authData[0..<8]), iterations: rounds, digest: .sha1),
      var plain = BackupCrypto.decryptBlocks(
        Array(authData[24...]), key: passwordKey, iv: Array(authData[8..<24]))
    else { throw .corruptKeybag("AuthData does not decrypt") }
    defer { SecretBytes.wipe(&plain) }
    let key = Array(plain[0..<32])
    guard BackupCrypto.sha1(key) == Array(plain[32..<52]) else { throw .wrongPassword }
    return SecretKey(key)
  }

  /// A blob's IV and unwrapped key, from its first `headerSize` bytes.
  struct BlobKey {
    var iv: [UInt8]
    var key: SecretKey

    init(header: [UInt8], authKey: SecretKey) throws(BackupError.Reason) {
      guard header.count >= LegacyEncryption.headerSize,
        header[0] == 0, header[1] == 66, header[2] == 0x01, header[3] == 0x00
      else { throw .badCiphertext("encrypted blob has no 66-byte key header (length 66, magic 0x0100)") }
      iv = Array(header[4..<20])
      guard var plain = BackupCrypto.decryptBlocks(Array(header[20..<68]), key: authKey, iv: iv) else {
        throw .badCiphertext("the blob's key does not decrypt")
      }
      defer { SecretBytes.wipe(&plain) }
      key = SecretKey(Array(plain[0..<32]))
    }
  }

  /// Decrypts a whole blob held in memory (an mdinfo's Metadata).
  static func decrypt(blob: [UInt8], authKey: SecretKey) throws(BackupError.Reason) -> [UInt8] {
    let blobKey = try BlobKey(header: blob, authKey: authKey)
    let body = Array(blob[headerSize...])
    guard !body.isEmpty, body.count % 16 == 0,
      let decryptor = CBCDecryptor(key: blobKey.key, iv: blobKey.iv)
    else { throw .badCiphertext("encrypted blob is not whole AES blocks") }
    var plain: [UInt8] = []
    guard let produced = body.withUnsafeBytes({ decryptor.update($0, into: &plain) }),
      let last = decryptor.finish(into: &plain, at: produced)
    else { throw .badCiphertext("bad padding after decryption (damaged file or key)") }
    return Array(plain[0..<produced + last])
  }

  /// The plaintext size of an encrypted mddata, from its header and its last block alone (in
  /// CBC the last block decrypts with the one before it as IV), so listing a backup does not
  /// decrypt every file.
  static func plainSize(of file: RegularFile, authKey: SecretKey) throws -> Int64 {
    let size = file.status.size
    let body = size - Int64(headerSize)
    guard body > 0, body % 16 == 0 else {
      throw BackupError.Reason.badCiphertext(
        "encrypted content is \(max(body, 0)) bytes after its header, not a positive multiple of 16")
    }
    let blobKey = try BlobKey(header: try file.read(count: headerSize, at: 0), authKey: authKey)
    let chaining = body == 16 ? blobKey.iv : try file.read(count: 16, at: size - 32)
    let lastBlock = try file.read(count: 16, at: size - 16)
    guard chaining.count == 16, lastBlock.count == 16,
      var plain = BackupCrypto.decryptBlocks(lastBlock, key: blobKey.key, iv: chaining)
    else { throw BackupError.Reason.io("stored file shrank while being read") }
    defer { SecretBytes.wipe(&plain) }
    let padding = Int(plain[15])
    guard (1...16).contains(padding), plain[(16 - padding)...].allSatisfy({ Int($0) == padding }) else {
      throw BackupError.Reason.badCiphertext("bad padding after decryption (damaged file or key)")
    }
    return body - Int64(padding)
  }
}
