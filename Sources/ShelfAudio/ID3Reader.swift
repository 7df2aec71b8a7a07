import ShelfCore

/// Reads ID3v2 (2.2–2.4) and ID3v1 tags: at the start of an MP3, and in the `ID3 ` chunk of AIFF
/// and WAV files. FFmpeg keeps only the first of several values an ID3v2.4 frame holds and does
/// not read WAV's chunk; this reader keeps them all (joined with `; `).
package enum ID3Reader {
  /// What an ID3 tag holds.
  package struct Found: Equatable {
    var tags: AudioTags
    /// True when an `APIC`/`PIC` frame (cover art) is present.
    var hasPicture: Bool
  }

  /// The tags in `file` (empty when there are none). Reads at most the tag's bytes.
  static func read(_ file: RegularFile) throws -> AudioTags {
    try found(in: file).tags
  }

  /// The leading ID3v2 tag of `file`, else its ID3v1 tag.
  package static func found(in file: RegularFile) throws -> Found {
    var result = Found(tags: AudioTags(), hasPicture: false)
    let header = try file.read(count: 10, at: 0)
    if let size = tagSize(header), size < 64 << 20 {
      // A tag that claims more than the file holds costs the file's size, not the claim.
      result = parse(tag: try file.read(count: Int(min(Int64(size), file.status.size)), at: 0))
    }
    if result.tags.isEmpty, file.status.size >= 128 {
      let tail = try file.read(count: 128, at: file.status.size - 128)
      if tail.count == 128, tail[0] == 0x54, tail[1] == 0x41, tail[2] == 0x47 {
        result.tags = parseV1(tail)
      }
    }
    return result
  }

  /// The whole size (header, body, footer) of the ID3v2 tag whose first 10 bytes are `header`.
  static func tagSize(_ header: [UInt8]) -> Int? {
    guard header.count >= 10, header[0] == 0x49, header[1] == 0x44, header[2] == 0x33, header[3] < 0xFF
    else { return nil }
    return 10 + syncsafe(header[6..<10]) + (header[5] & 0x10 != 0 ? 10 : 0)
  }

  /// Parses a whole ID3v2 tag (header included), as found in a file or an `ID3 ` chunk.
  package static func parse(tag bytes: [UInt8]) -> Found {
    guard bytes.count > 10, tagSize(Array(bytes.prefix(10))) != nil else {
      return Found(tags: AudioTags(), hasPicture: false)
    }
    let version = bytes[3]
    let flags = bytes[5]
    let size = min(syncsafe(bytes[6..<10]), bytes.count - 10)
    var body = Array(bytes[10..<(10 + size)])
    if flags & 0x80 != 0 && version < 4 { body = unsynchronised(body) }
    return parseV2(body, version: version, extendedHeader: flags & 0x40 != 0)
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

  static func parseV2(_ body: [UInt8], version: UInt8, extendedHeader: Bool) -> Found {
    var frames: [String: [String]] = [:]
    // TXXX frames, by description: FFmpeg reads each as a tag of that name (its own muxer
    // writes `comment` so), and so does this reader, for the fields a frame of its own lacks.
    var userTexts: [FFmpegTags.Entry] = []
    var hasPicture = false
    var index = 0
    if extendedHeader && body.count >= 4 {
      let size =
        version == 4
        ? syncsafe(body[0..<4]) : Int(body[0]) << 24 | Int(body[1]) << 16 | Int(body[2]) << 8 | Int(body[3])
      index = version == 4 ? size : size + 4
    }
    let idLength = version == 2 ? 3 : 4
    let headerLength = version == 2 ? 6 : 10
    while index >= 0, index + headerLength <= body.count {
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
      let name = version == 2 ? (v22Names[id] ?? id) : id
      switch name {
      case "APIC": hasPicture = true
      case "COMM": if frames["COMM"] == nil, let text = comment(content) { frames["COMM"] = [text] }
      case "TXXX":
        let parts = texts(content)
        if parts.count >= 2 {
          userTexts.append(FFmpegTags.Entry(key: parts[0], value: parts[1...].joined(separator: "; ")))
        }
      case _ where name.hasPrefix("T"):
        if frames[name] == nil { frames[name] = texts(content) }
      default: break
      }
    }
    func joined(_ id: String) -> String? {
      guard let values = frames[id], !values.isEmpty else { return nil }
      return values.joined(separator: "; ")
    }
    let track = frames["TRCK"]?.first
    let disc = AudioTags.numberAndTotal(frames["TPOS"]?.first)
    var tags = AudioTags(
      title: joined("TIT2"), artist: joined("TPE1"), album: joined("TALB"),
      date: joined("TDRC") ?? joined("TYER"), track: track,
      genre: frames["TCON"].map { $0.compactMap(genre).joined(separator: "; ") }.flatMap {
        $0.isEmpty ? nil : $0
      },
      comment: joined("COMM"))
    tags.albumArtist = joined("TPE2")
    tags.trackTotal = AudioTags.numberAndTotal(track).total
    tags.disc = disc.number
    tags.discTotal = disc.total
    tags = tags.filled(from: TagMapping.tags(from: [FFmpegTags(entries: userTexts)], vorbisJoined: false))
    return Found(tags: tags, hasPicture: hasPicture)
  }

  /// ID3v2.2's three-letter frame names for the frames read here.
  static let v22Names = [
    "TT2": "TIT2", "TP1": "TPE1", "TP2": "TPE2", "TAL": "TALB", "TYE": "TYER", "TRK": "TRCK",
    "TPA": "TPOS", "TCO": "TCON", "COM": "COMM", "PIC": "APIC",
  ]

  /// Decodes an ID3v2 text frame: an encoding byte, then one or more NUL-separated strings.
  static func texts(_ content: [UInt8]) -> [String] {
    guard let encoding = content.first else { return [] }
    let bytes = Array(content.dropFirst())
    let wide = encoding == 1 || encoding == 2
    var values: [String] = []
    var start = 0
    var index = 0
    while index < bytes.count {
      let isTerminator =
        wide
        ? index % 2 == 0 && index + 1 < bytes.count && bytes[index] == 0 && bytes[index + 1] == 0
        : bytes[index] == 0
      if isTerminator {
        if let value = decode(Array(bytes[start..<index]), encoding: encoding) { values.append(value) }
        index += wide ? 2 : 1
        start = index
      } else {
        index += 1
      }
    }
    if start < bytes.count, let value = decode(Array(bytes[start...]), encoding: encoding) {
      values.append(value)
    }
    return values
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

  /// ID3 genres may be written `(17)`, `17` or `(17)Rock` meaning the ID3v1 genre list (with
  /// Winamp's extensions); `(RX)` and `(CR)` are Remix and Cover.
  static func genre(_ value: String?) -> String? {
    guard let value else { return nil }
    if value.hasPrefix("(") && !value.hasPrefix("((") {
      let inside = value.dropFirst().prefix { $0 != ")" }
      let rest = value.dropFirst(inside.count + 2)
      if !rest.isEmpty, inside.count < value.count - 1 { return String(rest) }
      if inside == "RX" { return "Remix" }
      if inside == "CR" { return "Cover" }
      if let number = Int(inside), number >= 0, number < v1Genres.count { return v1Genres[number] }
      return value
    }
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
    // Winamp's extensions, as FFmpeg, mutagen and TagLib list them.
    "Folk", "Folk-Rock", "National Folk", "Swing", "Fast Fusion", "Bebob", "Latin", "Revival",
    "Celtic", "Bluegrass", "Avantgarde", "Gothic Rock", "Progressive Rock", "Psychedelic Rock",
    "Symphonic Rock", "Slow Rock", "Big Band", "Chorus", "Easy Listening", "Acoustic", "Humour",
    "Speech", "Chanson", "Opera", "Chamber Music", "Sonata", "Symphony", "Booty Bass", "Primus",
    "Porn Groove", "Satire", "Slow Jam", "Club", "Tango", "Samba", "Folklore", "Ballad",
    "Power Ballad", "Rhythmic Soul", "Freestyle", "Duet", "Punk Rock", "Drum Solo", "A Cappella",
    "Euro-House", "Dance Hall", "Goa", "Drum & Bass", "Club-House", "Hardcore", "Terror", "Indie",
    "BritPop", "Negerpunk", "Polsk Punk", "Beat", "Christian Gangsta Rap", "Heavy Metal",
    "Black Metal", "Crossover", "Contemporary Christian", "Christian Rock", "Merengue", "Salsa",
    "Thrash Metal", "Anime", "JPop", "Synthpop",
  ]
}
