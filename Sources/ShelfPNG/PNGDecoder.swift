internal import CPNGSupport
public import ShelfCore

/// A PNG file taken apart: its exact image and its chunks.
public struct PNGDecodedFile: Sendable {
  /// The pixels (CgBI files: premultiplied BGRA, as stored).
  public var image: PNGImage
  /// Every chunk of the file in order, CRC-checked.
  public var chunks: [PNGChunk]
  /// The colour type IHDR declares.
  public var colorType: PNGColorType
  /// The bit depth IHDR declares.
  public var bitDepth: Int
  /// Whether the file is Adam7-interlaced.
  public var interlaced: Bool
  /// The CgBI chunk's four data bytes when the file is iPhone-optimized.
  public var cgbiFlags: [UInt8]?
  /// The ancillary chunks libpng rejected and ignored while decoding, in file order (always
  /// empty for CgBI files, whose ancillary chunks libpng does not see).
  public var rejectedChunks: [PNGRejectedChunk] = []

  /// Whether the file is an iPhone-optimized (CgBI) PNG.
  public var isCgBI: Bool { cgbiFlags != nil }
  /// Whether the file is an animated PNG (has acTL).
  public var isAnimated: Bool { chunks.contains { $0.is("acTL") } }
}

/// An image ready for display: straight RGBA, 8 bits per sample.
public struct PNGPreviewImage: Sendable, Equatable {
  public var width: Int
  public var height: Int
  /// `width * height * 4` bytes, R, G, B, A per pixel.
  public var rgba: [UInt8]
}

/// Decodes PNG files with libpng into exact `PNGImage`s; also reads CgBI files.
public struct PNGDecoder: Sendable {
  /// The default limit on width × height: 64 megapixels.
  public static let defaultPixelLimit = 64 * 1024 * 1024
  /// The largest file read into memory: 1 GiB.
  public static let fileSizeLimit: Int64 = 1 << 30

  /// Images with more pixels than this are refused before any pixel memory is allocated.
  public var pixelLimit: Int

  public init(pixelLimit: Int = PNGDecoder.defaultPixelLimit) {
    self.pixelLimit = pixelLimit
  }

  /// Reads and decodes a file; errors name the path.
  public func decode(path: RawPath) throws -> PNGDecodedFile {
    let file = try RegularFile(path: path)
    let bytes = try file.readAll(limit: Self.fileSizeLimit)
    do {
      return try decode(bytes: bytes)
    } catch {
      throw error.at(path)
    }
  }

  /// Decodes a file for display: straight RGBA8 (16-bit rounded, CgBI un-premultiplied).
  public func preview(path: RawPath) throws -> PNGPreviewImage {
    let decoded = try decode(path: path)
    return PNGPreviewImage(
      width: decoded.image.width, height: decoded.image.height, rgba: decoded.image.rgba8())
  }

  /// Decodes a whole PNG (or CgBI) file held in memory.
  public func decode(bytes: [UInt8]) throws(PNGError) -> PNGDecodedFile {
    let chunks = try PNGChunkReader().chunks(of: bytes)
    let isCgBI = chunks[0].is("CgBI")
    let header = chunks[isCgBI ? 1 : 0]
    guard header.data.count == 13 else { throw PNGError(.corrupt("IHDR has the wrong length")) }
    let width = Int(header.data.bigEndianUInt32(at: 0))
    let height = Int(header.data.bigEndianUInt32(at: 4))
    let depth = Int(header.data[8])
    guard width > 0, height > 0, width <= 0x7FFF_FFFF, height <= 0x7FFF_FFFF else {
      throw PNGError(.corrupt("invalid image size \(width)x\(height)"))
    }
    guard let colorType = PNGColorType(rawValue: Int(header.data[9])),
      colorType.allows(depth: depth)
    else {
      throw PNGError(.corrupt("invalid colour type \(header.data[9]) with bit depth \(depth)"))
    }
    guard width * height <= pixelLimit else {
      throw PNGError(.tooLarge(width: width, height: height, limit: pixelLimit))
    }
    let interlaced = header.data[12] == 1
    var stream = bytes
    if isCgBI {
      guard depth == 8 else { throw PNGError(.unsupported("CgBI image with bit depth \(depth)")) }
      stream = try Self.standardStream(
        fromCgBI: chunks, width: width, height: height,
        bitsPerPixel: colorType.channels * depth, interlaced: interlaced)
    }
    let (decodedImage, warnings) = try decodeWithLibpng(stream)
    var image = decodedImage
    if isCgBI { image.isPremultipliedBGRA = true }
    return PNGDecodedFile(
      image: image, chunks: chunks, colorType: colorType, bitDepth: depth,
      interlaced: interlaced, cgbiFlags: isCgBI ? chunks[0].data : nil,
      rejectedChunks: isCgBI ? [] : PNGRejectedChunk.rejected(by: warnings, in: chunks))
  }

