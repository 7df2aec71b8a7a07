import ShelfCore
import ShelfPNG

extension EXIFBlockLocator {
  /// A PNG's EXIF block and XMP packet: the `eXIf` chunk, else the "Raw profile type exif" (or
  /// `APP1`) text chunk ImageMagick and exiftool write (`tEXt`, `zTXt` or `iTXt`); the XMP from
  /// the `iTXt` chunk "XML:com.adobe.xmp", else a "Raw profile type xmp" text chunk.
  static func pngBlocks(_ source: any ByteSource) throws -> Blocks {
    var blocks = Blocks()
    var profileEXIF: [UInt8]?
    var profileXMP: [UInt8]?
    try walkChunks(smallWhole(source), start: 8, littleEndian: false) { name, body in
      switch name {
      case "eXIf": if blocks.exif == nil { blocks.exif = exifBlock(tiff: try body()) }
      case "tEXt", "zTXt", "iTXt":
        guard let chunk = try body(), let (keyword, text) = textChunk(name, chunk) else { break }
        switch keyword {
        case "XML:com.adobe.xmp" where name == "iTXt": blocks.xmp = blocks.xmp ?? text
        case "Raw profile type exif", "Raw profile type APP1":
          profileEXIF = profileEXIF ?? rawProfile(text).flatMap { exifBlock(tiff: $0) }
        case "Raw profile type xmp": profileXMP = profileXMP ?? rawProfile(text)
        default: break
        }
      default: break
      }
      return true
    }
    blocks.exif = blocks.exif ?? profileEXIF
    blocks.xmp = blocks.xmp ?? profileXMP
    return blocks
  }

  /// The keyword and text of a `tEXt`, `zTXt` or `iTXt` chunk (inflated when compressed, up to
  /// twice `blockLimit`: raw profiles are hexadecimal); nil when damaged.
  static func textChunk(_ name: String, _ chunk: [UInt8]) -> (String, [UInt8])? {
    guard let nul = chunk.prefix(80).firstIndex(of: 0) else { return nil }
    let keyword = String(decoding: chunk[..<nul], as: UTF8.self)
    var rest = chunk[(nul + 1)...]
    var compressed = false
    switch name {
    case "zTXt":
      guard rest.first == 0 else { return nil }
      rest = rest.dropFirst()
      compressed = true
    case "iTXt":
      // Compression flag and method, then the language tag and the translated keyword.
      guard rest.count >= 2, let flag = rest.first, flag <= 1 else { return nil }
      compressed = flag == 1
      rest = rest.dropFirst(2)
      for _ in 0..<2 {
        guard let end = rest.firstIndex(of: 0) else { return nil }
        rest = rest[(end + 1)...]
      }
    default: break
    }
    guard compressed else { return (keyword, Array(rest)) }
    guard let text = ZlibStream.inflate(Array(rest), limit: 2 * blockLimit + 4096) else { return nil }
    return (keyword, text)
  }

  /// The bytes of an ImageMagick raw profile: a newline, the profile's name, its length in
  /// decimal, then that many bytes in hexadecimal over lines of 72 digits; nil when the digits
  /// run out before the length or the length is over `blockLimit`.
  static func rawProfile(_ text: [UInt8]) -> [UInt8]? {
    var lines = text.split(separator: UInt8(ascii: "\n"), maxSplits: 2, omittingEmptySubsequences: true)
    guard lines.count == 3 else { return nil }
    let digits = lines[1].filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\r") }
    guard digits.count <= 9, let length = Int(String(decoding: digits, as: UTF8.self)), length > 0,
      length <= blockLimit
    else { return nil }
    let hex = lines.removeLast()
    var bytes: [UInt8] = []
    bytes.reserveCapacity(length)
    var high: UInt8?
    for character in hex where bytes.count < length {
      let nibble: UInt8
      switch character {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = character - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = character - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = character - UInt8(ascii: "A") + 10
      default: continue
      }
      if let first = high {
        bytes.append(first << 4 | nibble)
        high = nil
      } else {
        high = nibble
      }
    }
    return bytes.count == length ? bytes : nil
  }
}
