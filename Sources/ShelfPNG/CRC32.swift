internal import CDeflate

/// The CRC-32 that PNG chunks carry (computed by libdeflate).
enum CRC32 {
  /// The CRC of `type` followed by `data`, as stored after a chunk.
  static func chunk(type: [UInt8], data: [UInt8]) -> UInt32 {
    var crc = type.withUnsafeBytes { UInt32(libdeflate_crc32(0, $0.baseAddress, $0.count)) }
    crc = data.withUnsafeBytes { UInt32(libdeflate_crc32(crc, $0.baseAddress, $0.count)) }
    return crc
  }

  /// The CRC of a byte range inside a buffer.
  static func of(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
    UInt32(libdeflate_crc32(0, bytes.baseAddress, bytes.count))
  }
}

extension Array where Element == UInt8 {
  /// A big-endian 32-bit value at `offset` (the caller checks bounds).
  func bigEndianUInt32(at offset: Int) -> UInt32 {
    UInt32(self[offset]) << 24 | UInt32(self[offset + 1]) << 16 | UInt32(self[offset + 2]) << 8
      | UInt32(self[offset + 3])
  }

  /// A big-endian 16-bit value at `offset`.
  func bigEndianUInt16(at offset: Int) -> UInt16 {
    UInt16(self[offset]) << 8 | UInt16(self[offset + 1])
  }

  mutating func appendBigEndian(_ value: UInt32) {
    append(UInt8(truncatingIfNeeded: value >> 24))
    append(UInt8(truncatingIfNeeded: value >> 16))
    append(UInt8(truncatingIfNeeded: value >> 8))
    append(UInt8(truncatingIfNeeded: value))
  }

  mutating func appendBigEndian16(_ value: UInt16) {
    append(UInt8(truncatingIfNeeded: value >> 8))
    append(UInt8(truncatingIfNeeded: value))
  }
}
