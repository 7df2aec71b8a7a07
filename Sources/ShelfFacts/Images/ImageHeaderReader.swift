import ShelfCore
import ShelfPNG

/// Reads image dimensions, frames and colour facts from headers only, never decoding pixels,
/// in bounded time and memory whatever the header claims. One file per format family under
/// `Images/`; HEIF, HEIC and AVIF go through libheif (`HEIFContainer`).
public enum ImageHeaderReader {
  /// Reads the facts of an image whose MIME type the sniffer found.
  public static func read(_ source: any ByteSource, mime: String) throws -> ImageFacts {
    switch mime {
    case "image/png": return try readPNG(source)
    case "image/jpeg": return try readJPEG(source)
    case "image/gif": return try readGIF(source)
    case "image/bmp": return try readBMP(source)
    case "image/tiff": return try readTIFF(source)
    case "image/webp": return try readWebP(source)
    case "image/heic", "image/heif", "image/avif", "image/heic-sequence", "image/heif-sequence":
      return try readHEIF(source, format: String(mime.dropFirst(6)))
    case "image/vnd.microsoft.icon": return try readICO(source, format: "ico")
    case "image/x-win-bitmap": return try readICO(source, format: "cur")
    case "image/x-icns": return try readICNS(source)
    case "image/vnd.adobe.photoshop": return try readPSD(source)
    case "image/x-tga": return try readTGA(source)
    case "image/x-qoi": return try readQOI(source)
    case "image/x-portable-bitmap", "image/x-portable-graymap", "image/x-portable-pixmap",
      "image/x-portable-arbitrarymap":
      return try readNetpbm(source)
    case "image/x-xpixmap": return try readXPM(source)
    case "image/jp2", "image/jpx", "image/x-jp2-codestream": return try readJPEG2000(source)
    case "image/svg+xml": return try readSVG(source)
    case "image/vnd.zbrush.pcx": return try readPCX(source)
    case "image/x-dcx": return try readDCX(source)
    case "image/x-sgi": return try readSGI(source)
    case "image/x-sun-raster": return try readSunRaster(source)
    case "image/x-xbitmap": return try readXBM(source)
    case "image/x-dds": return try readDDS(source)
    case "image/x-eps": return try readEPS(source)
    case "image/fits": return try readFITS(source)
    default: throw HeaderError("unsupported image format \(mime)")
    }
  }

  // MARK: PNG

  /// PNG (and CgBI): ShelfPNG's header reader, which walks the chunk headers without
  /// decoding. A small file is read whole in one call; a big one chunk header by chunk header.
  public static func readPNG(_ source: any ByteSource) throws -> ImageFacts {
    let info: PNGHeaderInfo
    do {
      if source.size <= 256 << 10 {
        info = try PNGHeaderInfo.read(bytes: try source.read(count: Int(source.size), at: 0))
      } else {
        info = try PNGHeaderInfo.read { count, offset in try source.read(count: count, at: offset) }
      }
    } catch let error as PNGError {
      throw HeaderError(error.message)
    }
    var chunks: [String] = []
    for name in info.chunkNames where chunks.last != name { chunks.append(name) }
    let names: [PNGColorType: ImageColorType] = [
      .gray: .gray, .rgb: .rgb, .palette: .palette, .grayAlpha: .grayAlpha, .rgba: .rgba,
    ]
    let facts = ImageFacts(
      format: "png", width: info.width, height: info.height, bitDepth: info.bitDepth,
      colorType: names[info.colorType], alpha: info.hasAlpha, interlaced: info.interlaced,
      cgbi: info.isCgBI, frames: info.animationFrameCount ?? 1, chunks: chunks)
    if chunks.last != "IEND" {
      throw PartialImage(facts: facts, reason: "truncated PNG: no IEND chunk")
    }
    return facts
  }

  /// A header that was read but is damaged further on: the facts are good, the file is not.
  public struct PartialImage: Error {
    public var facts: ImageFacts
    public var reason: String
  }
}

/// Reads a byte source front to back through a small window, for walks over chains of blocks
/// (GIF sub-blocks, junk between JPEG markers) that would cost a read call per byte otherwise.
struct ByteWindow {
  let source: any ByteSource
  private var start: Int64 = 0
  private var bytes: [UInt8] = []
  private static let span = 16 << 10

  init(_ source: any ByteSource) { self.source = source }

  /// The byte at `offset`, or nil past the end.
  mutating func byte(at offset: Int64) throws -> UInt8? {
    if offset < start || offset >= start + Int64(bytes.count) {
      guard offset >= 0, offset < source.size else { return nil }
      start = offset
      bytes = try source.read(count: ByteWindow.span, at: offset)
    }
    let index = Int(offset - start)
    return index < bytes.count ? bytes[index] : nil
  }

  /// Up to `count` bytes at `offset` (fewer at the end of the source).
  mutating func bytes(count: Int, at offset: Int64) throws -> [UInt8] {
    if offset >= start, offset + Int64(count) <= start + Int64(bytes.count) {
      let index = Int(offset - start)
      return Array(bytes[index..<index + count])
    }
    guard offset >= 0, offset < source.size else { return [] }
    start = offset
    bytes = try source.read(count: max(count, ByteWindow.span), at: offset)
    return Array(bytes.prefix(count))
  }
}
