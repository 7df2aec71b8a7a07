import ShelfCore

/// Finds the EXIF block and the XMP packet in each container that carries them (JPEG APP1
/// segments, PNG `eXIf` and text chunks, WebP `EXIF` and `XMP ` chunks, TIFF and DNG
/// directories, Photoshop image resources, JPEG 2000 `uuid` boxes, the HEIF `Exif` and XMP
/// items through libheif) and hands them to `EXIFReader`. Only container structure is walked
/// here, with a cap on every count and size, so a lying header costs a bounded number of small
/// reads.
public enum EXIFBlockLocator {
  /// The largest EXIF block read (a JPEG's is at most 64 KiB; other containers allow more).
  static let blockLimit = 4 << 20
  /// PNG and WebP files up to this size are read whole before their chunks are walked.
  static let wholeReadLimit: Int64 = 256 << 10

  /// What a container holds: its EXIF block (starting with `Exif\0\0`) and its XMP packet.
  struct Blocks {
    var exif: [UInt8]?
    var xmp: [UInt8]?
  }

  /// The EXIF facts of an image whose MIME type the sniffer found (XMP's where EXIF lacks
  /// them); nil when the format carries neither, the file has none, or they hold nothing shelf
  /// keeps. Damage in the container or the block is not an error: whatever could be read is
  /// returned.
  public static func facts(_ source: any ByteSource, mime: String) -> EXIFFacts? {
    let blocks: Blocks
    switch mime {
    case "image/jpeg": blocks = (try? jpegBlocks(source)) ?? Blocks()
    case "image/png": blocks = (try? pngBlocks(source)) ?? Blocks()
    case "image/webp": blocks = (try? webpBlocks(source)) ?? Blocks()
    case "image/tiff": return EXIFReader.facts(tiffFile: source)
    case "image/vnd.adobe.photoshop": blocks = (try? photoshopBlocks(source)) ?? Blocks()
    case "image/jp2", "image/jpx": blocks = (try? jpeg2000Blocks(source)) ?? Blocks()
    case "image/heic", "image/heif", "image/avif", "image/heic-sequence", "image/heif-sequence":
      blocks = heifBlocks(source, format: String(mime.dropFirst(6)))
    default: return nil
    }
    return EXIFReader.facts(block: blocks.exif, xmp: blocks.xmp.map(XMPPacket.init))
  }

