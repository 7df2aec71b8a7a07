/// The text inside ID3 frames: encodings, value lists, genres, dates, and the ID3v1 tag.
enum ID3Text {
  /// The NUL-separated strings of a frame's text (after its encoding byte), empty ones kept so
  /// that a description and a value keep their places (`TXXX`, `COMM` with no description).
  /// Encodings 0 Latin-1, 1 UTF-16 with a byte order mark per string (little-endian without
  /// one, as the writers that omit it mean and as mutagen reads it), 2 UTF-16BE, 3 UTF-8; an
  /// unknown encoding gives nothing.
  static func strings(_ bytes: ArraySlice<UInt8>, encoding: UInt8) -> [String] {
    guard encoding <= 3 else { return [] }
    let wide = encoding == 1 || encoding == 2
    let unit = wide ? 2 : 1
    var values: [String] = []
    var start = bytes.startIndex
    var index = bytes.startIndex
    while index <= bytes.endIndex - unit {
      if bytes[index] == 0 && (!wide || bytes[index + 1] == 0) {
        values.append(decode(bytes[start..<index], encoding: encoding))
        index += unit
        start = index
      } else {
        index += unit
      }
    }
    if start < bytes.endIndex { values.append(decode(bytes[start...], encoding: encoding)) }
    return values
  }

  /// One string in `encoding` (no terminator).
  static func decode(_ bytes: ArraySlice<UInt8>, encoding: UInt8) -> String {
    switch encoding {
    case 1, 2:
      var bigEndian = encoding == 2
      var index = bytes.startIndex
      if bytes.count >= 2 {
        let first = bytes[index]
        let second = bytes[index + 1]
        if first == 0xFF && second == 0xFE {
          bigEndian = false
          index += 2
        } else if first == 0xFE && second == 0xFF {
          bigEndian = true
          index += 2
        }
      }
      var units: [UInt16] = []
      units.reserveCapacity((bytes.endIndex - index) / 2)
      while index <= bytes.endIndex - 2 {
        let high = bigEndian ? bytes[index] : bytes[index + 1]
        let low = bigEndian ? bytes[index + 1] : bytes[index]
        units.append(UInt16(high) << 8 | UInt16(low))
        index += 2
      }
      return String(decoding: units, as: UTF16.self)
    case 3:
      return String(decoding: bytes, as: UTF8.self)
    default:
      return latin1(bytes)
    }
  }

  static func latin1(_ bytes: ArraySlice<UInt8>) -> String {
    var scalars = String.UnicodeScalarView()
    for byte in bytes { scalars.append(Unicode.Scalar(byte)) }
    return String(scalars)
  }

  /// The values that are not blank, joined with `; `; nil when none is.
  static func joined<Values: Sequence<String>>(_ values: Values) -> String? {
    let kept = values.compactMap(AudioTags.clean)
    return kept.isEmpty ? nil : kept.joined(separator: "; ")
  }

  /// ID3v2.3's date from its year (`TYER`), day and month (`TDAT`, `DDMM`) and time (`TIME`,
  /// `HHMM`), as ID3v2.4's `TDRC` writes it (`2004-03-05T14:30:00`), which is how mutagen turns
  /// them into one. A year that is neither four digits nor a whole date (`2004-03-05`) is no date.
  static func date(year: String?, day: String?, time: String?) -> String? {
    func digits(_ text: Substring) -> Bool { text.allSatisfy { $0.isASCII && $0.isNumber } }
    func pairs(_ text: String?) -> (Substring, Substring)? {
      guard let text, text.count == 4, digits(text[...]) else { return nil }
      return (text.prefix(2), text.dropFirst(2))
    }
    guard let year else { return nil }
    let parts = year.split(separator: "-", omittingEmptySubsequences: false)
    guard parts.first?.count == 4, parts.allSatisfy(digits) else { return nil }
    if parts.count == 3 && parts[1].count == 2 && parts[2].count == 2 { return year }
    guard parts.count == 1 else { return nil }
    guard let (dayOfMonth, month) = pairs(day) else { return year }
    var date = "\(year)-\(month)-\(dayOfMonth)"
    if let (hour, minute) = pairs(time) { date += "T\(hour):\(minute):00" }
    return date
  }

