internal import CExif

/// Reads the facts shelf keeps from an EXIF block through libexif, which bounds-checks every
/// offset, stops at IFD loops and caps its recursion: a hostile block yields fewer facts,
/// never a hang or a read outside the block.
package enum EXIFReader {
  /// The header libexif expects in front of the TIFF structure (as in a JPEG's APP1).
  package static let header: [UInt8] = Array("Exif".utf8) + [0, 0]

  /// The IFD0 tags the facts come from: make, model, orientation, software.
  static let primaryTags: Set<UInt16> = [0x010F, 0x0110, 0x0112, 0x0131]
  /// The Exif IFD tags: DateTimeOriginal, CreateDate (DateTimeDigitized) and their offsets,
  /// LensModel, MakerNote.
  static let exifTags: Set<UInt16> = [0x9003, 0x9004, 0x9011, 0x9012, 0xA434, 0x927C]
  /// The GPS IFD tags: latitude, longitude, altitude and their references.
  static let gpsTags: Set<UInt16> = [1, 2, 3, 4, 5, 6]
  /// The longest block libexif reads whole, `Exif\0\0` included; it ignores what lies beyond.
  static let libexifLimit = 0xFFFE

  /// The facts of an EXIF block that starts with `Exif\0\0` and the TIFF header, completed
  /// from the XMP packet where the block lacks a tag; nil when neither holds anything shelf
  /// keeps. A block longer than libexif reads, or a BigTIFF one, is compacted first.
  package static func facts(block: [UInt8]?, xmp: XMPPacket? = nil) -> EXIFFacts? {
    var tiff: [UInt8]? = nil
    if let block, block.count > header.count + 8 {
      tiff = Array(block.dropFirst(header.count))
    }
    if let structure = tiff,
      structure.count > libexifLimit - header.count || structure.u8(2) == 43 || structure.u8(3) == 43
    {
      tiff = TIFFEXIFStructure(MemoryBytes(structure))?.compactBlock()
    }
    return facts(tiff: tiff, xmp: xmp)
  }

  /// The facts of a TIFF file (or DNG): its IFDs read by offset wherever they lie, and its XMP
  /// packet (tag 700) for what the EXIF lacks.
  package static func facts(tiffFile source: any ByteSource) -> EXIFFacts? {
    guard let structure = TIFFEXIFStructure(source) else { return nil }
    let xmp = structure.bytes(tag: 700, limit: XMPPacket.sizeLimit).map(XMPPacket.init)
    return facts(tiff: structure.compactBlock(), xmp: xmp)
  }

  /// The facts of a TIFF structure no longer than libexif reads (no `Exif\0\0` header), with
  /// the XMP fallbacks: `taken` is the first of DateTimeOriginal (EXIF, then XMP), XMP's
  /// photoshop:DateCreated, CreateDate (EXIF, then XMP), as exiftool's MWG composite tags
  /// order them; the other facts come from XMP only when EXIF lacks them.
  private static func facts(tiff: [UInt8]?, xmp: XMPPacket?) -> EXIFFacts? {
    var facts = EXIFFacts()
    var make: String?
    var model: String?
    var created: String?
    if let tiff, tiff.count > 8, let data = exif_data_new() {
      defer { exif_data_unref(data) }
      // Without FOLLOW_SPECIFICATION libexif reports what the file holds, rather than adding the
      // mandatory tags it lacks with made-up defaults (such as today's date).
      exif_data_unset_option(data, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
      let block = header + tiff
      block.withUnsafeBufferPointer { exif_data_load_data(data, $0.baseAddress, UInt32($0.count)) }
      let order = exif_data_get_byte_order(data)
      let ifds = data.pointee.ifd
      let primary = EXIFDirectory(content: ifds.0, order: order)
      let exif = EXIFDirectory(content: ifds.2, order: order)
      let gps = EXIFDirectory(content: ifds.3, order: order)
      facts.taken = EXIFFacts.isoDate(exif.text(0x9003), offset: exif.text(0x9011))
      created = EXIFFacts.isoDate(exif.text(0x9004), offset: exif.text(0x9012))
      make = primary.text(0x010F)
      model = primary.text(0x0110)
      facts.lens = exif.text(0xA434)
      facts.orientation = primary.integer(0x0112).flatMap { (1...8).contains($0) ? $0 : nil }
      facts.software = primary.text(0x0131)
      facts.gps = position(gps)
      if let note = exif.bytes(0x927C) { facts.contentIdentifier = appleContentIdentifier(makerNote: note) }
    }
    if let xmp {
      facts.taken =
        facts.taken ?? EXIFFacts.isoDate(xmp: xmp.dateTimeOriginal) ?? EXIFFacts.isoDate(xmp: xmp.dateCreated)
      make = make ?? xmp.make
      model = model ?? xmp.model
      facts.lens = facts.lens ?? xmp.lensModel
      facts.orientation = facts.orientation ?? xmp.orientation.flatMap { (1...8).contains($0) ? $0 : nil }
      facts.software = facts.software ?? xmp.software
    }
    facts.taken = facts.taken ?? created ?? EXIFFacts.isoDate(xmp: xmp?.createDate)
    facts.camera = EXIFFacts.cameraName(make: make, model: model)
    return facts.isEmpty ? nil : facts
  }

  /// Latitude and longitude (both needed) and altitude, signed by their reference tags.
  static func position(_ gps: EXIFDirectory) -> GPSPosition? {
    func degrees(_ tag: UInt16) -> Double? {
      guard let parts = gps.rationals(tag), !parts.isEmpty, parts.count <= 3 else { return nil }
      var value = 0.0
      for (index, part) in parts.enumerated() {
        guard let part else { return nil }
        value += part / [1.0, 60.0, 3600.0][index]
      }
      return value
    }
    guard var latitude = degrees(0x0002), var longitude = degrees(0x0004) else { return nil }
    if gps.text(0x0001)?.uppercased() == "S" { latitude = -latitude }
    if gps.text(0x0003)?.uppercased() == "W" { longitude = -longitude }
    var altitude = gps.rationals(0x0006)?.first ?? nil
    if let metres = altitude, gps.integer(0x0005) == 1 { altitude = -metres }
    return GPSPosition(latitude: latitude, longitude: longitude, altitude: altitude)
  }

  /// Apple's content identifier: tag 17 of the `Apple iOS` MakerNote. libexif 0.6.24 reads
  /// this note but places every value longer than four bytes six bytes early, so the note's
  /// IFD is handed to libexif again as a TIFF structure of its own: the note's offsets count
  /// from its first byte, which becomes the TIFF header (its byte order at bytes 12–13).
  static func appleContentIdentifier(makerNote: [UInt8]) -> String? {
    let signature = Array("Apple iOS".utf8) + [0]
    guard makerNote.count > 16, makerNote.starts(with: signature) else { return nil }
    let orderMark = makerNote[12]
    guard orderMark == makerNote[13], orderMark == UInt8(ascii: "M") || orderMark == UInt8(ascii: "I") else {
      return nil
    }
    let tiffHeader: [UInt8] =
      orderMark == UInt8(ascii: "M")
      ? [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 14] : [0x49, 0x49, 0x2A, 0, 14, 0, 0, 0]
    // The header replaces the note's first eight bytes; its IFD stays at byte 14.
    let block = header + tiffHeader + makerNote[8...]
    guard let data = exif_data_new() else { return nil }
    defer { exif_data_unref(data) }
    exif_data_unset_option(data, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
    // Tag 17 means nothing in a TIFF's first IFD: keep tags libexif does not know.
    exif_data_unset_option(data, EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS)
    block.withUnsafeBufferPointer { exif_data_load_data(data, $0.baseAddress, UInt32($0.count)) }
    return EXIFDirectory(content: data.pointee.ifd.0, order: exif_data_get_byte_order(data)).text(0x0011)
  }
}

/// One IFD that libexif loaded, read by tag number.
struct EXIFDirectory {
  let content: UnsafeMutablePointer<ExifContent>?
  let order: ExifByteOrder

  /// The entry for `tag`, with its data present and as long as its format and count say.
  private func entry(_ tag: UInt16) -> (format: ExifFormat, count: Int, data: UnsafeMutablePointer<UInt8>)? {
    guard let content, let entry = exif_content_get_entry(content, ExifTag(rawValue: UInt32(tag))),
      let data = entry.pointee.data
    else { return nil }
    let format = entry.pointee.format
    let count = Int(entry.pointee.components)
    let unit = Int(exif_format_get_size(format))
    guard unit > 0, count > 0, count <= Int(entry.pointee.size) / unit else { return nil }
    return (format, count, data)
  }

  /// A string tag: up to its first NUL, UTF-8 (invalid bytes replaced), spaces trimmed; nil
  /// when blank.
  func text(_ tag: UInt16) -> String? {
    guard let (format, count, data) = entry(tag),
      format == EXIF_FORMAT_ASCII || format == EXIF_FORMAT_UNDEFINED || format == EXIF_FORMAT_BYTE
    else { return nil }
    let bytes = UnsafeBufferPointer(start: data, count: count)
    let end = bytes.firstIndex(of: 0) ?? count
    var text = Substring(String(decoding: bytes[0..<end], as: UTF8.self))
    while let first = text.first, first.isWhitespace { text = text.dropFirst() }
    while let last = text.last, last.isWhitespace { text = text.dropLast() }
    return text.isEmpty ? nil : String(text)
  }

  /// The first value of an integer tag (BYTE, SHORT or LONG).
  func integer(_ tag: UInt16) -> Int? {
    guard let (format, _, data) = entry(tag) else { return nil }
    switch format {
    case EXIF_FORMAT_BYTE, EXIF_FORMAT_UNDEFINED: return Int(data.pointee)
    case EXIF_FORMAT_SHORT: return Int(exif_get_short(data, order))
    case EXIF_FORMAT_LONG: return Int(exif_get_long(data, order))
    default: return nil
    }
  }

  /// The values of a RATIONAL (or SRATIONAL) tag; nil elements where the denominator is 0.
  func rationals(_ tag: UInt16) -> [Double?]? {
    guard let (format, count, data) = entry(tag) else { return nil }
    return (0..<min(count, 16)).map { index -> Double? in
      let pointer = data + index * 8
      switch format {
      case EXIF_FORMAT_RATIONAL:
        let value = exif_get_rational(pointer, order)
        return value.denominator == 0 ? nil : Double(value.numerator) / Double(value.denominator)
      case EXIF_FORMAT_SRATIONAL:
        let value = exif_get_srational(pointer, order)
        return value.denominator == 0 ? nil : Double(value.numerator) / Double(value.denominator)
      default: return nil
      }
    }
  }

  /// The raw bytes of a tag (the MakerNote).
  func bytes(_ tag: UInt16) -> [UInt8]? {
    guard let content, let entry = exif_content_get_entry(content, ExifTag(rawValue: UInt32(tag))),
      let data = entry.pointee.data
    else { return nil }
    return Array(UnsafeBufferPointer(start: data, count: Int(entry.pointee.size)))
  }
}
