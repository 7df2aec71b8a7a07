import ShelfCore

/// Reads ID3v2 (2.2–2.4) and ID3v1 tags from an MP3 file, since libsndfile does not expose them.
enum ID3Reader {
  /// The tags in `file` (empty when there are none). Reads at most the tag's bytes.
  static func read(_ file: RegularFile) throws -> AudioTags {
    var tags = AudioTags()
    let header = try file.read(count: 10, at: 0)
    if header.count == 10, header[0] == 0x49, header[1] == 0x44, header[2] == 0x33 {
      let version = header[3]
      let flags = header[5]
      let size = syncsafe(header[6..<10])
      if size > 0 && size < 16 << 20 {
        var body = try file.read(count: size, at: 10)
        if flags & 0x80 != 0 && version < 4 { body = unsynchronised(body) }
        tags = parseV2(body, version: version, extendedHeader: flags & 0x40 != 0)
      }
    }
    if tags.isEmpty, file.status.size >= 128 {
      let tail = try file.read(count: 128, at: file.status.size - 128)
      if tail.count == 128, tail[0] == 0x54, tail[1] == 0x41, tail[2] == 0x47 { tags = parseV1(tail) }
    }
    return tags
  }

  static func syncsafe(_ bytes: ArraySlice<UInt8>) -> Int {
    bytes.reduce(0) { ($0 << 7) | Int($1 & 0x7F) }
  }

  static func unsynchronised(_ bytes: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var previous: UInt8 = 0
    for byte in bytes {
      if previous == 0xFF && byte == 0x00 {
        previous = 0
        continue
      }
      out.append(byte)
      previous = byte
    }
    return out
  }

  static func parseV2(_ body: [UInt8], version: UInt8, extendedHeader: Bool) -> AudioTags {
    var tags = AudioTags()
    var index = 0
    if extendedHeader && body.count >= 4 {
      let size =
        version == 4
        ? syncsafe(body[0..<4]) : Int(body[0]) << 24 | Int(body[1]) << 16 | Int(body[2]) << 8 | Int(body[3])
      index = version == 4 ? size : size + 4
    }
    let idLength = version == 2 ? 3 : 4
    let headerLength = version == 2 ? 6 : 10
    while index + headerLength <= body.count {
      let idBytes = body[index..<(index + idLength)]
      if idBytes.first == 0 { break }
      let id = String(decoding: idBytes, as: UTF8.self)
      let size: Int
      if version == 2 {
        size = Int(body[index + 3]) << 16 | Int(body[index + 4]) << 8 | Int(body[index + 5])
      } else if version == 4 {
        size = syncsafe(body[(index + 4)..<(index + 8)])
      } else {
        size =
          Int(body[index + 4]) << 24 | Int(body[index + 5]) << 16 | Int(body[index + 6]) << 8
          | Int(body[index + 7])
      }
      let start = index + headerLength
      guard size > 0, start + size <= body.count else { break }
      let content = Array(body[start..<(start + size)])
      index = start + size
      switch id {
      case "TIT2", "TT2": tags.title = tags.title ?? text(content)
      case "TPE1", "TP1": tags.artist = tags.artist ?? text(content)
      case "TALB", "TAL": tags.album = tags.album ?? text(content)
      case "TDRC", "TYER", "TYE": tags.date = tags.date ?? text(content)
      case "TRCK", "TRK": tags.track = tags.track ?? text(content)
      case "TCON", "TCO": tags.genre = tags.genre ?? genre(text(content))
      case "COMM", "COM": tags.comment = tags.comment ?? comment(content)
      default: break
      }
    }
    return tags
  }

  /// Decodes an ID3v2 text frame: an encoding byte, then the text (first string only).
  static func text(_ content: [UInt8]) -> String? {
    guard let encoding = content.first else { return nil }
    return decode(Array(content.dropFirst()), encoding: encoding)
  }