  /// The genres one `TCON` value names, as mutagen reads them: `17` or `(17)` is the ID3v1 list's
  /// genre (with Winamp's extensions), `(RX)` and `(CR)` Remix and Cover, `(17)(31)Fusion` three
  /// genres (a name after the references is kept unless it repeats one), `((` a literal `(`.
  static func genres(_ value: String) -> [String] {
    if !value.isEmpty, value.count < 4, value.allSatisfy({ $0.isASCII && $0.isNumber }),
      let number = Int(value),
      number < 256
    {
      return [v1Genre(number)]
    }
    if value == "RX" { return ["Remix"] }
    if value == "CR" { return ["Cover"] }
    var out: [String] = []
    var rest = Substring(value)
    while rest.hasPrefix("("), !rest.hasPrefix("(("), let close = rest.firstIndex(of: ")") {
      let inside = rest[rest.index(after: rest.startIndex)..<close]
      let isNumber = !inside.isEmpty && inside.allSatisfy { $0.isASCII && $0.isNumber }
      guard isNumber || inside == "RX" || inside == "CR" else { break }
      if inside == "RX" {
        out.append("Remix")
      } else if inside == "CR" {
        out.append("Cover")
      } else {
        out.append(inside.count < 4 ? v1Genre(Int(inside) ?? 256) : "Unknown")
      }
      rest = rest[rest.index(after: close)...]
    }
    if rest.hasPrefix("((") { rest = rest.dropFirst() }
    if let name = AudioTags.clean(String(rest)), !out.contains(name) { out.append(name) }
    return out
  }

  /// The genre numbered `number` in the ID3v1 list, or `Unknown` past its end (as mutagen says).
  static func v1Genre(_ number: Int) -> String {
    number >= 0 && number < v1Genres.count ? v1Genres[number] : "Unknown"
  }

  /// An ID3v1 or v1.1 tag (the last 128 bytes of a file, starting `TAG`).
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

  /// The ID3v1 genres with Winamp's extensions, as FFmpeg, mutagen and TagLib list them.
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
    "Folk", "Folk-Rock", "National Folk", "Swing", "Fast Fusion", "Bebob", "Latin", "Revival",
    "Celtic", "Bluegrass", "Avantgarde", "Gothic Rock", "Progressive Rock", "Psychedelic Rock",
    "Symphonic Rock", "Slow Rock", "Big Band", "Chorus", "Easy Listening", "Acoustic", "Humour",
    "Speech", "Chanson", "Opera", "Chamber Music", "Sonata", "Symphony", "Booty Bass", "Primus",
    "Porn Groove", "Satire", "Slow Jam", "Club", "Tango", "Samba", "Folklore", "Ballad",
    "Power Ballad", "Rhythmic Soul", "Freestyle", "Duet", "Punk Rock", "Drum Solo", "A Cappella",
    "Euro-House", "Dance Hall", "Goa", "Drum & Bass", "Club-House", "Hardcore", "Terror", "Indie",
    "BritPop", "Negerpunk", "Polsk Punk", "Beat", "Christian Gangsta Rap", "Heavy Metal",
    "Black Metal", "Crossover", "Contemporary Christian", "Christian Rock", "Merengue", "Salsa",
    "Thrash Metal", "Anime", "JPop", "Synthpop", "Abstract", "Art Rock", "Baroque", "Bhangra",
    "Big Beat", "Breakbeat", "Chillout", "Downtempo", "Dub", "EBM", "Eclectic", "Electro",
    "Electroclash", "Emo", "Experimental", "Garage", "Global", "IDM", "Illbient", "Industro-Goth",
    "Jam Band", "Krautrock", "Leftfield", "Lounge", "Math Rock", "New Romantic", "Nu-Breakz",
    "Post-Punk", "Post-Rock", "Psytrance", "Shoegaze", "Space Rock", "Trop Rock", "World Music",
    "Neoclassical", "Audiobook", "Audio Theatre", "Neue Deutsche Welle", "Podcast", "Indie Rock",
    "G-Funk", "Dubstep", "Garage Rock", "Psybient",
  ]
}
