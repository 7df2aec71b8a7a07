import ShelfCore

extension ImageHeaderReader {
  /// Netpbm P1–P7, plain (ASCII) and raw alike: the header's width, height and maximum value
  /// (comments allowed between the fields), or a PAM's `WIDTH`/`HEIGHT`/`DEPTH`/`MAXVAL`/
  /// `TUPLTYPE` lines.
  public static func readNetpbm(_ source: any ByteSource) throws -> ImageFacts {
    let head = try source.read(count: 4096, at: 0)
    guard head.count >= 3, head[0] == 0x50, (0x31...0x37).contains(head[1]) else {
      throw HeaderError("corrupt Netpbm: no P1–P7 magic")
    }
    let kind = Int(head[1] - 0x30)
    if kind == 7 { return try readPAM(head) }
    var tokens: [Int] = []
    var index = 2
    let wanted = kind == 1 || kind == 4 ? 2 : 3
    while tokens.count < wanted, index < head.count {
      let byte = head[index]
      if byte == 0x23 {  // a comment runs to the end of the line
        while index < head.count, head[index] != 0x0A, head[index] != 0x0D { index += 1 }
      } else if (0x30...0x39).contains(byte) {
        var value = 0
        while index < head.count, (0x30...0x39).contains(head[index]), value < 1 << 40 {
          value = value * 10 + Int(head[index] - 0x30)
          index += 1
        }
        tokens.append(value)
        continue
      } else if ![0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C].contains(byte) {
        throw HeaderError("corrupt Netpbm: unexpected byte in the header")
      }
      index += 1
    }
    guard tokens.count == wanted, tokens[0] > 0, tokens[1] > 0 else {
      throw HeaderError("truncated Netpbm: header cut off")
    }
    let maxValue = wanted == 3 ? tokens[2] : 1
    guard maxValue > 0, maxValue < 65536 else {
      throw HeaderError("corrupt Netpbm: maximum value \(maxValue)")
    }
    let format = ["pbm", "pgm", "ppm"][(kind - 1) % 3]
    return ImageFacts(
      format: format, width: tokens[0], height: tokens[1],
      bitDepth: maxValue == 1 ? 1 : maxValue < 256 ? 8 : 16,
      colorType: format == "ppm" ? .rgb : .gray, alpha: false, interlaced: false, cgbi: nil, frames: 1)
  }

  private static func readPAM(_ head: [UInt8]) throws -> ImageFacts {
    var fields: [String: String] = [:]
    var ended = false
    for line in String(decoding: head.dropFirst(3), as: UTF8.self).split(whereSeparator: \.isNewline)
      .dropLast()
    {
      let words = line.split(separator: " ", maxSplits: 1).map(String.init)
      if words.first == "ENDHDR" {
        ended = true
        break
      }
      if words.count == 2, !words[0].hasPrefix("#") { fields[words[0]] = words[1].trimmingSpaces }
    }
    guard ended, let width = fields["WIDTH"].flatMap({ Int($0) }),
      let height = fields["HEIGHT"].flatMap({ Int($0) }),
      width > 0, height > 0
    else { throw HeaderError("corrupt PAM: no WIDTH, HEIGHT or ENDHDR") }
    let maxValue = fields["MAXVAL"].flatMap { Int($0) } ?? 255
    let tuple = fields["TUPLTYPE"] ?? ""
    let colours: [String: ImageColorType] = [
      "BLACKANDWHITE": .gray, "GRAYSCALE": .gray, "RGB": .rgb, "BLACKANDWHITE_ALPHA": .grayAlpha,
      "GRAYSCALE_ALPHA": .grayAlpha, "RGB_ALPHA": .rgba,
    ]
    let alpha = tuple.hasSuffix("_ALPHA")
    return ImageFacts(
      format: "pam", width: width, height: height, bitDepth: maxValue == 1 ? 1 : maxValue < 256 ? 8 : 16,
      colorType: colours[tuple] ?? .other, alpha: alpha, interlaced: false, cgbi: nil, frames: 1)
  }

  /// XPM (version 3, a C array of strings, and XPM2): the values string's width and height;
  /// alpha when a colour is `None`. Reads the first 64 KiB.
  public static func readXPM(_ source: any ByteSource) throws -> ImageFacts {
    let text = String(decoding: try source.read(count: 64 << 10, at: 0), as: UTF8.self)
    var lines: [Substring]
    if text.hasPrefix("! XPM2") {
      lines = text.split(whereSeparator: \.isNewline).dropFirst().filter { !$0.hasPrefix("!") }
    } else {
      guard let brace = text.firstIndex(of: "{") else { throw HeaderError("corrupt XPM: no string array") }
      lines = []
      var rest = text[brace...]
      while let open = rest.firstIndex(of: "\""),
        let close = rest[rest.index(after: open)...].firstIndex(of: "\"")
      {
        lines.append(rest[rest.index(after: open)..<close])
        rest = rest[rest.index(after: close)...]
      }
    }
    guard
      let values = lines.first?.split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap({ Int($0) }),
      values.count >= 4,
      values[0] > 0, values[1] > 0
    else { throw HeaderError("corrupt XPM: no width, height, colours and characters per pixel") }
    guard values[2] >= 0 else { throw HeaderError("corrupt XPM: \(values[2]) colours") }
    let colours = lines.dropFirst().prefix(values[2])
    let alpha = colours.contains {
      $0.lowercased().split(separator: "\t").joined(separator: " ").hasSuffix(" none")
    }
    return ImageFacts(
      format: "xpm", width: values[0], height: values[1], bitDepth: 8, colorType: alpha ? .rgba : .palette,
      alpha: alpha, interlaced: false, cgbi: nil, frames: 1)
  }
}

extension String {
  fileprivate var trimmingSpaces: String {
    String(
      drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
  }
}
