import ShelfCore

extension ImageHeaderReader {
  /// JPEG 2000: a JP2/JPX file's image header box (`jp2h` → `ihdr`), or a raw codestream's
  /// SIZ segment (the reference grid less its offsets). At most 1,000 top-level boxes are read.
  public static func readJPEG2000(_ source: any ByteSource) throws -> ImageFacts {
    let head = try source.read(count: 64, at: 0)
    if head.starts(with: [0xFF, 0x4F, 0xFF, 0x51]) { return try codestreamFacts(head, format: "j2k") }
    var offset: Int64 = 0
    var steps = 0
    while offset + 8 <= source.size, steps < 1000 {
      steps += 1
      guard let box = try jpeg2000Box(source, at: offset) else { break }
      let (length, headerLength) = (box.length, box.headerLength)
      guard length >= headerLength else { throw HeaderError("corrupt JP2: bad box length") }
      switch box.type {
      case "jp2h":
        let body = try source.read(count: Int(min(length - headerLength, 1 << 16)), at: offset + headerLength)
        guard body.fourCC(4) == "ihdr", let height = body.be32(8), let width = body.be32(12),
          let components = body.be16(16), let depth = body.u8(18)
        else { throw HeaderError("corrupt JP2: no image header box") }
        guard width > 0, height > 0 else { throw HeaderError("corrupt JP2: bad dimensions") }
        return ImageFacts(
          format: "jp2", width: width, height: height, bitDepth: depth == 255 ? nil : (depth & 0x7F) + 1,
          colorType: jpeg2000Colour(components), alpha: components == 2 || components == 4, interlaced: false,
          cgbi: nil, frames: 1)
      case "jp2c":
        return try codestreamFacts(try source.read(count: 64, at: offset + headerLength), format: "jp2")
      default:
        // A box that claims more than the file holds (its end offset may not even fit 64
        // bits) ends the walk.
        let (end, overflow) = offset.addingReportingOverflow(length)
        guard !overflow, end <= source.size else {
          throw HeaderError(
            "truncated JP2: \(box.type) box at byte \(offset) declares \(length) bytes, the file holds \(source.size - offset)"
          )
        }
        offset = end
      }
    }
    throw HeaderError("corrupt JP2: no image header")
  }

  /// The header of the JPEG 2000 box at `offset`: its type, its whole length (a 64-bit one
  /// after a length of 1; a length of 0 runs to the end of the file) and the header's own; nil
  /// when the header is cut off or its 64-bit length does not fit an `Int64`. Unchecked against
  /// the file's size: the caller decides what a box that overruns it means.
  static func jpeg2000Box(_ source: any ByteSource, at offset: Int64) throws
    -> (type: String, length: Int64, headerLength: Int64)?
  {
    let header = try source.read(count: 16, at: offset)
    guard var length = header.be32(0).map(Int64.init) else { return nil }
    var headerLength: Int64 = 8
    if length == 1 {
      guard let large = header.be64(8), large <= UInt64(Int64.max) else { return nil }
      (length, headerLength) = (Int64(large), 16)
    } else if length == 0 {
      length = source.size - offset
    }
    return (header.fourCC(4), length, headerLength)
  }

  private static func codestreamFacts(_ bytes: [UInt8], format: String) throws -> ImageFacts {
    guard bytes.starts(with: [0xFF, 0x4F, 0xFF, 0x51]), let xSize = bytes.be32(8), let ySize = bytes.be32(12),
      let xOffset = bytes.be32(16), let yOffset = bytes.be32(20), let components = bytes.be16(40),
      let depth = bytes.u8(42)
    else { throw HeaderError("truncated JPEG 2000: SIZ segment cut off") }
    guard xSize > xOffset, ySize > yOffset else { throw HeaderError("corrupt JPEG 2000: bad dimensions") }
    return ImageFacts(
      format: format, width: xSize - xOffset, height: ySize - yOffset, bitDepth: (depth & 0x7F) + 1,
      colorType: jpeg2000Colour(components), alpha: components == 2 || components == 4, interlaced: false,
      cgbi: nil, frames: 1)
  }

  private static func jpeg2000Colour(_ components: Int) -> ImageColorType {
    switch components {
    case 1: .gray
    case 2: .grayAlpha
    case 3: .rgb
    case 4: .rgba
    default: .other
    }
  }
}
