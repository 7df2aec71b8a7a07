import ShelfCore

/// Reads an APEv2 (or APEv1) tag at the end of a file (before an ID3v1 tag, if any): Monkey's
/// Audio, WavPack and Musepack keep their tags there, and some MP3 taggers (foobar2000, mp3gain)
/// their ReplayGain values. FFmpeg reads it for the first three; this reader serves MP3s and the
/// files libsndfile decodes. Only text items are returned.
enum APETag {
  /// The most bytes a tag may take.
  static let byteLimit = 16 << 20

  /// The text items of the tag (key and value, in file order), or nil when there is none.
  static func read(_ file: RegularFile) throws -> [FFmpegTags.Entry]? {
    let size = file.status.size
    var end = size
    if size >= 128 {
      let tail = try file.read(count: 3, at: size - 128)
      if tail == Array("TAG".utf8) { end = size - 128 }
    }
    guard end >= 32 else { return nil }
    let footer = try file.read(count: 32, at: end - 32)
    guard footer.count == 32, footer.starts(with: Array("APETAGEX".utf8)) else { return nil }
    func u32(_ at: Int) -> Int {
      Int(footer[at]) | Int(footer[at + 1]) << 8 | Int(footer[at + 2]) << 16 | Int(footer[at + 3]) << 24
    }
    let tagSize = u32(12)  // items and footer, not the header
    let count = u32(16)
    guard tagSize >= 32, tagSize <= byteLimit, Int64(tagSize) <= end else { return nil }
    let body = try file.read(count: tagSize - 32, at: end - Int64(tagSize))
    guard body.count == tagSize - 32 else { return nil }
    return parse(body, count: count)
  }

  /// The items of a tag's body: value length, flags (little-endian), NUL-terminated key, value.
  static func parse(_ bytes: [UInt8], count: Int) -> [FFmpegTags.Entry] {
    var entries: [FFmpegTags.Entry] = []
    var index = 0
    for _ in 0..<min(count, bytes.count / 9 + 1) {
      guard index + 8 <= bytes.count else { break }
      let length =
        Int(bytes[index]) | Int(bytes[index + 1]) << 8 | Int(bytes[index + 2]) << 16 | Int(bytes[index + 3])
        << 24
      let flags = bytes[index + 4]
      index += 8
      guard let keyEnd = bytes[index...].firstIndex(of: 0) else { break }
      let key = String(decoding: bytes[index..<keyEnd], as: UTF8.self)
      index = keyEnd + 1
      guard length <= bytes.count - index else { break }
      // Items of type 0 are UTF-8 text (1 binary, 2 an external link).
      if (flags >> 1) & 0x03 == 0 {
        // Several values of one item are separated by NULs.
        let value = bytes[index..<(index + length)].split(separator: 0).map {
          String(decoding: $0, as: UTF8.self)
        }.joined(separator: "; ")
        entries.append(FFmpegTags.Entry(key: key, value: value))
      }
      index += length
    }
    return entries
  }
}