  static func decode(_ bytes: [UInt8], encoding: UInt8) -> String? {
    switch encoding {
    case 1, 2:
      var units: [UInt16] = []
      var bigEndian = encoding == 2
      var i = 0
      if bytes.count >= 2 && bytes[0] == 0xFF && bytes[1] == 0xFE {
        bigEndian = false; i = 2
      } else if bytes.count >= 2 && bytes[0] == 0xFE && bytes[1] == 0xFF {
        bigEndian = true; i = 2
      }
      while i + 1 < bytes.count {
        let unit =
          bigEndian
          ? UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1]) : UInt16(bytes[i + 1]) << 8 | UInt16(bytes[i])
        if unit == 0 { break }
        units.append(unit)
        i += 2
      }
      return AudioTags.clean(String(decoding: units, as: UTF16.self))
    case 3:
      let end = bytes.firstIndex(of: 0) ?? bytes.count
      return AudioTags.clean(String(decoding: bytes[..<end], as: UTF8.self))
    default:
      let end = bytes.firstIndex(of: 0) ?? bytes.count
      return AudioTags.clean(latin1(bytes[..<end]))
    }
  }

  static func latin1(_ bytes: ArraySlice<UInt8>) -> String {
    var scalars = String.UnicodeScalarView()
    for byte in bytes { scalars.append(Unicode.Scalar(byte)) }
    return String(scalars)
  }

  /// COMM: encoding, 3-byte language, a description terminated by NUL, then the text.
  static func comment(_ content: [UInt8]) -> String? {
    guard content.count > 4 else { return nil }
    let encoding = content[0]
    let rest = Array(content[4...])
    let wide = encoding == 1 || encoding == 2
    var i = 0
    if wide {
      while i + 1 < rest.count && !(rest[i] == 0 && rest[i + 1] == 0) { i += 2 }
      i += 2
    } else {
      while i < rest.count && rest[i] != 0 { i += 1 }
      i += 1
    }
    guard i <= rest.count else { return nil }
    return decode(Array(rest[i...]), encoding: encoding)
  }

  /// ID3 genres may be written `(17)` or `17` meaning the ID3v1 genre list.
  static func genre(_ value: String?) -> String? {
    guard var value else { return nil }
    if value.hasPrefix("(") && value.hasSuffix(")") { value = String(value.dropFirst().dropLast()) }
    if let number = Int(value), number >= 0, number < v1Genres.count { return v1Genres[number] }
    return value
  }

  static func parseV1(_ tail: [UInt8]) -> AudioTags {
    func field(_ range: Range<Int>) -> String? {
      let slice = tail[range]
      let end = slice.firstIndex(of: 0) ?? range.upperBound
      return AudioTags.clean(latin1(tail[range.lowerBound..<end]))
    }
    var tags = AudioTags(
      title: field(3..<33), artist: field(33..<63), album: field(63..<93), date: field(93..<97),
      comment: field(97..<127))
    if tail[125] == 0 && tail[126] != 0 {
      tags.comment = field(97..<125)
      tags.track = String(tail[126])
    }
    if Int(tail[127]) < v1Genres.count { tags.genre = v1Genres[Int(tail[127])] }
    return tags
  }

  static let v1Genres = [
    "Blues", "Classic Rock", "Country", "Dance", "Disco", "Funk", "Grunge", "Hip-Hop", "Jazz",
    "Metal", "New Age", "Oldies", "Other", "Pop", "R&B", "Rap", "Reggae", "Rock", "Techno",
    "Industrial", "Alternative", "Ska", "Death Metal", "Pranks", "Soundtrack", "Euro-Techno",
    "Ambient", "Trip-Hop", "Vocal", "Jazz+Funk", "Fusion", "Trance", "Classical", "Instrumental",
    "Acid", "House", "Game", "Sound Clip", "Gospel", "Noise", "AlternRock", "Bass", "Soul", "Punk",
    "Space", "Meditative", "Instrumental Pop", "Instrumental Rock", "Ethnic", "Gothic", "Darkwave",
    "Techno-Industrial", "Electronic", "Pop-Folk", "Eurodance", "Dream", "Southern Rock", "Comedy",
    "Cult", "Gangsta", "Top 40", "Christian Rap", "Pop/Funk", "Jungle", "Native American",
    "Cabaret", "New Wave", "Psychadelic", "Rave", "Showtunes", "Trailer", "Lo-Fi", "Tribal",
    "Acid Punk", "Acid Jazz", "Polka", "Retro", "Musical", "Rock & Roll", "Hard Rock",
  ]
}
