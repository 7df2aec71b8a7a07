import ShelfCatalog
import ShelfCore

/// A line template for `ls --format`, such as `{artist} - {title} ({duration})`: scripts get
/// exactly the fields they ask for, one line per entry, as beets' `ls -f` gives them; and the
/// output names of `extract --name`, such as `{taken:%Y}/{name}`.
///
/// Fields are named as in the query language or as the keys of `ls --json`; a field an entry
/// lacks prints as nothing. A date field takes a strftime(3) format after a colon
/// (`{taken:%Y-%m}`, `{mtime:%d %B %Y}`), a whole number a width to pad with zeros
/// (`{track:02}`). `{{` and `}}` stand for literal braces.
struct ListingTemplate {
  /// A piece of the template: literal bytes or a field to fill in.
  enum Part: Equatable {
    case literal([UInt8])
    /// A field, and for a date field the strftime format it is written with (for a number,
    /// the width it is padded to with zeros, such as `02`).
    case field(String, format: String?)
  }

  let parts: [Part]

  /// Why a template was refused, e.g. `unknown field 'foo'`.
  struct Invalid: Error, Equatable {
    let reason: String
  }

  /// Parses `text`; an unknown field, a format on a field that is no date, an unclosed brace
  /// and beets' `$field` spelling are refused.
  init(_ text: String) throws(Invalid) {
    var parts: [Part] = []
    var literal: [UInt8] = []
    var bytes = Array(text.utf8)[...]
    while let byte = bytes.popFirst() {
      if byte == UInt8(ascii: "{") && bytes.first == UInt8(ascii: "{") {
        bytes = bytes.dropFirst()
        literal.append(byte)
      } else if byte == UInt8(ascii: "}") && bytes.first == UInt8(ascii: "}") {
        bytes = bytes.dropFirst()
        literal.append(byte)
      } else if byte == UInt8(ascii: "{") {
        guard let close = bytes.firstIndex(of: UInt8(ascii: "}")) else {
          throw Invalid(reason: "unclosed '{' (write '{{' for a literal brace)")
        }
        let inside = bytes[..<close]
        let colon = inside.firstIndex(of: UInt8(ascii: ":"))
        let name = String(decoding: inside[..<(colon ?? close)], as: UTF8.self).trimmingSpaces
        let format = colon.map { String(decoding: inside[($0 + 1)...], as: UTF8.self) }
        guard Self.fields[name] != nil else {
          var reason = "unknown field '\(name)'"
          if let near = Suggestions.closest(to: name, among: Self.fieldNames) {
            reason += "; did you mean '\(near)'?"
          }
          throw Invalid(reason: reason)
        }
        if let format, Self.numberFields.contains(name) {
          guard Self.zeroPaddedWidth(format) != nil else {
            throw Invalid(
              reason: "field '\(name)' takes a width to pad with zeros, such as {\(name):02}, not '\(format)'"
            )
          }
        } else if format != nil && Self.dateFields[name] == nil {
          throw Invalid(
            reason: "field '\(name)' is no date and takes no format (dates: "
              + Self.dateFields.keys.sorted().joined(separator: ", ") + ")")
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        literal = []
        parts.append(.field(name, format: format))
        bytes = bytes[(close + 1)...]
      } else if byte == UInt8(ascii: "}") {
        throw Invalid(reason: "unmatched '}' (write '}}' for a literal brace)")
      } else if byte == UInt8(ascii: "$"), let name = Self.beetsField(after: bytes) {
        throw Invalid(reason: "expects fields as {field}: write '{\(name)}', not beets' '$\(name)'")
      } else {
        literal.append(byte)
      }
    }
    if !literal.isEmpty { parts.append(.literal(literal)) }
    self.parts = parts
  }

  /// The field named by beets' spelling at the start of `bytes` (after a `$`): `title` or
  /// `{title}`, when it is one of shelf's fields (a `$` before anything else is literal).
  private static func beetsField(after bytes: ArraySlice<UInt8>) -> String? {
    var rest = bytes
    let braced = rest.first == UInt8(ascii: "{")
    if braced { rest = rest.dropFirst() }
    let word = rest.prefix { byte in
      (0x61...0x7A).contains(byte) || (0x41...0x5A).contains(byte) || byte == UInt8(ascii: "_")
    }
    let name = String(decoding: word, as: UTF8.self)
    guard !name.isEmpty, fields[name] != nil else { return nil }
    return name
  }

  /// The template filled in for `entry`, without a line end.
  func render(_ entry: CatalogEntry) -> [UInt8] {
    var out: [UInt8] = []
    for part in parts {
      switch part {
      case .literal(let bytes): out += bytes
      case .field(let name, let format): out += Self.value(name, format: format, of: entry) ?? []
      }
    }
    return out
  }

  /// The template filled in for `entry` as the parts of a relative path, for `extract --name`:
  /// only the template's own `/` separates folders; a `/` or NUL inside a value becomes `_`,
  /// and a field with no value becomes `unknown`, in a folder part and in the file name alike
  /// (an untagged file's `{artist} - {title}.{ext}` is `unknown - unknown.m4a`, never
  /// ` - .m4a`). A file name the template itself leaves empty (`{album}/`) is left for the
  /// extractor to refuse.
  func renderPath(_ entry: CatalogEntry) -> [[UInt8]] {
    var components: [[UInt8]] = []
    var current: [UInt8] = []
    for part in parts {
      switch part {
      case .literal(let bytes):
        for (index, piece) in bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
          .enumerated()
        {
          if index > 0 {
            components.append(current)
            current = []
          }
          current += piece
        }
      case .field(let name, let format):
        let value = (Self.value(name, format: format, of: entry) ?? []).map { byte in
          byte == UInt8(ascii: "/") || byte == 0 ? UInt8(ascii: "_") : byte
        }
        current += value.isEmpty ? Array("unknown".utf8) : value
      }
    }
    components.append(current)
    return components
  }

  /// One field's value for `entry`: a date field through `format` when one is given, a
  /// number padded with zeros to the width `format` gives.
  private static func value(_ name: String, format: String?, of entry: CatalogEntry) -> [UInt8]? {
    guard let format else { return fields[name]?(entry) }
    if let width = zeroPaddedWidth(format) {
      guard let digits = fields[name]?(entry) else { return nil }
      let sign = digits.first == UInt8(ascii: "-") ? 1 : 0
      return Array(digits.prefix(sign))
        + Array(repeating: UInt8(ascii: "0"), count: max(0, width - digits.count))
        + digits.dropFirst(sign)
    }
    return dateFields[name]?(entry).map { Array($0.formatted(format).utf8) }
  }

  /// The width of a number's format: `0` then a width from 1 to 20 (`02`, `03`); nil for any
  /// other format.
  private static func zeroPaddedWidth(_ format: String) -> Int? {
    guard format.count >= 2, format.hasPrefix("0"), let width = Int(format.dropFirst()),
      (1...20).contains(width)
    else { return nil }
    return width
  }

  /// The fields whose values are whole numbers, which take a width (`{track:02}`).
  private static let numberFields: Set<String> = [
    "size", "width", "height", "bit_depth", "depth", "frames", "loop", "sample_rate", "rate", "channels",
    "bitrate", "disc", "disc_total", "track", "track_total", "rotation", "orientation", "year", "lines",
    "words", "chars", "protection_class", "protection",
  ]

  /// Every field name a template may use, sorted.
  static var fieldNames: [String] { fields.keys.sorted() }

  private typealias Field = @Sendable (CatalogEntry) -> [UInt8]?

  private static func text(_ value: String?) -> [UInt8]? { value.map { Array($0.utf8) } }
  private static func number(_ value: (some BinaryInteger)?) -> [UInt8]? { value.map { Array("\($0)".utf8) } }
  private static func yesNo(_ value: Bool?) -> [UInt8]? { value.map { Array(($0 ? "yes" : "no").utf8) } }

  /// The fields by name: the query language's names and the `--json` keys for the same fact.
  private static let fields: [String: Field] = {
    var table: [String: Field] = [
      "path": { $0.path.bytes },
      "name": { $0.path.lastComponent.bytes },
      "ext": { entry in
        let ext = entry.path.lowercasedExtension
        return ext.isEmpty ? nil : Array(ext.utf8)
      },
      "root": { $0.root?.bytes },
      "area": { text($0.area) },
      "kind": { text($0.kind.rawValue) },
      "mime": { text($0.mime) },
      "size": { number($0.size) },
      "mtime": { text(CatalogPresentation.isoDate($0.mtimeNanoseconds)) },
      "detected_by": { text($0.detectedBy.rawValue) },
      "extension_mismatch": { yesNo($0.extensionMismatch) },
      "error": { text($0.error?.reason) },
      "width": { number($0.image?.width ?? $0.video?.width) },
      "height": { number($0.image?.height ?? $0.video?.height) },
      "bit_depth": { number($0.image?.bitDepth) },
      "color_type": { text($0.image?.colorType) },
      "alpha": { yesNo($0.image?.alpha) },
      "interlaced": { yesNo($0.image?.interlaced) },
      "cgbi": { yesNo($0.image?.cgbi) },
      "frames": { entry in number(entry.image?.frames.map(Int64.init) ?? entry.audio?.frames) },
      "loop": { number($0.image?.loop) },
      "format": { text($0.audio?.container ?? $0.video?.container ?? $0.image?.format ?? $0.plist?.format) },
      "duration": { entry in
        text((entry.audio?.duration ?? entry.video?.duration).map { Quantities.formatDuration($0) })
      },
      "seconds": { entry in
        text((entry.audio?.duration ?? entry.video?.duration).map { Quantities.formatFixed($0, decimals: 3) })
      },
      "sample_rate": { number($0.audio?.sampleRate ?? $0.video?.sampleRate) },
      "channels": { number($0.audio?.channels ?? $0.video?.channels) },
      // A codec the catalogue does not know reads as empty.
      "codec": { entry in
        text(entry.audio.flatMap { $0.codec.isEmpty ? nil : $0.codec } ?? entry.video?.codec)
      },
      "audio_codec": { text($0.video?.audioCodec) },
      "bitrate": { number($0.audio?.bitrate ?? $0.video?.bitrate) },
      "album_artist": { text($0.audio?.tags.albumArtist) },
      "disc": { number($0.audio?.tags.disc) },
      "disc_total": { number($0.audio?.tags.discTotal) },
      "track_total": { number($0.audio?.tags.trackTotal) },
      "artwork": { yesNo($0.audio?.hasArtwork) },
      "frame_rate": { entry in text(entry.video?.frameRate.map { Quantities.formatFixed($0, decimals: 3) }) },
      "rotation": { number($0.video?.rotation) },
      "taken": { text(CatalogPresentation.taken($0.video?.taken ?? $0.exif?.taken)) },
      "camera": { text($0.exif?.camera) },
      "lens": { text($0.exif?.lens) },
      "orientation": { number($0.exif?.orientation) },
      "software": { text($0.exif?.software) },
      "gps": { entry in text(entry.exif?.gps.map { "\($0.latitude),\($0.longitude)" }) },
      "lat": { entry in text(entry.exif?.gps.map { "\($0.latitude)" }) },
      "lon": { entry in text(entry.exif?.gps.map { "\($0.longitude)" }) },
      "alt": { entry in text(entry.exif?.gps?.altitude.map { "\($0)" }) },
      "live_photo": { entry in text(entry.livePhoto.map { String(decoding: $0.bytes, as: UTF8.self) }) },
      "title": { text($0.audio?.title ?? $0.video?.title) },
      "artist": { text($0.audio?.artist) },
      "album": { text($0.audio?.album) },
      "date": { text($0.audio?.date) },
      "year": { number($0.audio?.year) },
      // The number, as `--json` and queries give it: the tag may read `3/10`.
      "track": { number($0.audio?.trackNumber) },
      "genre": { text($0.audio?.genre) },
      "comment": { text($0.audio?.comment) },
      "encoding": { text($0.text?.encoding.rawValue) },
      "bom": { yesNo($0.text?.bom) },
      "line_endings": { text($0.text?.lineEndings) },
      "lines": { number($0.text?.lines) },
      "words": { number($0.text?.words) },
      "chars": { number($0.text?.chars) },
      "first_line": { text($0.text?.firstLine) },
      "plist": { text($0.plist?.format) },
      "keys": { entry in text(entry.plist.map { $0.keys.joined(separator: " ") }) },
      "domain": { text($0.backup?.domain) },
      "app": { text($0.backup?.app) },
      "file_id": { text($0.backup?.fileID) },
      "protection_class": { number($0.backup?.protectionClass) },
      "mode": { entry in text(entry.backup.map { "0" + String($0.mode, radix: 8) }) },
    ]
    // The query language's names for the same facts.
    let aliases = [
      "type": "mime", "modified": "mtime", "detected": "detected_by", "mismatch": "extension_mismatch",
      "depth": "bit_depth", "color": "color_type", "rate": "sample_rate", "endings": "line_endings",
      "key": "keys", "protection": "protection_class",
      "fps": "frame_rate",
    ]
    for (alias, name) in aliases { table[alias] = table[name] }
    return table
  }()

  /// The fields that hold a date and time, which `{field:FORMAT}` formats: a modification
  /// time in the local zone, a camera's time as it recorded it (with or without an offset).
  private static let dateFields: [String: @Sendable (CatalogEntry) -> Timestamp?] = [
    "mtime": { Timestamp(localNanoseconds: $0.mtimeNanoseconds) },
    "modified": { Timestamp(localNanoseconds: $0.mtimeNanoseconds) },
    "taken": { entry in (entry.video?.taken ?? entry.exif?.taken).flatMap { Timestamp(parsing: $0) } },
  ]
}

extension String {
  /// The string without leading and trailing spaces.
  fileprivate var trimmingSpaces: String {
    var text = Substring(self)
    while text.first == " " { text = text.dropFirst() }
    while text.last == " " { text = text.dropLast() }
    return String(text)
  }
}
