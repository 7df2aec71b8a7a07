import ShelfCore

extension ImageHeaderReader {
  /// PSD and PSB (large document): the header's size, depth and colour mode; frames are the
  /// layers (as Pillow counts them), or 1 for a document that has only its composite image.
  public static func readPSD(_ source: any ByteSource) throws -> ImageFacts {
    let head = try source.read(count: 26, at: 0)
    guard head.count == 26, head.fourCC(0) == "8BPS", let version = head.be16(4),
      version == 1 || version == 2,
      let channels = head.be16(12), let height = head.be32(14), let width = head.be32(18),
      let depth = head.be16(22), let mode = head.be16(24)
    else { throw HeaderError("corrupt PSD: bad header") }
    guard width > 0, height > 0 else { throw HeaderError("corrupt PSD: bad dimensions") }
    let large = version == 2
    // Colour mode data and image resources (32-bit lengths), then the layer and mask
    // information and its layer info (32-bit, 64-bit in a PSB), which starts with the count.
    var offset: Int64 = 26
    for _ in 0..<2 {
      guard let length = try source.read(count: 4, at: offset).be32(0) else { break }
      offset += 4 + Int64(length)
    }
    var layers = 0
    let lengthSize = large ? 8 : 4
    let section = try source.read(count: 2 * lengthSize + 2, at: offset)
    let sectionLength = large ? section.be64(0).map(Int.init(truncatingIfNeeded:)) : section.be32(0)
    let infoLength =
      large ? section.be64(lengthSize).map(Int.init(truncatingIfNeeded:)) : section.be32(lengthSize)
    if let sectionLength, sectionLength > 0, let infoLength, infoLength > 0,
      let count = section.be16(2 * lengthSize)
    {
      layers = abs(Int(Int16(truncatingIfNeeded: count)))
    }
    let colours: [Int: ImageColorType] = [
      0: .gray, 1: .gray, 2: .palette, 3: .rgb, 4: .cmyk, 7: .other, 8: .gray, 9: .lab,
    ]
    let baseChannels: [Int: Int] = [0: 1, 1: 1, 2: 1, 3: 3, 4: 4, 8: 1, 9: 3]
    let alpha = channels > (baseChannels[mode] ?? channels)
    var colour = colours[mode] ?? .other
    if alpha, colour == .rgb { colour = .rgba } else if alpha, colour == .gray { colour = .grayAlpha }
    return ImageFacts(
      format: "psd", width: width, height: height, bitDepth: depth, colorType: colour, alpha: alpha,
      interlaced: false, cgbi: nil, frames: max(layers, 1))
  }

  /// The plausibility rules `file(1)` applies to a TGA header, which has no magic number: a
  /// colour-map type of 0 or 1, a known image type, a colour-map entry size and pixel depth the
  /// format allows, a colour map when the type needs one, and a non-zero size.
  static func isPlausibleTGAHeader(_ head: [UInt8]) -> Bool {
    guard head.count >= 18 else { return false }
    let mapType = head[1]
    let imageType = head[2]
    let mapEntrySize = head[7]
    let depth = head[16]
    guard mapType <= 1, [1, 2, 3, 9, 10, 11, 32, 33].contains(imageType),
      [0, 15, 16, 24, 32].contains(mapEntrySize), [1, 8, 15, 16, 24, 32].contains(depth),
      head[17] & 0xC0 == 0, head.le16(12) != 0, head.le16(14) != 0
    else { return false }
    let mapped = imageType == 1 || imageType == 9 || imageType == 32 || imageType == 33
    return !mapped || mapType == 1
  }

  /// TGA: the 18-byte header; alpha when the descriptor gives attribute bits.
  public static func readTGA(_ source: any ByteSource) throws -> ImageFacts {
    let head = try source.read(count: 18, at: 0)
    guard head.count == 18, let width = head.le16(12), let height = head.le16(14) else {
      throw HeaderError("truncated TGA: header cut off")
    }
    guard isPlausibleTGAHeader(head) else { throw HeaderError("corrupt TGA: implausible header") }
    let imageType = head[2] & 0x07
    let depth = Int(head[16])
    let alpha = head[17] & 0x0F != 0
    let colour: ImageColorType =
      imageType == 1 ? .palette : imageType == 3 ? (alpha ? .grayAlpha : .gray) : alpha ? .rgba : .rgb
    return ImageFacts(
      format: "tga", width: width, height: height, bitDepth: imageType == 1 || imageType == 3 ? depth : 8,
      colorType: colour, alpha: alpha, interlaced: false, cgbi: nil, frames: 1)
  }

  /// QOI: `qoif`, big-endian width and height, channels (3 or 4).
  public static func readQOI(_ source: any ByteSource) throws -> ImageFacts {
    let head = try source.read(count: 14, at: 0)
    guard head.count == 14, head.fourCC(0) == "qoif", let width = head.be32(4), let height = head.be32(8)
    else {
      throw HeaderError("truncated QOI: header cut off")
    }
    guard width > 0, height > 0, head[12] == 3 || head[12] == 4 else {
      throw HeaderError("corrupt QOI: bad header")
    }
    let alpha = head[12] == 4
    return ImageFacts(
      format: "qoi", width: width, height: height, bitDepth: 8, colorType: alpha ? .rgba : .rgb,
      alpha: alpha,
      interlaced: false, cgbi: nil, frames: 1)
  }
}
