import ShelfCore

extension ImageHeaderReader {
  /// The most pages a TIFF chain is followed for; beyond it the count stops there.
  static let tiffPageLimit = 65_536

  /// TIFF and BigTIFF: the first IFD's width, height, bits per sample and photometric tags, and
  /// the number of pages: the IFDs of the main chain (sub-IFDs, tag 330, are reduced copies and
  /// not counted, as Pillow and libtiff count them). A chain that loops back or points past the
  /// end stops there.
  public static func readTIFF(_ source: any ByteSource) throws -> ImageFacts {
    let head = try source.read(count: 16, at: 0)
    guard head.count >= 8 else { throw HeaderError("truncated TIFF: header cut off") }
    let layout = TIFFLayout(little: head[0] == 0x49, big: false)
    let big = layout.u16(head, 2) == 43
    let tiff = TIFFLayout(little: layout.little, big: big)
    guard let first = tiff.pointerField(head, big ? 8 : 4), first >= 8, first < source.size else {
      throw HeaderError("corrupt TIFF: IFD offset past the end")
    }
    let (entries, firstNext) = try tiff.readIFD(source, at: first)
    var facts = try tiffFacts(entries, tiff: tiff, source: source)
    var visited: Set<Int64> = [first]
    var pages = 1
    var next = firstNext
    while let offset = next, offset != 0, pages < tiffPageLimit {
      guard offset >= 8, offset < source.size, visited.insert(offset).inserted else { break }
      guard let (_, following) = try? tiff.readIFD(source, at: offset, entriesNeeded: false) else { break }
      pages += 1
      next = following
    }
    facts.frames = pages
    return facts
  }

  private static func tiffFacts(_ entries: [TIFFLayout.Entry], tiff: TIFFLayout, source: any ByteSource)
    throws
    -> ImageFacts
  {
    func value(_ tag: Int) -> Int? { entries.first { $0.tag == tag }?.value }
    guard let width = value(256), let height = value(257), width > 0, height > 0 else {
      throw HeaderError("corrupt TIFF: no image width or height")
    }
    var bits = value(258)
    if let entry = entries.first(where: { $0.tag == 258 }), !entry.inline, let pointer = entry.pointer {
      bits = tiff.u16(try source.read(count: 2, at: pointer), 0)
    }
    let photometric = value(262)
    let samples = value(277) ?? 1
    let extraSamples = entries.contains { $0.tag == 338 }
    let colour: ImageColorType
    switch photometric {
    case 0, 1: colour = extraSamples ? .grayAlpha : .gray
    case 2: colour = extraSamples || samples >= 4 ? .rgba : .rgb
    case 3: colour = .palette
    case 5: colour = .cmyk
    case 6: colour = .ycbcr
    default: colour = .other
    }
    return ImageFacts(
      format: "tiff", width: width, height: height, bitDepth: bits, colorType: colour,
      alpha: extraSamples || (photometric == 2 && samples >= 4), interlaced: false, cgbi: nil, frames: 1)
  }
}

/// Byte order and offset size of a classic TIFF or a BigTIFF.
struct TIFFLayout {
  var little: Bool
  var big: Bool

  /// One IFD entry: its first value when it fits in the entry, else where the values are; its
  /// type, count and value field as stored, for copying it elsewhere (`TIFFEXIFStructure`).
  struct Entry {
    var tag: Int
    var value: Int?
    var inline: Bool
    var pointer: Int64?
    var type: Int
    var count: Int
    /// The values' size in bytes (count times the type's size).
    var byteCount: Int
    /// The entry's value field: 4 bytes, 8 in BigTIFF.
    var field: ArraySlice<UInt8>
  }

  /// The size in bytes of one value of each TIFF type (BYTE … IFD8); nil for an unknown type.
  static func unitSize(_ type: Int) -> Int? {
    switch type {
    case 1, 2, 6, 7: 1
    case 3, 8: 2
    case 4, 9, 11, 13: 4
    case 5, 10, 12, 16, 17, 18: 8
    default: nil
    }
  }