  /// The signature of an XMP packet in a JPEG APP1 segment.
  static let jpegXMPSignature = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]

  /// A JPEG's `Exif` and XMP APP1 segments (the first of each): the marker segments before the
  /// scan, walked from the start.
  static func jpegBlocks(_ source: any ByteSource) throws -> Blocks {
    var blocks = Blocks()
    var offset: Int64 = 2
    for _ in 0..<1000 {
      let header = try source.read(count: 4, at: offset)
      guard header.count == 4, header[0] == 0xFF else { break }
      let marker = header[1]
      if marker == 0xFF {
        offset += 1
        continue
      }
      // The scan starts (or the image ends): no APP1 follows that a reader would honour.
      if marker == 0xDA || marker == 0xD9 { break }
      if marker == 0x01 || (0xD0...0xD7).contains(marker) {
        offset += 2
        continue
      }
      guard let length = header.be16(2), length >= 2 else { break }
      if marker == 0xE1 && length > 8 {
        let body = try source.read(count: length - 2, at: offset + 4)
        // A segment cut short by the end of the file holds no usable block.
        if body.count == length - 2 {
          if blocks.exif == nil, body.starts(with: EXIFReader.header) { blocks.exif = body }
          if blocks.xmp == nil, body.starts(with: jpegXMPSignature) {
            blocks.xmp = Array(body.dropFirst(jpegXMPSignature.count))
          }
        }
      }
      offset += 2 + Int64(length)
    }
    return blocks
  }

  /// The primary image's first `Exif` item and XMP item of a HEIF/HEIC/AVIF file, read through
  /// libheif's metadata API (`HEIFContainer`). The `Exif` item starts with the offset of the
  /// TIFF header from the end of that 4-byte field.
  static func heifBlocks(_ source: any ByteSource, format: String) -> Blocks {
    guard let container = try? HEIFContainer(source, format: format) else { return Blocks() }
    var blocks = Blocks()
    if let item = (try? container.metadataBlocks(type: "Exif"))?.first, let skip = item.be32(0),
      skip <= item.count - 4 - 8
    {
      blocks.exif = EXIFReader.header + item[(4 + skip)...]
    }
    blocks.xmp = (try? container.metadataBlocks(type: "mime", contentType: "application/rdf+xml"))?.first
    return blocks
  }

  /// A WebP's `EXIF` and `XMP ` chunks (RIFF: name before length, little-endian, padded to
  /// even). The `EXIF` chunk holds the TIFF structure; some writers put `Exif\0\0` in front.
  static func webpBlocks(_ source: any ByteSource) throws -> Blocks {
    var blocks = Blocks()
    try walkChunks(smallWhole(source), start: 12, littleEndian: true) { name, body in
      switch name {
      case "EXIF": if blocks.exif == nil { blocks.exif = exifBlock(tiff: try body()) }
      case "XMP ": if blocks.xmp == nil { blocks.xmp = try body() }
      default: break
      }
      return blocks.exif == nil || blocks.xmp == nil
    }
    return blocks
  }

  /// The TIFF structure of an EXIF chunk or box as a block that starts with `Exif\0\0` (some
  /// writers put it there already); nil when it was cut off.
  static func exifBlock(tiff body: [UInt8]?) -> [UInt8]? {
    guard let body else { return nil }
    return body.starts(with: EXIFReader.header) ? body : EXIFReader.header + body
  }

  /// The source itself, or all its bytes when the file is small: one read rather than one per
  /// chunk header.
  static func smallWhole(_ file: any ByteSource) throws -> any ByteSource {
    file.size <= wholeReadLimit ? MemoryBytes(try file.read(count: Int(file.size), at: 0)) : file
  }

  /// Walks the chunks of a PNG (length before name, big-endian, a 4-byte CRC after each) or a
  /// RIFF file (name before length, little-endian, padded to even) from `start`, at most
  /// 10,000 of them, until `IEND` or the end. `visit` gets each chunk's name and a reader of its
  /// body (nil when longer than `blockLimit` or cut off) and says whether to go on.
  static func walkChunks(
    _ source: any ByteSource, start: Int64, littleEndian: Bool,
    _ visit: (String, () throws -> [UInt8]?) throws -> Bool
  ) throws {
    var offset = start
    for _ in 0..<10_000 {
      let header = try source.read(count: 8, at: offset)
      guard header.count == 8, let length = littleEndian ? header.le32(4) : header.be32(0) else { return }
      let name = header.fourCC(littleEndian ? 0 : 4)
      let bodyAt = offset + 8
      let goOn = try visit(name) {
        guard length <= blockLimit else { return nil }
        let body = try source.read(count: length, at: bodyAt)
        return body.count == length ? body : nil
      }
      if !goOn || name == "IEND" { return }
      offset += 8 + Int64(length) + (littleEndian ? Int64(length & 1) : 4)
      if offset >= source.size { return }
    }
  }

  /// A Photoshop file's image resources 1058 (EXIF data 1: a TIFF structure) and 1060 (XMP),
  /// from the resource section after the header and the colour mode data.
  static func photoshopBlocks(_ source: any ByteSource) throws -> Blocks {
    let head = try source.read(count: 30, at: 0)
    guard head.count == 30, head.fourCC(0) == "8BPS", let modeLength = head.be32(26) else { return Blocks() }
    let sectionAt = 30 + Int64(modeLength)
    guard let sectionLength = try source.read(count: 4, at: sectionAt).be32(0) else { return Blocks() }
    let end = min(sectionAt + 4 + Int64(sectionLength), source.size)
    var offset = sectionAt + 4
    var blocks = Blocks()
    for _ in 0..<10_000 {
      guard offset + 12 <= end else { break }
      // Signature, ID, a Pascal name padded to even, the data's length, the data padded to even.
      let header = try source.read(count: 8, at: offset)
      guard header.count == 8, let id = header.be16(4), let nameLength = header.u8(6) else { break }
      let lengthAt = offset + 6 + Int64((1 + nameLength + 1) & ~1)
      guard let length = try source.read(count: 4, at: lengthAt).be32(0) else { break }
      let dataAt = lengthAt + 4
      guard dataAt + Int64(length) <= end else { break }
      if (id == 1058 || id == 1060), length <= blockLimit {
        let data = try source.read(count: length, at: dataAt)
        if id == 1058, blocks.exif == nil { blocks.exif = exifBlock(tiff: data) }
        if id == 1060, blocks.xmp == nil { blocks.xmp = data }
      }
      offset = dataAt + Int64(length) + Int64(length & 1)
    }
    return blocks
  }

  /// The `uuid` boxes of a JP2/JPX file that Adobe's and exiftool's writers use for EXIF
  /// (`JpgTiffExif->JP2`, the TIFF structure, sometimes after `Exif\0\0`) and XMP.
  static let jpeg2000EXIFUUID = Array("JpgTiffExif->JP2".utf8)
  static let jpeg2000XMPUUID: [UInt8] = [
    0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8, 0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF, 0xAC,
  ]

  /// A JP2/JPX file's EXIF and XMP `uuid` boxes among its top-level boxes (at most 1,000).
  static func jpeg2000Blocks(_ source: any ByteSource) throws -> Blocks {
    var blocks = Blocks()
    var offset: Int64 = 0
    for _ in 0..<1000 {
      guard offset + 8 <= source.size, let box = try ImageHeaderReader.jpeg2000Box(source, at: offset) else {
        break
      }
      let (length, headerLength) = (box.length, box.headerLength)
      let (end, overflow) = offset.addingReportingOverflow(length)
      guard length >= headerLength, !overflow, end <= source.size else { break }
      let bodyLength = length - headerLength
      if box.type == "uuid", bodyLength > 16, bodyLength <= Int64(blockLimit) {
        let body = try source.read(count: Int(bodyLength), at: offset + headerLength)
        let content = Array(body.dropFirst(16))
        if blocks.exif == nil, body.starts(with: jpeg2000EXIFUUID) { blocks.exif = exifBlock(tiff: content) }
        if blocks.xmp == nil, body.starts(with: jpeg2000XMPUUID) { blocks.xmp = content }
      }
      offset = end
    }
    return blocks
  }
}
