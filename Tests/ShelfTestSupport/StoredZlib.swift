/// zlib streams made of stored (uncompressed) deflate blocks: valid for any data, so tests can
/// build PNG image data byte by byte without a compressor.
public enum StoredZlib {
  /// `data` as a zlib stream of stored blocks, with its Adler-32.
  public static func stream(_ data: [UInt8]) -> [UInt8] {
    var out: [UInt8] = [0x78, 0x01]
    var offset = 0
    repeat {
      let count = min(65535, data.count - offset)
      out.append(offset + count == data.count ? 1 : 0)
      out += [UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
      out += data[offset..<(offset + count)]
      offset += count
    } while offset < data.count
    var a: UInt32 = 1
    var b: UInt32 = 0
    for byte in data {
      a = (a + UInt32(byte)) % 65521
      b = (b + a) % 65521
    }
    let adler = b << 16 | a
    out += [UInt8(adler >> 24), UInt8((adler >> 16) & 0xFF), UInt8((adler >> 8) & 0xFF), UInt8(adler & 0xFF)]
    return out
  }
}