  /// The most entries read from one IFD; real files have a few dozen.
  static let entryLimit = 4096
  /// The tags the catalogue's facts come from: width, height, bits per sample, photometric
  /// interpretation, samples per pixel, extra samples.
  static let factTags: Set<Int> = [256, 257, 258, 262, 277, 338]

  func u16(_ bytes: [UInt8], _ offset: Int) -> Int? { little ? bytes.le16(offset) : bytes.be16(offset) }
  func u32(_ bytes: [UInt8], _ offset: Int) -> Int? { little ? bytes.le32(offset) : bytes.be32(offset) }
  func u64(_ bytes: [UInt8], _ offset: Int) -> UInt64? { little ? bytes.le64(offset) : bytes.be64(offset) }

  /// An offset field (4 bytes, 8 in BigTIFF), nil when absent or beyond any file size.
  func pointerField(_ bytes: [UInt8], _ at: Int) -> Int64? {
    if big { return u64(bytes, at).flatMap { $0 <= UInt64(Int64.max) ? Int64($0) : nil } }
    return u32(bytes, at).map(Int64.init)
  }

  /// Reads the IFD at `offset`: its entries (unless only the chain is wanted) and the offset of
  /// the next IFD (nil when cut off).
  func readIFD(_ source: any ByteSource, at offset: Int64, entriesNeeded: Bool = true) throws
    -> ([Entry], Int64?)
  {
    let countBytes = try source.read(count: big ? 8 : 2, at: offset)
    guard let declared = big ? u64(countBytes, 0).map({ Int(min($0, 1 << 20)) }) : u16(countBytes, 0) else {
      throw HeaderError("truncated TIFF: IFD cut off")
    }
    let entrySize = big ? 20 : 12
    let tableStart = offset + Int64(big ? 8 : 2)
    let nextAt = tableStart + Int64(declared * entrySize)
    let next = pointerField(try source.read(count: big ? 8 : 4, at: nextAt), 0)
    guard entriesNeeded else { return ([], next) }
    let count = min(declared, TIFFLayout.entryLimit)
    let table = try source.read(count: count * entrySize, at: tableStart)
    var entries: [Entry] = []
    for index in 0..<count {
      let base = index * entrySize
      guard let tag = u16(table, base), let type = u16(table, base + 2),
        let valueCount = big ? u64(table, base + 4) : u32(table, base + 4).map(UInt64.init)
      else { break }
      let field = base + (big ? 12 : 4 + 4)
      // An entry cut off by the end of the file ends the table.
      guard table.count >= field + (big ? 8 : 4) else { break }
      let unit = TIFFLayout.unitSize(type) ?? 4
      // The values' size in bytes, checked: a BigTIFF count is 64 bits, and its product with
      // the type's size can overflow, or exceed what the file holds.
      let (byteCount, overflow) = valueCount.multipliedReportingOverflow(by: UInt64(unit))
      if overflow || byteCount > UInt64(source.size) {
        // The facts' own tags cannot be read from such an entry; another tag is skipped, as
        // libtiff skips it.
        if TIFFLayout.factTags.contains(tag) {
          throw HeaderError(
            "corrupt TIFF: tag \(tag) declares \(valueCount) values, more than the file holds")
        }
        continue
      }
      let inline = byteCount <= (big ? 8 : 4)
      let first: Int?
      switch type {
      case 1, 7: first = table.u8(field)
      case 3: first = u16(table, field)
      case 4: first = u32(table, field)
      case 16: first = u64(table, field).map { Int(truncatingIfNeeded: $0) }
      default: first = nil
      }
      entries.append(
        Entry(
          tag: tag, value: inline ? first : nil, inline: inline,
          pointer: inline ? nil : pointerField(table, field), type: type, count: Int(valueCount),
          byteCount: Int(byteCount), field: table[field..<field + (big ? 8 : 4)]))
    }
    return (entries, next)
  }
}
