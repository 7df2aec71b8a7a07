import ShelfCore

extension ImageHeaderReader {
  /// XBM (X bitmap, C source): the `#define NAME_width N` and `#define NAME_height N` lines that
  /// open it, followed somewhere by the `NAME_bits[]` array, as Pillow requires.
  public static func readXBM(_ source: any ByteSource) throws -> ImageFacts {
    guard let size = xbmSize(try source.read(count: 8192, at: 0)) else {
      throw HeaderError("corrupt XBM: no width and height defines")
    }
    return ImageFacts(
      format: "xbm", width: size.width, height: size.height, bitDepth: 1, colorType: .gray, alpha: false,
      interlaced: false, cgbi: nil, frames: 1)
  }

  /// The width and height an XBM's first two `#define` lines give (blank lines between them
  /// allowed), when a `_bits[` array follows.
  static func xbmSize(_ p: [UInt8]) -> (width: Int, height: Int)? {
    let text = p.prefix(8192)
    guard let start = text.firstIndex(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }),
      text[start...].starts(with: Array("#define".utf8))
    else { return nil }
    let lines = text[start...].split(whereSeparator: { $0 == 0x0A || $0 == 0x0D }).prefix(2)
    var values: [Int] = []
    for (line, suffix) in zip(lines, ["_width", "_height"]) {
      let words = line.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 })
      guard words.count >= 3, words[0].elementsEqual(Array("#define".utf8)),
        words[words.count - 2].reversed().starts(with: Array(suffix.utf8).reversed()),
        let value = decimal(words[words.count - 1]), value > 0
      else { return nil }
      values.append(value)
    }
    guard values.count == 2, contains(text, Array("_bits[".utf8)) else { return nil }
    return (values[0], values[1])
  }

  /// A decimal of at most nine digits (no sign), or nil.
  private static func decimal(_ digits: ArraySlice<UInt8>) -> Int? {
    guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ (0x30...0x39).contains($0) }) else {
      return nil
    }
    return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
  }

  private static func contains(_ haystack: ArraySlice<UInt8>, _ needle: [UInt8]) -> Bool {
    guard haystack.count >= needle.count else { return false }
    var index = haystack.startIndex
    while index + needle.count <= haystack.endIndex {
      if haystack[index..<index + needle.count].elementsEqual(needle) { return true }
      index += 1
    }
    return false
  }

  // MARK: EPS

  /// EPS: the size its `%%BoundingBox` gives (each corner truncated to whole points, as Pillow
  /// reads it; `(atend)` looks in the trailer), or a Photoshop `%ImageData` line's columns and
  /// rows, which Pillow prefers. A DOS EPS binary header points at the PostScript; when that
  /// has no bounding box, the TIFF or WMF preview it also points at gives the size.
  public static func readEPS(_ source: any ByteSource) throws -> ImageFacts {
    let head = try source.read(count: 30, at: 0)
    var postScript: Range<Int64> = 0..<source.size
    var previews: [(format: String, range: Range<Int64>)] = []
    if head.starts(with: [0xC5, 0xD0, 0xD3, 0xC6]) {
      guard head.count == 30, let offset = head.le32(4), let length = head.le32(8) else {
        throw HeaderError("truncated EPS: binary header cut off")
      }
      postScript = clamped(offset, length, to: source.size)
      for (format, at) in [("wmf", 12), ("tiff", 20)] {
        if let offset = head.le32(at), let length = head.le32(at + 4), offset > 0, length > 0 {
          previews.append((format, clamped(offset, length, to: source.size)))
        }
      }
    }
    let window = 64 << 10
    let start = try source.read(count: min(window, Int(postScript.count)), at: postScript.lowerBound)
    guard start.starts(with: Array("%!PS".utf8)) else { throw HeaderError("corrupt EPS: no PostScript") }
    var found = epsHeaderSize(start)
    if found == nil, postScript.count > Int64(window) {
      let tail = try source.read(count: window, at: postScript.upperBound - Int64(window))
      found = epsTrailerBoundingBox(tail)
    } else if found == nil {
      found = epsTrailerBoundingBox(start)
    }
    if found == nil {
      for preview in previews {
        let part = ByteRange(source: source, range: preview.range)
        if preview.format == "tiff", let tiff = try? readTIFF(part) {
          found = (tiff.width, tiff.height)
        } else if preview.format == "wmf" {
          found = try wmfSize(part)
        }
        if found != nil { break }
      }
    }
    guard let found else { throw HeaderError("corrupt EPS: no %%BoundingBox") }
    return ImageFacts(
      format: "eps", width: found.width, height: found.height, bitDepth: 8, colorType: .rgb, alpha: false,
      interlaced: false, cgbi: nil, frames: 1)
  }

  private static func clamped(_ offset: Int, _ length: Int, to size: Int64) -> Range<Int64> {
    let lower = min(Int64(offset), size)
    return lower..<min(lower + Int64(length), size)
  }

  /// The size from the header comments' first `%%BoundingBox` (nil for `(atend)`) or an
  /// `%ImageData` line further on.
  private static func epsHeaderSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
    var inComments = true
    var box: (width: Int, height: Int)?
    for line in epsLines(bytes) {
      if inComments, line.first != 0x25 || line.starts(with: Array("%%EndComments".utf8)) {
        inComments = false
      }
      if inComments, box == nil, let value = epsValue(line, "%%BoundingBox:") { box = boundingBox(value) }
      if !inComments, let value = epsValue(line, "%ImageData:") {
        let numbers = value.split(separator: " ").prefix(2).compactMap { Int($0) }
        if numbers.count == 2, numbers[0] > 0, numbers[1] > 0, box != nil { return (numbers[0], numbers[1]) }
      }
    }
    return box
  }

  /// The last `%%BoundingBox` after `%%Trailer`.
  private static func epsTrailerBoundingBox(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
    var inTrailer = false
    var box: (width: Int, height: Int)?
    for line in epsLines(bytes) {
      if line.starts(with: Array("%%Trailer".utf8)) { inTrailer = true }
      if inTrailer, let value = epsValue(line, "%%BoundingBox:"), let found = boundingBox(value) {
        box = found
      }
    }
    return box
  }

  private static func epsLines(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
    bytes.split(whereSeparator: { $0 == 0x0A || $0 == 0x0D }).prefix(4096).map { $0.prefix(255) }
  }

  private static func epsValue(_ line: ArraySlice<UInt8>, _ key: String) -> String? {
    guard line.starts(with: Array(key.utf8)) else { return nil }
    return String(decoding: line.dropFirst(key.utf8.count), as: UTF8.self).trimmingBlanks
  }

  /// `llx lly urx ury` in points, each truncated toward zero.
  private static func boundingBox(_ value: String) -> (width: Int, height: Int)? {
    let corners = value.split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap { Double($0) }
    guard corners.count == 4, corners.allSatisfy({ abs($0) < 1e9 }) else { return nil }
    let truncated = corners.map { Int($0.rounded(.towardZero)) }
    let width = truncated[2] - truncated[0]
    let height = truncated[3] - truncated[1]
    return width > 0 && height > 0 ? (width, height) : nil
  }

  /// An Aldus placeable WMF's bounding box in points (its units per inch turned to 72).
  private static func wmfSize(_ source: any ByteSource) throws -> (width: Int, height: Int)? {
    let head = try source.read(count: 16, at: 0)
    guard head.le32(0) == 0x9AC6_CDD7, let left = head.le16(6), let top = head.le16(8),
      let right = head.le16(10), let bottom = head.le16(12), let inch = head.le16(14), inch > 0
    else { return nil }
    let width = (Int(Int16(truncatingIfNeeded: right)) - Int(Int16(truncatingIfNeeded: left))) * 72 / inch
    let height = (Int(Int16(truncatingIfNeeded: bottom)) - Int(Int16(truncatingIfNeeded: top))) * 72 / inch
    return width > 0 && height > 0 ? (width, height) : nil
  }

  // MARK: FITS

  /// FITS: NAXIS1 × NAXIS2 of the first header data unit that has an image (a 1-D array is one
  /// row), looking into later units only while the ones before hold no data, as Pillow does; a
  /// tile-compressed image (`ZIMAGE` in a binary table) gives `ZNAXIS1` × `ZNAXIS2`. Reads at
  /// most 8 units of at most 64 blocks of header each.
  public static func readFITS(_ source: any ByteSource) throws -> ImageFacts {
    var offset: Int64 = 0
    for unit in 0..<8 {
      let cards = try fitsHeader(source, at: &offset)
      guard let first = cards.first?.key, first == (unit == 0 ? "SIMPLE" : "XTENSION") else {
        throw HeaderError(unit == 0 ? "corrupt FITS: no SIMPLE card" : "corrupt FITS: no image")
      }
      let values = Dictionary(cards.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
      let prefix = values["XTENSION"] == "'BINTABLE'" && values["ZIMAGE"] == "T" ? "Z" : ""
      guard let axes = values[prefix + "NAXIS"].flatMap({ Int($0) }), (0...999).contains(axes) else {
        throw HeaderError("corrupt FITS: no NAXIS")
      }
      if axes == 0 { continue }
      guard let width = values[prefix + "NAXIS1"].flatMap({ Int($0) }),
        let height = axes == 1 ? 1 : values[prefix + "NAXIS2"].flatMap({ Int($0) }),
        (1...Int(Int32.max)).contains(width), (1...Int(Int32.max)).contains(height)
      else { throw HeaderError("corrupt FITS: bad NAXIS1 or NAXIS2") }
      let bits = values[prefix == "Z" ? "ZBITPIX" : "BITPIX"].flatMap { Int($0) }.map(abs)
      return ImageFacts(
        format: "fits", width: width, height: height,
        bitDepth: bits.flatMap { [8, 16, 32, 64].contains($0) ? $0 : nil },
        colorType: .gray, alpha: false, interlaced: false, cgbi: nil, frames: 1)
    }
    throw HeaderError("corrupt FITS: no image in the first 8 units")
  }

  /// The keyword and value (comment and quotes' padding left as they are, `=` dropped) of each
  /// card of the header at `offset`, which moves past it to the next 2,880-byte block.
  private static func fitsHeader(_ source: any ByteSource, at offset: inout Int64) throws -> [(
    key: String, value: String
  )] {
    var cards: [(key: String, value: String)] = []
    for _ in 0..<64 {
      let block = try source.read(count: 2880, at: offset)
      guard block.count == 2880 else { throw HeaderError("truncated FITS: header cut off") }
      offset += 2880
      for start in stride(from: 0, to: 2880, by: 80) {
        let card = block[start..<start + 80]
        let key = String(decoding: card.prefix(8), as: UTF8.self).trimmingBlanks
        if key == "END" { return cards }
        var value = String(decoding: card.dropFirst(8), as: UTF8.self)
        if let slash = value.firstIndex(of: "/") { value = String(value[..<slash]) }
        value = value.trimmingBlanks
        if value.hasPrefix("=") { value = value.dropFirst().trimmingBlanks }
        cards.append((key, value))
      }
    }
    throw HeaderError("corrupt FITS: no END card in 64 blocks")
  }
}

/// A part of a byte source, seen as a whole (an EPS file's preview).
private struct ByteRange: ByteSource {
  let source: any ByteSource
  let range: Range<Int64>
  var size: Int64 { Int64(range.count) }

  func read(count: Int, at offset: Int64) throws -> [UInt8] {
    guard offset >= 0, offset < size, count > 0 else { return [] }
    return try source.read(count: Int(min(Int64(count), size - offset)), at: range.lowerBound + offset)
  }
}

extension StringProtocol {
  /// Without the spaces and tabs at either end.
  fileprivate var trimmingBlanks: String {
    String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
  }
}