  /// The image, and libpng's warnings with the input offsets they were given at.
  private func decodeWithLibpng(
    _ bytes: [UInt8]
  ) throws(PNGError) -> (PNGImage, [(offset: Int, text: String)]) {
    var decoded = shelf_png_decoded()
    var message = [CChar](repeating: 0, count: 256)
    let status = bytes.withUnsafeBufferPointer { data in
      message.withUnsafeMutableBufferPointer { text in
        shelf_png_decode(
          data.baseAddress, data.count, UInt64(pixelLimit), 0x7FFF_FFFF, &decoded,
          text.baseAddress, text.count)
      }
    }
    let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    switch Int(status) {
    case Int(SHELF_PNG_OK):
      defer {
        shelf_png_free(decoded.pixels)
        shelf_png_free(decoded.warnings)
      }
      let pixels = Array(UnsafeBufferPointer(start: decoded.pixels, count: decoded.pixels_size))
      let warnings = UnsafeBufferPointer(start: decoded.warnings, count: decoded.warning_count).map {
        warning in
        var text = warning.text
        let message = withUnsafeBytes(of: &text) {
          String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
        }
        return (offset: Int(warning.offset), text: message)
      }
      let image = PNGImage(
        width: Int(decoded.width), height: Int(decoded.height),
        sampleDepth: Int(decoded.sample_depth), pixels: pixels)
      return (image, warnings)
    case Int(SHELF_PNG_TOO_LARGE):
      throw PNGError(
        .tooLarge(width: Int(decoded.width), height: Int(decoded.height), limit: pixelLimit))
    case Int(SHELF_PNG_TRUNCATED):
      throw PNGError(.truncated("image data ends early"))
    case Int(SHELF_PNG_IMAGE_DATA_SHORT):
      throw PNGError(.truncated("IDAT ends early"))
    case Int(SHELF_PNG_BAD_COMPRESSED_DATA):
      throw PNGError(.badImageData(text))
    case Int(SHELF_PNG_NO_MEMORY):
      throw PNGError(.outOfMemory)
    default:
      throw PNGError(.corrupt(text.isEmpty ? "libpng error \(status)" : text))
    }
  }

  /// The size of the filtered image data (filter bytes included), interlaced or not.
  static func filteredSize(width: Int, height: Int, bitsPerPixel: Int, interlaced: Bool) -> Int {
    func rows(_ w: Int, _ h: Int) -> Int {
      w == 0 || h == 0 ? 0 : h * (1 + (w * bitsPerPixel + 7) / 8)
    }
    guard interlaced else { return rows(width, height) }
    var total = 0
    for (x0, y0, dx, dy) in adam7Passes {
      total += rows((width - x0 + dx - 1) / dx, (height - y0 + dy - 1) / dy)
    }
    return total
  }

  static let adam7Passes = [
    (0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2),
  ]

  /// Rewrites a CgBI file as a standard PNG stream libpng can read: CgBI and iDOT dropped,
  /// the raw deflate IDAT stream given a zlib header and Adler-32.
  static func standardStream(
    fromCgBI chunks: [PNGChunk], width: Int, height: Int, bitsPerPixel: Int, interlaced: Bool
  ) throws(PNGError) -> [UInt8] {
    var compressed: [UInt8] = []
    for chunk in chunks where chunk.is("IDAT") { compressed.append(contentsOf: chunk.data) }
    let expected = filteredSize(
      width: width, height: height, bitsPerPixel: bitsPerPixel, interlaced: interlaced)
    let looksZlib =
      compressed.count >= 2 && compressed[0] & 0x0F == 8
      && (Int(compressed[0]) << 8 | Int(compressed[1])) % 31 == 0
    var inflated = Deflate.inflateRaw(compressed, expectedSize: expected, zlibWrapped: looksZlib)
    if inflated == nil {
      inflated = Deflate.inflateRaw(compressed, expectedSize: expected, zlibWrapped: !looksZlib)
    }
    guard let inflated else {
      throw PNGError(.corrupt("CgBI image data does not inflate to the declared size"))
    }
    var zlib: [UInt8] = [0x78, 0x01]
    zlib.reserveCapacity(inflated.count + 16)
    // Stored blocks: cheap, and libpng needs a valid zlib stream.
    var offset = 0
    repeat {
      let count = min(65535, inflated.count - offset)
      zlib.append(offset + count == inflated.count ? 1 : 0)
      zlib.append(UInt8(count & 0xFF))
      zlib.append(UInt8(count >> 8))
      zlib.append(UInt8(~count & 0xFF))
      zlib.append(UInt8((~count >> 8) & 0xFF))
      zlib.append(contentsOf: inflated[offset..<(offset + count)])
      offset += count
    } while offset < inflated.count
    zlib.appendBigEndian(Deflate.adler32(inflated))
    var out: [PNGChunk] = []
    for chunk in chunks {
      if chunk.is("CgBI") || chunk.is("iDOT") { continue }
      if chunk.is("IDAT") {
        if !out.contains(where: { $0.is("IDAT") }) { out.append(PNGChunk("IDAT", data: zlib)) }
        continue
      }
      if chunk.isCritical || chunk.is("tRNS") { out.append(chunk) }
    }
    return PNGChunkWriter().bytes(of: out)
  }
}

extension Error {
  /// A PNG error renamed to `path`; other errors as they are.
  func at(_ path: RawPath) -> Error {
    if let error = self as? PNGError { return error.at(path) }
    return self
  }
}
