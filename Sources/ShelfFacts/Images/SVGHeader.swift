import ShelfCore

extension ImageHeaderReader {
  /// SVG: the root `<svg>` element's `width` and `height` in CSS pixels (96 per inch, as
  /// librsvg and browsers size them; percentages are of the `viewBox`), else the `viewBox`'s
  /// size; a missing one follows the `viewBox`'s aspect ratio. Reads the first 64 KiB.
  public static func readSVG(_ source: any ByteSource) throws -> ImageFacts {
    let text = String(decoding: try source.read(count: 64 << 10, at: 0), as: UTF8.self)
    guard let attributes = svgRootAttributes(text) else { throw HeaderError("corrupt SVG: no <svg> element") }
    let viewBox = attributes["viewBox"].map {
      $0.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" || $0 == "\n" }).compactMap {
        Double($0)
      }
    }
    let box = viewBox.flatMap { $0.count == 4 && $0[2] > 0 && $0[3] > 0 ? ($0[2], $0[3]) : nil }
    var width = attributes["width"].flatMap { cssPixels($0, reference: box?.0) }
    var height = attributes["height"].flatMap { cssPixels($0, reference: box?.1) }
    if let box {
      if width == nil, let height { width = height * box.0 / box.1 }
      if height == nil, let width { height = width * box.1 / box.0 }
      width = width ?? box.0
      height = height ?? box.1
    }
    guard let width, let height, width >= 0.5, height >= 0.5, width < 1e9, height < 1e9 else {
      throw HeaderError("SVG without a usable width, height or viewBox")
    }
    return ImageFacts(
      format: "svg", width: Int(width.rounded()), height: Int(height.rounded()), bitDepth: nil,
      colorType: "rgba",
      alpha: true, interlaced: false, cgbi: nil, frames: 1)
  }

  /// The attributes of the first element when it is `<svg>` (or `<svg:svg>`), after the XML
  /// declaration, comments, processing instructions and a DOCTYPE; nil otherwise.
  static func svgRootAttributes(_ text: String) -> [String: String]? {
    var rest = Substring(text)
    if rest.hasPrefix("\u{FEFF}") { rest = rest.dropFirst() }
    while true {
      rest = rest.drop { $0.isWhitespace }
      if rest.hasPrefix("<?") {
        guard let end = rest.range(of: "?>") else { return nil }
        rest = rest[end.upperBound...]
      } else if rest.hasPrefix("<!--") {
        guard let end = rest.range(of: "-->") else { return nil }
        rest = rest[end.upperBound...]
      } else if rest.hasPrefix("<!") {
        guard let end = doctypeEnd(rest) else { return nil }
        rest = rest[end...]
      } else {
        break
      }
    }
    guard rest.hasPrefix("<svg") || rest.hasPrefix("<svg:svg") else { return nil }
    rest = rest.dropFirst(rest.hasPrefix("<svg:svg") ? 8 : 4)
    guard let first = rest.first, first.isWhitespace || first == ">" || first == "/" else { return nil }
    var attributes: [String: String] = [:]
    while true {
      rest = rest.drop { $0.isWhitespace }
      guard let next = rest.first, next != ">", next != "/" else { return attributes }
      let name = rest.prefix { $0 != "=" && !$0.isWhitespace && $0 != ">" }
      rest = rest[name.endIndex...].drop { $0.isWhitespace }
      guard rest.first == "=" else { return attributes }
      rest = rest.dropFirst().drop { $0.isWhitespace }
      guard let quote = rest.first, quote == "\"" || quote == "'" else { return attributes }
      rest = rest.dropFirst()
      guard let close = rest.firstIndex(of: quote) else { return attributes }
      attributes[String(name)] = String(rest[..<close])
      rest = rest[rest.index(after: close)...]
    }
  }

  /// The end of a `<!DOCTYPE …>` that may hold an internal subset in brackets.
  private static func doctypeEnd(_ text: Substring) -> Substring.Index? {
    var depth = 0
    for index in text.indices {
      switch text[index] {
      case "[": depth += 1
      case "]": depth -= 1
      case ">" where depth <= 0: return text.index(after: index)
      default: break
      }
    }
    return nil
  }

  /// A CSS length in pixels; percentages of `reference`; nil for `auto` or nonsense.
  private static func cssPixels(_ value: String, reference: Double?) -> Double? {
    let trimmed = value.trimmingCharacters(in: " \t\n\r")
    let number = trimmed.prefix { $0.isNumber || $0 == "." || $0 == "-" || $0 == "+" }
    guard let amount = Double(number) else { return nil }
    let unit = trimmed.dropFirst(number.count).lowercased()
    let scale: [String: Double] = [
      "": 1, "px": 1, "pt": 96.0 / 72, "pc": 16, "mm": 96 / 25.4, "cm": 96 / 2.54, "in": 96, "em": 16,
      "ex": 8,
    ]
    if unit == "%" { return reference.map { $0 * amount / 100 } }
    return scale[unit].map { $0 * amount }
  }
}

extension String {
  fileprivate func trimmingCharacters(in set: String) -> String {
    String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
  }
}
