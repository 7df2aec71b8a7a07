internal import CCrypto

/// The primitives backups need, all from OpenSSL's libcrypto: PBKDF2, AES key unwrap
/// (RFC 3394), AES-256-CBC and SHA-1. No cryptography is implemented here.
enum BackupCrypto {
  /// The digest PBKDF2 runs over.
  enum Digest { case sha1, sha256 }

  /// PBKDF2-HMAC of `secret` with `salt`, 32 bytes long.
  static func pbkdf2(_ secret: [UInt8], salt: [UInt8], iterations: Int32, digest: Digest) -> SecretKey? {
    var key = [UInt8](repeating: 0, count: 32)
    let md = digest == .sha1 ? EVP_sha1() : EVP_sha256()
    let ok = secret.withUnsafeBufferPointer { secretBuffer in
      salt.withUnsafeBufferPointer { saltBuffer in
        secretBuffer.withMemoryRebound(to: CChar.self) { secretChars in
          PKCS5_PBKDF2_HMAC(
            secretChars.baseAddress, Int32(secretChars.count), saltBuffer.baseAddress,
            Int32(saltBuffer.count),
            iterations, md, Int32(key.count), &key)
        }
      }
    }
    guard ok == 1 else {
      SecretBytes.wipe(&key)
      return nil
    }
    let secretKey = SecretKey(key)
    SecretBytes.wipe(&key)
    return secretKey
  }

  /// Unwraps an RFC 3394 wrapped key with `kek`; nil when the integrity check fails (a wrong
  /// key-encryption key, i.e. a wrong password or a damaged keybag).
  static func unwrap(_ wrapped: [UInt8], with kek: SecretKey) -> SecretKey? {
    guard wrapped.count >= 24, wrapped.count % 8 == 0, kek.bytes.count == 32 else { return nil }
    guard let context = EVP_CIPHER_CTX_new() else { return nil }
    defer { EVP_CIPHER_CTX_free(context) }
    EVP_CIPHER_CTX_set_flags(context, Int32(EVP_CIPHER_CTX_FLAG_WRAP_ALLOW))
    var out = [UInt8](repeating: 0, count: wrapped.count + 16)
    var length: Int32 = 0
    var finalLength: Int32 = 0
    let ok = kek.bytes.withUnsafeBufferPointer { kekBuffer in
      guard EVP_DecryptInit_ex(context, EVP_aes_256_wrap(), nil, kekBuffer.baseAddress, nil) == 1 else {
        return false
      }
      guard EVP_DecryptUpdate(context, &out, &length, wrapped, Int32(wrapped.count)) == 1, length > 0 else {
        return false
      }
      return out.withUnsafeMutableBufferPointer { buffer in
        EVP_DecryptFinal_ex(context, buffer.baseAddress! + Int(length), &finalLength) == 1
      }
    }
    defer { SecretBytes.wipe(&out) }
    guard ok, length + finalLength == Int32(wrapped.count - 8) else {
      // A failed integrity check is an expected answer (a wrong password), not an error to keep.
      ERR_clear_error()
      return nil
    }
    return SecretKey(Array(out[0..<Int(length + finalLength)]))
  }

  /// AES-256-CBC decryption of whole blocks without removing padding (iPhone OS 3's auth data
  /// and blob keys are decrypted so); nil when the input is not whole blocks. The caller wipes
  /// the result.
  static func decryptBlocks(_ ciphertext: [UInt8], key: SecretKey, iv: [UInt8]) -> [UInt8]? {
    guard !ciphertext.isEmpty, ciphertext.count % 16 == 0,
      let decryptor = CBCDecryptor(key: key, iv: iv, removesPadding: false)
    else { return nil }
    var plain: [UInt8] = []
    guard let produced = ciphertext.withUnsafeBytes({ decryptor.update($0, into: &plain) }),
      decryptor.finish(into: &plain, at: produced) != nil
    else {
      SecretBytes.wipe(&plain)
      return nil
    }
    let result = Array(plain[0..<produced])
    SecretBytes.wipe(&plain)
    return result
  }

  /// SHA-1 of `bytes`.
  static func sha1(_ bytes: [UInt8]) -> [UInt8] {
    var digest = [UInt8](repeating: 0, count: 20)
    var length: UInt32 = 0
    _ = EVP_Digest(bytes, bytes.count, &digest, &length, EVP_sha1(), nil)
    return digest
  }

  /// SHA-1 hex of `bytes`: the fileID of `domain-relativePath`.
  static func sha1Hex(_ bytes: [UInt8]) -> String {
    let hex = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    for byte in sha1(bytes) { text += [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]] }
    return String(decoding: text, as: UTF8.self)
  }
}

/// AES-256-CBC decryption (a zero IV and PKCS#7 padding unless told otherwise), chunk by
/// chunk, so that a big file never needs to be in memory; the one owner of its OpenSSL context.
final class CBCDecryptor {
  private let context: OpaquePointer

  /// Starts decrypting with `key` (32 bytes) and `iv` (16 bytes); nil when OpenSSL refuses them.
  init?(key: SecretKey, iv: [UInt8] = [UInt8](repeating: 0, count: 16), removesPadding: Bool = true) {
    guard key.bytes.count == 32, iv.count == 16, let context = EVP_CIPHER_CTX_new() else { return nil }
    self.context = context
    let ok = key.bytes.withUnsafeBufferPointer {
      EVP_DecryptInit_ex(context, EVP_aes_256_cbc(), nil, $0.baseAddress, iv)
    }
    guard ok == 1, EVP_CIPHER_CTX_set_padding(context, removesPadding ? 1 : 0) == 1 else {
      EVP_CIPHER_CTX_free(context)
      return nil
    }
  }

  deinit { EVP_CIPHER_CTX_free(context) }

  /// Decrypts a chunk (any length) into `output`, grown as needed and reused between chunks,
  /// and returns how many plaintext bytes it now starts with (they lag one block behind, for
  /// the padding); nil when OpenSSL fails.
  func update(_ input: UnsafeRawBufferPointer, into output: inout [UInt8]) -> Int? {
    guard let source = input.baseAddress, input.count > 0 else { return 0 }
    if output.count < input.count + 16 { output = [UInt8](repeating: 0, count: input.count + 16) }
    var length: Int32 = 0
    let result = output.withUnsafeMutableBufferPointer { buffer in
      EVP_DecryptUpdate(
        context, buffer.baseAddress, &length, source.assumingMemoryBound(to: UInt8.self), Int32(input.count))
    }
    return result == 1 ? Int(length) : nil
  }

  /// Writes the last plaintext block, without its padding, into `output` at `offset` (where
  /// `update` left off; its buffer has room for it) and returns its length; nil when the
  /// padding is wrong.
  func finish(into output: inout [UInt8], at offset: Int) -> Int? {
    if output.count < offset + 16 { output += [UInt8](repeating: 0, count: offset + 16 - output.count) }
    var length: Int32 = 0
    let result = output.withUnsafeMutableBufferPointer { buffer in
      EVP_DecryptFinal_ex(context, buffer.baseAddress! + offset, &length)
    }
    return result == 1 ? Int(length) : nil
  }
}
