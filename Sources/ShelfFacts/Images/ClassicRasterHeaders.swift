import ShelfCore

extension ImageHeaderReader {
  /// PCX: the 128-byte header's window (inclusive bounds, as ZSoft defines it), bits per pixel
  /// and planes.
  public static func readPCX(_ source: any ByteSource) throws -> ImageFacts {
    try pcxFacts(try source.read(count: 128, at: 0), format: "pcx", frames: 1)
  }

  /// DCX: a directory of up to 1,024 PCX pages (it ends at the first zero offset); the size is
  /// the first page's, as Pillow gives it.
  public static func readDCX(_ source: any ByteSource) throws -> ImageFacts {
    let directory = try source.read(count: 4 + 4 * 1024, at: 0)
    guard directory.le32(0) == 0x3ADE_68B1 else { throw HeaderError("corrupt DCX: bad magic") }
    var offsets: [Int] = []
    while let offset = directory.le32(4 + 4 * offsets.count), offset != 0 { offsets.append(offset) }
    guard let first = offsets.first else { throw HeaderError("corrupt DCX: no pages") }
    guard Int64(first) < source.size else { throw HeaderError("truncated DCX: first page past the end") }
    return try pcxFacts(try source.read(count: 128, at: Int64(first)), format: "dcx", frames: offsets.count)
  }

  private static func pcxFacts(_ head: [UInt8], format: String, frames: Int) throws -> ImageFacts {
    guard head.count == 128, let x0 = head.le16(4), let y0 = head.le16(6), let x1 = head.le16(8),
      let y1 = head.le16(10)
    else { throw HeaderError("truncated PCX: header cut off") }
    guard head[0] == 0x0A, x1 >= x0, y1 >= y0 else { throw HeaderError("corrupt PCX: bad header") }
    let bits = Int(head[3])
    let planes = Int(head[65])
    let colour: ImageColorType
    switch (bits, planes) {
    case (1, 1): colour = .gray
    case (8, 3): colour = .rgb
    case (8, 4): colour = .rgba
    default: colour = .palette
    }
    return ImageFacts(
      format: format, width: x1 - x0 + 1, height: y1 - y0 + 1,
      bitDepth: bits == 8 && planes > 1 ? 8 : bits * planes, colorType: colour, alpha: colour == .rgba,
      interlaced: false, cgbi: nil, frames: frames)
  }

  /// SGI (IRIS): the big-endian header's width, height and channel count; 1 or 2 bytes a sample.
  public static func readSGI(_ source: any ByteSource) throws -> ImageFacts {
    let head = try source.read(count: 12, at: 0)
    guard head.count == 12, let width = head.be16(6), let height = head.be16(8), let channels = head.be16(10)
    else { throw HeaderError("truncated SGI: header cut off") }
    guard head.be16(0) == 474, head[3] == 1 || head[3] == 2, width > 0, height > 0, channels > 0 else {
      throw HeaderError("corrupt SGI: bad header")
    }
    let colour: ImageColorType =
      channels == 1 ? .gray : channels == 2 ? .grayAlpha : channels == 3 ? .rgb : .rgba
    return ImageFacts(
      format: "sgi", width: width, height: height, bitDepth: Int(head[3]) * 8, colorType: colour,
      alpha: channels == 2 || channels >= 4, interlaced: false, cgbi: nil, frames: 1)
  }

  /// Sun raster: the big-endian header's width, height, depth (1, 8, 24 or 32 bits a pixel)
  /// and colour-map type.
  public static func readSunRaster(_ source: any ByteSource) throws -> ImageFacts {
    let head = try source.read(count: 32, at: 0)
    guard head.count == 32, let width = head.be32(4), let height = head.be32(8), let depth = head.be32(12),
      let mapType = head.be32(24)
    else { throw HeaderError("truncated Sun raster: header cut off") }
    guard head.be32(0) == 0x59A6_6A95, width > 0, height > 0, [1, 8, 24, 32].contains(depth) else {
      throw HeaderError("corrupt Sun raster: bad header")
    }
    let colour: ImageColorType =
      depth == 1 ? .gray : depth == 8 ? (mapType == 0 ? .gray : .palette) : depth == 24 ? .rgb : .rgba
    return ImageFacts(
      format: "sun", width: width, height: height, bitDepth: depth <= 8 ? depth : 8, colorType: colour,
      alpha: depth == 32, interlaced: false, cgbi: nil, frames: 1)
  }

  /// DDS (DirectDraw surface, game textures): the 124-byte header's width and height and its
  /// pixel format's flags; mipmaps and cube faces are not frames (Pillow shows the top level).
  public static func readDDS(_ source: any ByteSource) throws -> ImageFacts {
    let head = try source.read(count: 128, at: 0)
    guard head.count == 128, let height = head.le32(12), let width = head.le32(16), let flags = head.le32(80)
    else { throw HeaderError("truncated DDS: header cut off") }
    guard head.fourCC(0) == "DDS ", head.le32(4) == 124, width > 0, height > 0 else {
      throw HeaderError("corrupt DDS: bad header")
    }
    let fourCC = head.fourCC(84)
    // DDPF_ALPHAPIXELS, or a block compression that carries alpha.
    let alpha = flags & 0x1 != 0 || ["DXT2", "DXT3", "DXT4", "DXT5"].contains(fourCC)
    let luminance = flags & 0x20000 != 0
    return ImageFacts(
      format: "dds", width: width, height: height, bitDepth: 8,
      colorType: luminance ? (alpha ? .grayAlpha : .gray) : alpha ? .rgba : .rgb, alpha: alpha,
      interlaced: false, cgbi: nil, frames: 1)
  }
}
