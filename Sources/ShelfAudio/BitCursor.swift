/// Reads big-endian bit fields from bytes, most significant bit first; nil past the end.
struct BitCursor {
  let bytes: [UInt8]
  /// Bits read so far, from the start of `bytes`.
  private(set) var position: Int

  init(_ bytes: [UInt8], from byte: Int = 0) {
    self.bytes = bytes
    position = byte * 8
  }

  /// The next `count` bits (at most 32), or nil when fewer are left (nothing is consumed).
  mutating func read(_ count: Int) -> UInt32? {
    guard (0...32).contains(count), count <= bytes.count * 8 - position else { return nil }
    var value: UInt32 = 0
    for _ in 0..<count {
      let bit = bytes[position >> 3] >> (7 - UInt8(position & 7)) & 1
      value = value << 1 | UInt32(bit)
      position += 1
    }
    return value
  }

  /// Skips to the next byte boundary.
  mutating func alignToByte() {
    position = min((position + 7) & ~7, bytes.count * 8)
  }

  /// Bits left.
  var remaining: Int { bytes.count * 8 - position }
}
