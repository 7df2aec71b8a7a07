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
  /// The default limit on the decoded image's size (RGBA, 8 or 16 bits per sample): 1 GiB.
  public static let defaultMaxDecodedBytes = 1 << 30
  /// The largest file read into memory: 1 GiB.
  public static let fileSizeLimit: Int64 = 1 << 30

  /// Images with more pixels than this are refused before any pixel memory is allocated.
  public var pixelLimit: Int
  /// Images whose decoded pixels (RGBA, 8 or 16 bits per sample) would take more bytes than
  /// this are refused before any pixel memory is allocated.
  public var maxDecodedBytes: Int

  public init(
    pixelLimit: Int = PNGDecoder.defaultPixelLimit,
    maxDecodedBytes: Int = PNGDecoder.defaultMaxDecodedBytes
  ) {
    self.pixelLimit = pixelLimit
    self.maxDecodedBytes = maxDecodedBytes
  }

  /// What IHDR (and a CgBI chunk) say, checked against the limits.
  struct Header {
    var width: Int
    var height: Int
    var bitDepth: Int
    var colorType: PNGColorType
    var interlaced: Bool
    var isCgBI: Bool
    /// 8 or 16: the depth of the decoded RGBA samples.
    var sampleDepth: Int { bitDepth == 16 ? 16 : 8 }
    /// Bytes of one decoded RGBA row.
    var rowBytes: Int { width * 4 * sampleDepth / 8 }
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

  /// Decodes a file for display, straight RGBA8 (16-bit rounded, CgBI un-premultiplied), shrunk
  /// while it is decoded to at most `maxWidth` × `maxHeight` pixels by an area average over
  /// whole source pixels (an integer factor, so the result may stay up to twice as big as the
  /// box: the caller's resize finishes the job). Rows are decoded one at a time, so that a big
  /// image is never held whole (an interlaced one is).
  public func preview(path: RawPath, maxWidth: Int = .max, maxHeight: Int = .max) throws
    -> PNGPreviewImage
  {
    let file = try RegularFile(path: path)
    let bytes = try file.readAll(limit: Self.fileSizeLimit)
    do {
      return try preview(bytes: bytes, maxWidth: maxWidth, maxHeight: maxHeight)
    } catch {
      throw error.at(path)
    }
  }

  /// `preview(path:)` of a file held in memory.
  public func preview(bytes: [UInt8], maxWidth: Int = .max, maxHeight: Int = .max) throws(PNGError)
    -> PNGPreviewImage
  {
    let chunks = try PNGChunkReader().chunks(of: bytes)
    let header = try self.header(chunks)
    let factor = max(
      1, (header.width - 1) / max(1, maxWidth) + 1, (header.height - 1) / max(1, maxHeight) + 1)
    let outWidth = (header.width + factor - 1) / factor
    let outHeight = (header.height + factor - 1) / factor
    var sums = [UInt32](repeating: 0, count: outWidth * 4)
    var out = [UInt8](repeating: 0, count: outWidth * outHeight * 4)
    var straight = [UInt8](repeating: 0, count: header.width * 4)
    let wide = header.sampleDepth == 16
    try decodeRows(bytes, chunks: chunks, header: header) { y, row in
      // Straight RGBA8 of this row, summed into its output row.
      straight.withUnsafeMutableBufferPointer { line in
        if wide {
          for i in 0..<line.count {
            line[i] = UInt8(((Int(row[2 * i]) << 8 | Int(row[2 * i + 1])) * 255 + 32895) >> 16)
          }
        } else {
          line.baseAddress!.update(from: row.baseAddress!, count: line.count)
        }
        if header.isCgBI { CgBI.unpremultiply(line) }
        sums.withUnsafeMutableBufferPointer { sums in
          for x in 0..<header.width {
            let target = (x / factor) * 4
            for k in 0..<4 { sums[target + k] &+= UInt32(line[4 * x + k]) }
          }
        }
      }
      let outY = y / factor
      if (y + 1) % factor == 0 || y == header.height - 1 {
        let rowsIn = y - outY * factor + 1
        for ox in 0..<outWidth {
          let columns = min(factor, header.width - ox * factor)
          let count = UInt32(rowsIn * columns)
          for k in 0..<4 {
            out[(outY * outWidth + ox) * 4 + k] = UInt8((sums[ox * 4 + k] + count / 2) / count)
          }
        }
        for i in sums.indices { sums[i] = 0 }
      }
      return true
    }
    return PNGPreviewImage(width: outWidth, height: outHeight, rgba: out)
  }

  /// Decodes a whole PNG (or CgBI) file held in memory.
  ///
  /// The pixel array has room for one more byte per row than the image needs, so that the
  /// optimizer can filter it in place.
  public func decode(bytes: [UInt8]) throws(PNGError) -> PNGDecodedFile {
    let chunks = try PNGChunkReader().chunks(of: bytes)
    let header = try self.header(chunks)
    let total = header.rowBytes * header.height
    var warnings: [(offset: Int, text: String)] = []
    var failure: PNGError?
    let pixels = [UInt8](unsafeUninitializedCapacity: total + header.height) { buffer, count in
      do {
        warnings = try runLibpng(
          bytes, chunks: chunks, header: header,
          destination: UnsafeMutableBufferPointer(rebasing: buffer[0..<total]), sink: nil)
        count = total
      } catch let error as PNGError {
        failure = error
        count = 0
      } catch {
        count = 0
      }
    }
    if let failure { throw failure }
    var image = PNGImage(
      width: header.width, height: header.height, sampleDepth: header.sampleDepth, pixels: pixels)
    if header.isCgBI { image.isPremultipliedBGRA = true }
    return PNGDecodedFile(
      image: image, chunks: chunks, colorType: header.colorType, bitDepth: header.bitDepth,
      interlaced: header.interlaced, cgbiFlags: header.isCgBI ? chunks[0].data : nil,
      rejectedChunks: header.isCgBI ? [] : PNGRejectedChunk.rejected(by: warnings, in: chunks))
  }

  /// Decodes a PNG (or CgBI) file row by row, handing each RGBA row (8 or 16 bits per sample;
  /// CgBI: premultiplied BGRA as stored) to `body`, which returns false to stop; only one row
  /// is held (a whole interlaced image is). Returns the image's size and sample depth.
  @discardableResult
  func decodeRows(
    bytes: [UInt8], _ body: (Int, UnsafeBufferPointer<UInt8>) -> Bool
  ) throws(PNGError) -> (width: Int, height: Int, sampleDepth: Int) {
    let chunks = try PNGChunkReader().chunks(of: bytes)
    let header = try self.header(chunks)
    try decodeRows(bytes, chunks: chunks, header: header, body)
    return (header.width, header.height, header.sampleDepth)
  }

  private func decodeRows(
    _ bytes: [UInt8], chunks: [PNGChunk], header: Header,
    _ body: (Int, UnsafeBufferPointer<UInt8>) -> Bool
  ) throws(PNGError) {
    try withoutActuallyEscaping(body) { (escaping) throws(PNGError) in
      let sink = RowSink(body: escaping, rowBytes: header.rowBytes)
      _ = try runLibpng(bytes, chunks: chunks, header: header, destination: nil, sink: sink)
    }
  }

  /// IHDR read and checked: valid size, colour type and depth, within both limits.
  func header(_ chunks: [PNGChunk]) throws(PNGError) -> Header {
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
    if isCgBI && depth != 8 { throw PNGError(.unsupported("CgBI image with bit depth \(depth)")) }
    let result = Header(
      width: width, height: height, bitDepth: depth, colorType: colorType,
      interlaced: header.data[12] == 1, isCgBI: isCgBI)
    // Both below 2^31: the product cannot overflow.
    let decodedBytes = result.rowBytes * height
    guard width * height <= pixelLimit else {
      throw PNGError(.tooLarge(width: width, height: height, limit: pixelLimit))
    }
    guard decodedBytes <= maxDecodedBytes else {
      throw PNGError(.decodedSizeExceeds(bytes: decodedBytes, limit: maxDecodedBytes))
    }
    return result
  }

  /// libpng over the file (a CgBI file through a standard stream made of its chunks), into
  /// `destination` or row by row into `sink`; returns libpng's warnings with their offsets.
  private func runLibpng(
    _ bytes: [UInt8], chunks: [PNGChunk], header: Header,
    destination: UnsafeMutableBufferPointer<UInt8>?, sink: RowSink?
  ) throws(PNGError) -> [(offset: Int, text: String)] {
    guard header.isCgBI else {
      return try runLibpng(bytes, ignoreAdler32: false, destination: destination, sink: sink)
    }
    // Most CgBI files hold raw deflate; a few old ones a zlib stream: sniff, and try the other
    // way when the first fails on the data.
    let looksZlib = Self.looksZlib(chunks)
    do {
      return try runLibpng(
        Self.standardStream(fromCgBI: chunks, zlibWrapped: looksZlib), ignoreAdler32: true,
        destination: destination, sink: sink)
    } catch {
      switch error.reason {
      case .badImageData, .truncated: break
      default: throw error
      }
      do {
        return try runLibpng(
          Self.standardStream(fromCgBI: chunks, zlibWrapped: !looksZlib), ignoreAdler32: true,
          destination: destination, sink: sink)
      } catch {
        throw PNGError(.corrupt("CgBI image data does not inflate to the declared size"))
      }
    }
  }

  private func runLibpng(
    _ bytes: [UInt8], ignoreAdler32: Bool, destination: UnsafeMutableBufferPointer<UInt8>?,
    sink: RowSink?
  ) throws(PNGError) -> [(offset: Int, text: String)] {
    var decoded = shelf_png_decoded()
    var message = [CChar](repeating: 0, count: 256)
    let context = sink.map { Unmanaged.passUnretained($0).toOpaque() }
    let status = withExtendedLifetime(sink) {
      bytes.withUnsafeBufferPointer { data in
        message.withUnsafeMutableBufferPointer { text in
          shelf_png_decode_rows(
            data.baseAddress, data.count, UInt64(pixelLimit), 0x7FFF_FFFF, ignoreAdler32 ? 1 : 0,
            destination?.baseAddress, destination?.count ?? 0,
            { context, y, row in
              let sink = Unmanaged<RowSink>.fromOpaque(context!).takeUnretainedValue()
              return sink.body(Int(y), UnsafeBufferPointer(start: row, count: sink.rowBytes)) ? 0 : 1
            }, context, &decoded, text.baseAddress, text.count)
        }
      }
    }
    let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    switch Int(status) {
    case Int(SHELF_PNG_OK), Int(SHELF_PNG_STOPPED):
      defer { shelf_png_free(decoded.warnings) }
      return UnsafeBufferPointer(start: decoded.warnings, count: decoded.warning_count).map {
        warning in
        var text = warning.text
        let message = withUnsafeBytes(of: &text) {
          String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
        }
        return (offset: Int(warning.offset), text: message)
      }
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

  /// Whether a CgBI file's image data starts with a zlib header (some old files have one).
  static func looksZlib(_ chunks: [PNGChunk]) -> Bool {
    guard let first = chunks.first(where: { $0.is("IDAT") && $0.data.count >= 2 }) else {
      return false
    }
    return first.data[0] & 0x0F == 8 && (Int(first.data[0]) << 8 | Int(first.data[1])) % 31 == 0
  }

  /// Rewrites a CgBI file as a standard PNG stream libpng can read, without inflating it: CgBI,
  /// iDOT and the ancillary chunks dropped, the raw deflate IDAT stream given a zlib header
  /// (and a placeholder Adler-32, which the caller tells libpng to ignore).
  static func standardStream(fromCgBI chunks: [PNGChunk], zlibWrapped: Bool) -> [UInt8] {
    var data: [UInt8] = zlibWrapped ? [] : [0x78, 0x01]
    data.reserveCapacity(chunks.reduce(8) { $0 + ($1.is("IDAT") ? $1.data.count : 0) })
    for chunk in chunks where chunk.is("IDAT") { data.append(contentsOf: chunk.data) }
    if !zlibWrapped { data += [0, 0, 0, 0] }
    var out: [PNGChunk] = []
    for chunk in chunks {
      if chunk.is("CgBI") || chunk.is("iDOT") { continue }
      if chunk.is("IDAT") {
        if !out.contains(where: { $0.is("IDAT") }) { out.append(PNGChunk("IDAT", data: data)) }
        continue
      }
      if chunk.isCritical || chunk.is("tRNS") { out.append(chunk) }
    }
    return PNGChunkWriter().bytes(of: out)
  }
}

/// The closure a row-by-row decode hands rows to, reachable from C through a context pointer.
private final class RowSink {
  let body: (Int, UnsafeBufferPointer<UInt8>) -> Bool
  let rowBytes: Int

  init(body: @escaping (Int, UnsafeBufferPointer<UInt8>) -> Bool, rowBytes: Int) {
    self.body = body
    self.rowBytes = rowBytes
  }
}

extension Error {
  /// A PNG error renamed to `path`; other errors as they are.
  func at(_ path: RawPath) -> Error {
    if let error = self as? PNGError { return error.at(path) }
    return self
  }
}
