import ShelfCore
import ShelfPNG

/// Reads image dimensions and colour facts from headers only, never decoding pixels, in bounded
/// time and memory whatever the header claims.
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
    let names: [PNGColorType: String] = [
      .gray: "gray", .rgb: "rgb", .palette: "palette", .grayAlpha: "gray-alpha", .rgba: "rgba",
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

  // MARK: JPEG

  /// JPEG: walks the marker segments to the first start-of-frame.
  public static func readJPEG(_ source: any ByteSource) throws -> ImageFacts {
    var offset: Int64 = 2
    var segments = 0
    while offset < source.size {
      segments += 1
      if segments > 10_000 { throw HeaderError("JPEG has too many segments before the frame header") }
      let header = try source.read(count: 4, at: offset)
      guard header.count >= 2, header[0] == 0xFF else {
        throw HeaderError("corrupt JPEG: no marker at byte \(offset)")
      }
      var marker = header[1]
      if marker == 0xFF {  // fill byte
        offset += 1
        continue
      }
      if marker == 0x01 || (0xD0...0xD7).contains(marker) {
        offset += 2
        continue
      }
      if marker == 0xD9 || marker == 0xDA { break }
      guard let length = header.be16(2), length >= 2 else {
        throw HeaderError("truncated JPEG: segment header cut off")
      }
      let isFrame = (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
      if isFrame {
        let frame = try source.read(count: 8, at: offset + 4)
        guard frame.count >= 6, let height = frame.be16(1), let width = frame.be16(3) else {
          throw HeaderError("truncated JPEG: frame header cut off")
        }
        let components = frame[5]
        let colour = components == 1 ? "gray" : components == 4 ? "cmyk" : "ycbcr"
        marker &= 0x0F
        return ImageFacts(
          format: "jpeg", width: width, height: height, bitDepth: Int(frame[0]), colorType: colour,
          alpha: false, interlaced: marker == 2 || marker == 6 || marker == 10 || marker == 14,
          cgbi: nil, frames: 1)
      }
      offset += 2 + Int64(length)
    }
    throw HeaderError("corrupt JPEG: no frame header")
  }

  // MARK: GIF

  /// GIF: the logical screen, plus a walk over the blocks for frames and transparency (files
  /// up to 16 MiB; larger ones report the size only).
  public static func readGIF(_ source: any ByteSource) throws -> ImageFacts {
    let head = try source.read(count: 13, at: 0)
    guard head.count == 13, let width = head.le16(6), let height = head.le16(8) else {
      throw HeaderError("truncated GIF: header cut off")
    }
    let packed = Int(head[10])
    var facts = ImageFacts(
      format: "gif", width: width, height: height, bitDepth: (packed & 7) + 1, colorType: "palette",
      alpha: false, interlaced: false, cgbi: nil, frames: nil)
    guard source.size <= 16 << 20 else { return facts }
    let bytes = try source.read(count: Int(source.size), at: 0)
    var offset = 13
    if packed & 0x80 != 0 { offset += 3 << ((packed & 7) + 1) }
    var frames = 0
    func skipSubBlocks() throws {
      while true {
        guard let length = bytes.u8(offset) else { throw HeaderError("truncated GIF: data cut off") }
        offset += 1 + length
        if length == 0 { return }
      }
    }
    loop: while offset < bytes.count {
      switch bytes[offset] {
      case 0x21:
        if bytes.u8(offset + 1) == 0xF9, let flags = bytes.u8(offset + 3), flags & 1 != 0 {
          facts.alpha = true
        }
        offset += 2
        try skipSubBlocks()
      case 0x2C:
        guard let flags = bytes.u8(offset + 9) else {
          throw HeaderError("truncated GIF: image descriptor cut off")
        }
        if frames == 0 { facts.interlaced = flags & 0x40 != 0 }
        frames += 1
        offset += 10
        if flags & 0x80 != 0 { offset += 3 << ((flags & 7) + 1) }
        offset += 1  // LZW minimum code size
        try skipSubBlocks()
      case 0x3B: break loop
      default:
        break loop  // junk after the last frame: keep what was found
      }
    }
    facts.frames = max(frames, 1)
    return facts
  }

  // MARK: BMP

  /// BMP: the DIB header (core or info form); a negative height means top-down rows.
  public static func readBMP(_ source: any ByteSource) throws -> ImageFacts {
    let head = try source.read(count: 70, at: 0)
    guard let dib = head.le32(14) else { throw HeaderError("truncated BMP: header cut off") }
    let width: Int
    let height: Int
    let bpp: Int
    var alpha = false
    if dib == 12 {
      guard let w = head.le16(18), let h = head.le16(20), let b = head.le16(24) else {
        throw HeaderError("truncated BMP: header cut off")
      }
      (width, height, bpp) = (w, h, b)
    } else {
      guard let w = head.le32(18), let h = head.le32(22), let b = head.le16(28) else {
        throw HeaderError("truncated BMP: header cut off")
      }
      width = Int(Int32(truncatingIfNeeded: w))
      height = abs(Int(Int32(truncatingIfNeeded: h)))
      bpp = b
      if bpp == 32, dib >= 56, let mask = head.le32(54), mask != 0 { alpha = true }
    }
    guard width > 0, height > 0 else { throw HeaderError("corrupt BMP: bad dimensions") }
    return ImageFacts(
      format: "bmp", width: width, height: height, bitDepth: bpp <= 8 ? bpp : 8,
      colorType: bpp <= 8 ? "palette" : alpha ? "rgba" : "rgb", alpha: alpha, interlaced: false,
      cgbi: nil, frames: 1)
  }

  // MARK: TIFF

  /// TIFF and BigTIFF: the first IFD's width, height, bits per sample and photometric tags.
  public static func readTIFF(_ source: any ByteSource) throws -> ImageFacts {
    let head = try source.read(count: 16, at: 0)
    guard head.count >= 8 else { throw HeaderError("truncated TIFF: header cut off") }
    let little = head[0] == 0x49
    func u16(_ b: [UInt8], _ o: Int) -> Int? { little ? b.le16(o) : b.be16(o) }
    func u32(_ b: [UInt8], _ o: Int) -> Int? { little ? b.le32(o) : b.be32(o) }
    func u64(_ b: [UInt8], _ o: Int) -> UInt64? { little ? b.le64(o) : b.be64(o) }
    let big = u16(head, 2) == 43
    let ifdOffset: Int64
    if big {
      guard let value = u64(head, 8), value < UInt64(source.size) else {
        throw HeaderError("corrupt TIFF: IFD offset past the end")
      }
      ifdOffset = Int64(value)
    } else {
      guard let value = u32(head, 4), value < source.size, value >= 8 else {
        throw HeaderError("corrupt TIFF: IFD offset past the end")
      }
      ifdOffset = Int64(value)
    }
    let countBytes = try source.read(count: big ? 8 : 2, at: ifdOffset)
    guard let entryCount = big ? u64(countBytes, 0).map({ Int(min($0, 100_000)) }) : u16(countBytes, 0) else {
      throw HeaderError("truncated TIFF: IFD cut off")
    }
    let entrySize = big ? 20 : 12
    let entries = min(entryCount, 4096)
    let table = try source.read(count: entries * entrySize, at: ifdOffset + (big ? 8 : 2))
    var width: Int?
    var height: Int?
    var bits: Int?
    var photometric: Int?
    var samples = 1
    var extraSamples = false
    for index in 0..<entries {
      let base = index * entrySize
      guard let tag = u16(table, base), let type = u16(table, base + 2) else { break }
      let valueOffset = base + (big ? 12 : 8)
      let value: Int? =
        type == 3
        ? u16(table, valueOffset)
        : type == 4
          ? u32(table, valueOffset)
          : type == 16 ? u64(table, valueOffset).map { Int(truncatingIfNeeded: $0) } : nil
      switch tag {
      case 256: width = value
      case 257: height = value
      case 258:
        let count = big ? u64(table, base + 4).map { Int(truncatingIfNeeded: $0) } : u32(table, base + 4)
        if count == 1 || (count == 2 && !big) || (big && (count ?? 0) <= 4) {
          bits = value
        } else if let pointer = big
          ? u64(table, valueOffset).map({ Int64(truncatingIfNeeded: $0) })
          : u32(table, valueOffset).map({ Int64($0) })
        {
          bits = u16(try source.read(count: 2, at: pointer), 0)
        }
      case 262: photometric = value
      case 277: samples = value ?? 1
      case 338: extraSamples = true
      default: break
      }
    }
    guard let width, let height, width > 0, height > 0 else {
      throw HeaderError("corrupt TIFF: no image width or height")
    }
    let colour: String
    switch photometric {
    case 0, 1: colour = extraSamples ? "gray-alpha" : "gray"
    case 2: colour = extraSamples || samples >= 4 ? "rgba" : "rgb"
    case 3: colour = "palette"
    case 5: colour = "cmyk"
    case 6: colour = "ycbcr"
    default: colour = "other"
    }
    return ImageFacts(
      format: "tiff", width: width, height: height, bitDepth: bits, colorType: colour,
      alpha: extraSamples || (photometric == 2 && samples >= 4), interlaced: false, cgbi: nil, frames: 1)
  }

  // MARK: WebP

  /// WebP: the VP8, VP8L or VP8X header, and the ANMF frames of an animation.
  public static func readWebP(_ source: any ByteSource) throws -> ImageFacts {
    let head = try source.read(count: 40, at: 0)
    guard head.count >= 30 else { throw HeaderError("truncated WebP: header cut off") }
    switch head.fourCC(12) {
    case "VP8 ":
      guard head[23] == 0x9D, head[24] == 0x01, head[25] == 0x2A, let w = head.le16(26), let h = head.le16(28)
      else { throw HeaderError("corrupt WebP: bad VP8 frame header") }
      return ImageFacts(
        format: "webp", width: w & 0x3FFF, height: h & 0x3FFF, bitDepth: 8, colorType: "rgb",
        alpha: false, interlaced: false, cgbi: nil, frames: 1)
    case "VP8L":
      guard head[20] == 0x2F, let bits = head.le32(21) else {
        throw HeaderError("corrupt WebP: bad VP8L header")
      }
      let alpha = (bits >> 28) & 1 == 1
      return ImageFacts(
        format: "webp", width: (bits & 0x3FFF) + 1, height: ((bits >> 14) & 0x3FFF) + 1, bitDepth: 8,
        colorType: alpha ? "rgba" : "rgb", alpha: alpha, interlaced: false, cgbi: nil, frames: 1)
    case "VP8X":
      let flags = head[20]
      let width = (Int(head[24]) | Int(head[25]) << 8 | Int(head[26]) << 16) + 1
      let height = (Int(head[27]) | Int(head[28]) << 8 | Int(head[29]) << 16) + 1
      let alpha = flags & 0x10 != 0
      var frames = 1
      if flags & 0x02 != 0 {
        // Count the ANMF chunks, reading chunk headers only.
        frames = 0
        var offset: Int64 = 30
        var steps = 0
        while offset + 8 <= source.size && steps < 100_000 {
          steps += 1
          let chunk = try source.read(count: 8, at: offset)
          guard let length = chunk.le32(4) else { break }
          if chunk.fourCC(0) == "ANMF" { frames += 1 }
          offset += 8 + Int64(length) + Int64(length & 1)
        }
      }
      return ImageFacts(
        format: "webp", width: width, height: height, bitDepth: 8, colorType: alpha ? "rgba" : "rgb",
        alpha: alpha, interlaced: false, cgbi: nil, frames: frames)
    default:
      throw HeaderError("corrupt WebP: unknown chunk \(head.fourCC(12))")
    }
  }

  // MARK: HEIF

  /// HEIF/HEIC/AVIF: the largest `ispe` (image spatial extents) property inside `meta`.
  public static func readHEIF(_ source: any ByteSource, format: String) throws -> ImageFacts {
    var offset: Int64 = 0
    var steps = 0
    while offset + 8 <= source.size && steps < 1000 {
      steps += 1
      let header = try source.read(count: 16, at: offset)
      guard var size = header.be32(0).map(Int64.init) else { break }
      var headerLength: Int64 = 8
      if size == 1 {
        guard let large = header.be64(8) else { break }
        size = Int64(truncatingIfNeeded: large)
        headerLength = 16
      } else if size == 0 {
        size = source.size - offset
      }
      guard size >= headerLength else { throw HeaderError("corrupt \(format.uppercased()): bad box size") }
      if header.fourCC(4) == "meta" {
        let length = Int(min(size - headerLength, 4 << 20))
        let meta = try source.read(count: length, at: offset + headerLength)
        var best: (Int, Int)?
        var depth: Int?
        var alpha = false
        scanBoxes(meta, from: 4, to: meta.count, level: 0) { type, body in
          switch type {
          case "ispe":
            if let w = meta.be32(body + 4), let h = meta.be32(body + 8),
              w * h > (best.map { $0.0 * $0.1 } ?? -1)
            {
              best = (w, h)
            }
          case "pixi":
            if depth == nil, let d = meta.u8(body + 5) { depth = d }
          case "auxC":
            let text = String(
              decoding: meta[min(body + 4, meta.count)..<min(body + 80, meta.count)], as: UTF8.self)
            if text.contains("alpha") || text.contains("auxid:1") { alpha = true }
          default: break
          }
        }
        guard let (width, height) = best else {
          throw HeaderError("corrupt \(format.uppercased()): no image size (ispe) property")
        }
        return ImageFacts(
          format: format, width: width, height: height, bitDepth: depth, colorType: alpha ? "rgba" : "rgb",
          alpha: alpha, interlaced: false, cgbi: nil, frames: nil)
      }
      offset += size
    }
    throw HeaderError("corrupt \(format.uppercased()): no meta box")
  }

  /// Visits the boxes of an ISO-BMFF byte range, descending into the containers of `meta`.
  private static func scanBoxes(
    _ bytes: [UInt8], from start: Int, to end: Int, level: Int, _ visit: (String, Int) -> Void
  ) {
    guard level < 8 else { return }
    var offset = start
    while offset + 8 <= end {
      guard let size = bytes.be32(offset), size >= 8, offset + size <= end else { return }
      let type = bytes.fourCC(offset + 4)
      visit(type, offset + 8)
      switch type {
      case "iprp", "ipco": scanBoxes(bytes, from: offset + 8, to: offset + size, level: level + 1, visit)
      default: break
      }
      offset += size
    }
  }
}
