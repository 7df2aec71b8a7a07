import ShelfCore

/// Finds the EXIF block in each container that carries one (JPEG APP1, PNG `eXIf`, WebP
/// `EXIF`, TIFF itself, the HEIF `Exif` item through libheif) and hands it to libexif. Only
/// container structure is walked here, with a cap on every count and size, so a lying header
/// costs a bounded number of small reads.
public enum EXIFBlockLocator {
  /// The largest EXIF block read (a JPEG's is at most 64 KiB; other containers allow more).
  static let blockLimit = 4 << 20
  /// TIFF files are their own EXIF block and are read whole up to this size; a larger one
  /// reports no EXIF facts (its directory often lies after the pixels).
  static let tiffLimit: Int64 = 64 << 20
  /// PNG and WebP files up to this size are read whole before their chunks are walked.
  static let wholeReadLimit: Int64 = 256 << 10

  /// The EXIF facts of an image whose MIME type the sniffer found; nil when the format
  /// carries no EXIF, the file has none, or the block holds nothing shelf keeps. Damage in the
  /// container or the block is not an error: whatever could be read is returned.
  public static func facts(_ source: any ByteSource, mime: String) -> EXIFFacts? {
    let block: [UInt8]?
    switch mime {
    case "image/jpeg": block = try? jpegBlock(source)
    case "image/png": block = try? chunkBlock(source, start: 8, chunk: "eXIf", littleEndian: false)
    case "image/webp": block = try? chunkBlock(source, start: 12, chunk: "EXIF", littleEndian: true)
    case "image/tiff":
      guard source.size <= tiffLimit, let bytes = try? source.read(count: Int(source.size), at: 0) else {
        return nil
      }
      block = EXIFReader.header + bytes
    case "image/heic", "image/heif", "image/avif", "image/heic-sequence", "image/heif-sequence":
      block = heifBlock(source, format: String(mime.dropFirst(6)))
    default: return nil
    }
    return block.flatMap { EXIFReader.facts(block: $0) }
  }

  /// A JPEG's `Exif` APP1 segment: the marker segments before the scan, walked from the start.
  static func jpegBlock(_ source: any ByteSource) throws -> [UInt8]? {
    var offset: Int64 = 2
    for _ in 0..<1000 {
      let header = try source.read(count: 4, at: offset)
      guard header.count == 4, header[0] == 0xFF else { return nil }
      let marker = header[1]
      if marker == 0xFF {
        offset += 1
        continue
      }
      // The scan starts (or the image ends): no APP1 follows that a reader would honour.
      if marker == 0xDA || marker == 0xD9 { return nil }
      if marker == 0x01 || (0xD0...0xD7).contains(marker) {
        offset += 2
        continue
      }
      guard let length = header.be16(2), length >= 2 else { return nil }
      if marker == 0xE1 && length > 8 {
        let body = try source.read(count: length - 2, at: offset + 4)
        // A segment cut short by the end of the file holds no usable block.
        if body.starts(with: EXIFReader.header) { return body.count == length - 2 ? body : nil }
      }
      offset += 2 + Int64(length)
    }
    return nil
  }

  /// The primary image's first `Exif` item of a HEIF/HEIC/AVIF file, read through libheif's
  /// metadata API (`HEIFContainer`). The item starts with the offset of the TIFF header from
  /// the end of that 4-byte field.
  static func heifBlock(_ source: any ByteSource, format: String) -> [UInt8]? {
    guard let container = try? HEIFContainer(source, format: format),
      let item = (try? container.metadataBlocks(type: "Exif"))?.first,
      let skip = item.be32(0), skip <= item.count - 4 - 8
    else { return nil }
    return EXIFReader.header + item[(4 + skip)...]
  }

  /// The chunk named `chunk` of a PNG (length before name, big-endian, a 4-byte CRC after each)
  /// or a WebP (RIFF: name before length, little-endian, padded to even), as an EXIF block. The chunk holds the TIFF
  /// structure; some writers put `Exif\0\0` in front, which is kept.
  static func chunkBlock(_ file: any ByteSource, start: Int64, chunk: String, littleEndian: Bool) throws
    -> [UInt8]?
  {
    // A small file is read in one call rather than one read per chunk header.
    let source: any ByteSource =
      file.size <= wholeReadLimit ? MemoryBytes(try file.read(count: Int(file.size), at: 0)) : file
    var offset = start
    for _ in 0..<10_000 {
      let header = try source.read(count: 8, at: offset)
      // PNG: length, then name; RIFF: name, then length.
      guard header.count == 8, let length = littleEndian ? header.le32(4) : header.be32(0) else { return nil }
      let name = header.fourCC(littleEndian ? 0 : 4)
      if name == chunk {
        guard length <= blockLimit else { return nil }
        let body = try source.read(count: length, at: offset + 8)
        guard body.count == length else { return nil }
        return body.starts(with: EXIFReader.header) ? body : EXIFReader.header + body
      }
      if name == "IEND" { return nil }
      offset += 8 + Int64(length) + (littleEndian ? Int64(length & 1) : 4)
      if offset >= source.size { return nil }
    }
    return nil
  }
}
