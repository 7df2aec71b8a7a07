import ShelfCore

extension ImageHeaderReader {
  /// SVG: the root `<svg>` element's `width` and `height` in CSS pixels (96 per inch, as
  /// librsvg and browsers size them; percentages are of the `viewBox`), else the `viewBox`'s
  /// size; a missing one follows the `viewBox`'s aspect ratio. Reads the first 64 KiB.
  public static func readSVG(_ source: any ByteSource) throws -> ImageFacts {
    guard let attributes = svgRootAttributes(try source.read(count: 64 << 10, at: 0)) else {
      throw HeaderError("corrupt SVG: no <svg> element")
    }
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
      colorType: .rgba,
      alpha: true, interlaced: false, cgbi: nil, frames: 1)
  }

  /// The attributes of the first element when it is `<svg>` (or `<svg:svg>`), after the XML
  /// declaration, comments, processing instructions and a DOCTYPE; nil otherwise. Read as
  /// bytes (XML's markup is ASCII; values are decoded as UTF-8): every SVG icon of a theme
  /// passes through here twice.
  static func svgRootAttributes(_ bytes: [UInt8]) -> [String: String]? {
    bytes.withUnsafeBufferPointer { text in
      var at = text.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
      func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
      func has(_ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard text.count - at >= count else { return false }
        return (0..<count).allSatisfy { text[at + $0] == prefix.utf8Start[$0] }
      }
      /// The index just past the next `terminator` from `at`, or nil.
      func past(_ terminator: StaticString) -> Int? {
        let count = terminator.utf8CodeUnitCount
        var index = at
        while index + count <= text.count {
          if (0..<count).allSatisfy({ text[index + $0] == terminator.utf8Start[$0] }) { return index + count }
          index += 1
        }
        return nil
      }
      func skipSpaces() { while at < text.count, isSpace(text[at]) { at += 1 } }
      while true {
        skipSpaces()
        if has("<?") {
          guard let end = past("?>") else { return nil }
          at = end
        } else if has("<!--") {
          guard let end = past("-->") else { return nil }
          at = end
        } else if has("<!") {
          guard let end = doctypeEnd(text, from: at) else { return nil }
          at = end
        } else {
          break
        }
      }
      if has("<svg:svg") {
        at += 8
      } else if has("<svg") {
        at += 4
      } else {
        return nil
      }
      guard at < text.count,
        isSpace(text[at]) || text[at] == UInt8(ascii: ">") || text[at] == UInt8(ascii: "/")
      else { return nil }
      var attributes: [String: String] = [:]
      while true {
        skipSpaces()
        guard at < text.count, text[at] != UInt8(ascii: ">"), text[at] != UInt8(ascii: "/") else {
          return attributes
        }
        let nameStart = at
        while at < text.count, text[at] != UInt8(ascii: "="), !isSpace(text[at]),
          text[at] != UInt8(ascii: ">")
        {
          at += 1
        }
        let name = String(decoding: UnsafeBufferPointer(rebasing: text[nameStart..<at]), as: UTF8.self)
        skipSpaces()
        guard at < text.count, text[at] == UInt8(ascii: "=") else { return attributes }
        at += 1
        skipSpaces()
        guard at < text.count, text[at] == UInt8(ascii: "\"") || text[at] == UInt8(ascii: "'") else {
          return attributes
        }
        let quote = text[at]
        at += 1
        let valueStart = at
        while at < text.count, text[at] != quote { at += 1 }
        guard at < text.count else { return attributes }
        attributes[name] = String(
          decoding: UnsafeBufferPointer(rebasing: text[valueStart..<at]), as: UTF8.self)
        at += 1
      }
    }
  }

  /// The index just past the end of a `<!DOCTYPE …>` starting at `start`, which may hold an
  /// internal subset in brackets.
  private static func doctypeEnd(_ text: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
    var depth = 0
    for index in start..<text.count {
      switch text[index] {
      case UInt8(ascii: "["): depth += 1
      case UInt8(ascii: "]"): depth -= 1
      case UInt8(ascii: ">") where depth <= 0: return index + 1
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
