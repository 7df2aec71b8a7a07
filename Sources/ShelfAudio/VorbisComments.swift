import ShelfCore

/// Reads the Vorbis comments of a FLAC file (its `VORBIS_COMMENT` metadata block) or of the
/// first stream of an Ogg file (Vorbis, Opus, FLAC or Speex): libsndfile's `sf_get_string`
/// gives only the few tags it knows (no `REPLAYGAIN_*`, no `R128_*`), so the files libsndfile
/// decodes have their comments read here. Every length is checked against the file and bounded.
enum VorbisComments {
  /// The most bytes a comment block may take (cover art lives there in Ogg files).
  static let byteLimit = 64 << 20
  /// The most Ogg pages or FLAC blocks looked at.
  static let stepLimit = 20_000

  /// The comments of `file` (key and value, in file order), or nil when it is neither FLAC nor
  /// Ogg or holds no comment block.
  static func read(_ file: RegularFile) throws -> [FFmpegTags.Entry]? {
    let head = try file.read(count: 10, at: 0)
    if head.starts(with: Array("OggS".utf8)) { return try oggComments(file) }
    // A FLAC file may start with an ID3v2 tag.
    let start = Int64(ID3Reader.tagSize(head) ?? 0)
    guard try file.read(count: 4, at: start) == Array("fLaC".utf8) else { return nil }
    return try flacComments(file, at: start + 4)
  }

  /// Walks FLAC metadata blocks from `offset` to the `VORBIS_COMMENT` one (type 4).
  static func flacComments(_ file: RegularFile, at offset: Int64) throws -> [FFmpegTags.Entry]? {
    var offset = offset
    for _ in 0..<stepLimit {
      let header = try file.read(count: 4, at: offset)
      guard header.count == 4 else { return nil }
      let length = Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
      if header[0] & 0x7F == 4 {
        guard offset + 4 + Int64(length) <= file.status.size else { return nil }
        return parse(try file.read(count: length, at: offset + 4))
      }
      if header[0] & 0x80 != 0 { return nil }
      offset += 4 + Int64(length)
    }
    return nil
  }

  /// The second packet of the Ogg file's first logical stream, parsed as its codec writes it.
  static func oggComments(_ file: RegularFile) throws -> [FFmpegTags.Entry]? {
    var offset: Int64 = 0
    var serial: [UInt8]? = nil
    var packets: [[UInt8]] = []
    var current: [UInt8] = []
    for _ in 0..<stepLimit {
      let header = try file.read(count: 27, at: offset)
      guard header.count == 27, header.starts(with: Array("OggS".utf8)) else { return nil }
      let segmentCount = Int(header[26])
      let table = try file.read(count: segmentCount, at: offset + 27)
      guard table.count == segmentCount else { return nil }
      let bodyLength = table.reduce(0) { $0 + Int($1) }
      let pageSerial = Array(header[14..<18])
      if serial == nil { serial = pageSerial }
      if pageSerial == serial {
        let body = try file.read(count: bodyLength, at: offset + 27 + Int64(segmentCount))
        guard body.count == bodyLength else { return nil }
        var position = 0
        for lacing in table {
          current += body[position..<(position + Int(lacing))]
          position += Int(lacing)
          guard current.count <= byteLimit else { return nil }
          if lacing < 255 {
            packets.append(current)
            current = []
            if packets.count == 2 { return comments(identification: packets[0], packet: packets[1]) }
          }
        }
      }
      offset += 27 + Int64(segmentCount) + Int64(bodyLength)
    }
    return nil
  }

  /// The comments of an Ogg stream's second packet, by the codec its first packet names.
  static func comments(identification: [UInt8], packet: [UInt8]) -> [FFmpegTags.Entry]? {
    if identification.starts(with: [0x01] + Array("vorbis".utf8)) {
      guard packet.starts(with: [0x03] + Array("vorbis".utf8)) else { return nil }
      return parse(Array(packet.dropFirst(7)))
    }
    if identification.starts(with: Array("OpusHead".utf8)) {
      guard packet.starts(with: Array("OpusTags".utf8)) else { return nil }
      return parse(Array(packet.dropFirst(8)))
    }
    if identification.starts(with: [0x7F] + Array("FLAC".utf8)) {
      // Ogg FLAC: the next packets are metadata blocks, the comment block usually first.
      guard packet.count >= 4, packet[0] & 0x7F == 4 else { return nil }
      return parse(Array(packet.dropFirst(4)))
    }
    if identification.starts(with: Array("Speex   ".utf8)) { return parse(packet) }
    return nil
  }

  /// A Vorbis comment structure: vendor string, count, `KEY=value` strings (lengths
  /// little-endian). Stops at the first length that overruns the bytes.
  static func parse(_ bytes: [UInt8]) -> [FFmpegTags.Entry] {
    var index = 0
    func u32() -> Int? {
      guard index + 4 <= bytes.count else { return nil }
      let value =
        Int(bytes[index]) | Int(bytes[index + 1]) << 8 | Int(bytes[index + 2]) << 16 | Int(bytes[index + 3])
        << 24
      index += 4
      return value
    }
    guard let vendorLength = u32(), vendorLength <= bytes.count - index else { return [] }
    index += vendorLength
    guard let count = u32() else { return [] }
    var entries: [FFmpegTags.Entry] = []
    for _ in 0..<min(count, bytes.count / 4) {
      guard let length = u32(), length <= bytes.count - index else { break }
      let field = bytes[index..<(index + length)]
      index += length
      guard let equals = field.firstIndex(of: 0x3D) else { continue }
      entries.append(
        FFmpegTags.Entry(
          key: String(decoding: field[field.startIndex..<equals], as: UTF8.self),
          value: String(decoding: field[(equals + 1)...], as: UTF8.self)))
    }
    return entries
  }
}
