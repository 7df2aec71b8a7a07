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
        guard FactField.templateNames.contains(name) else {
          var reason = "unknown field '\(name)'"
          if let near = Suggestions.closest(to: name, among: Self.fieldNames) {
            reason += "; did you mean '\(near)'?"
          }
          throw Invalid(reason: reason)
        }
        if let format, FactField.isWholeNumber(name) {
          guard Self.zeroPaddedWidth(format) != nil else {
            throw Invalid(
              reason: "field '\(name)' takes a width to pad with zeros, such as {\(name):02}, not '\(format)'"
            )
          }
        } else if format != nil && !FactField.isDate(name) {
          throw Invalid(
            reason: "field '\(name)' is no date and takes no format (dates: "
              + FactField.dateNames.joined(separator: ", ") + ")")
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
    guard !name.isEmpty, FactField.templateNames.contains(name) else { return nil }
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
    guard let format else { return FactField.templateBytes(name, of: entry) }
    if let width = zeroPaddedWidth(format) {
      guard let digits = FactField.templateBytes(name, of: entry) else { return nil }
      let sign = digits.first == UInt8(ascii: "-") ? 1 : 0
      return Array(digits.prefix(sign))
        + Array(repeating: UInt8(ascii: "0"), count: max(0, width - digits.count))
        + digits.dropFirst(sign)
    }
    return FactField.templateTime(name, of: entry).map { Array($0.formatted(format).utf8) }
  }

  /// The width of a number's format: `0` then a width from 1 to 20 (`02`, `03`); nil for any
  /// other format.
  private static func zeroPaddedWidth(_ format: String) -> Int? {
    guard format.count >= 2, format.hasPrefix("0"), let width = Int(format.dropFirst()),
      (1...20).contains(width)
    else { return nil }
    return width
  }

  /// Every field name a template may use, sorted: the query language's names and the `--json`
  /// keys (`FactField.table`).
  static var fieldNames: [String] { FactField.templateNames }
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
