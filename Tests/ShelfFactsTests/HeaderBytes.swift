import ShelfCore

@testable import ShelfFacts

// Building blocks for the hand-made file headers of the header-reader tests.

/// The UTF-8 bytes of `text` (four-character codes, magic strings).
func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
/// `value` as two big-endian bytes.
func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
/// `value` as four big-endian bytes.
func be32(_ value: Int) -> [UInt8] { be16(value >> 16) + be16(value & 0xFFFF) }
/// `value` as two little-endian bytes.
func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
/// `value` as four little-endian bytes.
func le32(_ value: Int) -> [UInt8] { le16(value & 0xFFFF) + le16(value >> 16 & 0xFFFF) }

/// A byte source that counts what was read, to show a lying header costs no more than the file.
final class CountingBytes: ByteSource {
  let bytes: MemoryBytes
  var total = 0
  init(_ bytes: [UInt8]) { self.bytes = MemoryBytes(bytes) }
  var size: Int64 { bytes.size }
  func read(count: Int, at offset: Int64) throws -> [UInt8] {
    let read = try bytes.read(count: count, at: offset)
    total += read.count
    return read
  }
}
