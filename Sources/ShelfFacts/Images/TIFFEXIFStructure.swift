import ShelfCore

/// The EXIF of a TIFF structure of any size and layout (a TIFF or DNG file, BigTIFF too, or an
/// EXIF block longer than a JPEG segment), read by offset and copied into a small classic TIFF
/// structure that libexif can read. libexif reads no further than 64 KiB into a block (the most
/// a JPEG APP1 segment holds), so the IFD0 of a scanner's or drone's TIFF written after its
/// strips, or an Exif IFD behind a large ICC profile, would be lost to it.
///
/// Only IFD0, the Exif IFD and the GPS IFD are read, each once (no chain is followed, so a loop
/// costs nothing), and only the tags `EXIFReader` uses are copied, their values within a byte
/// budget: a few small reads whatever the file declares.
struct TIFFEXIFStructure {
  let source: any ByteSource
  let layout: TIFFLayout
  let primary: [TIFFLayout.Entry]

  /// The most bytes of values copied into the compact structure: with its directories it stays
  /// under libexif's limit of 0xFFFE bytes, `Exif\0\0` included.
  static let valueBudget = 60 << 10

  /// Reads the header and IFD0 of the TIFF structure that starts at byte 0 of `source`; nil when
  /// it is not one or its IFD0 cannot be read.
  init?(_ source: any ByteSource) {
    guard let head = try? source.read(count: 16, at: 0), head.count >= 8,
      head[0] == head[1], head[0] == 0x49 || head[0] == 0x4D
    else { return nil }
    let order = TIFFLayout(little: head[0] == 0x49, big: false)
    guard let magic = order.u16(head, 2), magic == 42 || magic == 43 else { return nil }
    let layout = TIFFLayout(little: order.little, big: magic == 43)
    guard let first = layout.pointerField(head, layout.big ? 8 : 4), first >= 8, first < source.size,
      let (entries, _) = try? layout.readIFD(source, at: first)
    else { return nil }
    self.source = source
    self.layout = layout
    self.primary = entries
  }

  /// The values of an IFD0 tag as stored (the XMP packet of tag 700), when no longer than
  /// `limit`.
  func bytes(tag: Int, limit: Int) -> [UInt8]? {
    guard let entry = primary.first(where: { $0.tag == tag }), entry.byteCount <= limit else { return nil }
    return values(entry)
  }

  /// IFD0, Exif and GPS tags that `EXIFReader` uses, as a classic TIFF structure in the
  /// source's byte order (no `Exif\0\0` header); nil when none is there.
  func compactBlock() -> [UInt8]? {
    var budget = TIFFEXIFStructure.valueBudget
    var directories: [[(entry: TIFFLayout.Entry, values: [UInt8])]] = []
    for (entries, tags) in [
      (primary, EXIFReader.primaryTags),
      (subdirectory(0x8769), EXIFReader.exifTags),
      (subdirectory(0x8825), EXIFReader.gpsTags),
    ] {
      var kept: [(entry: TIFFLayout.Entry, values: [UInt8])] = []
      var seen: Set<Int> = []
      for entry in entries where tags.contains(UInt16(truncatingIfNeeded: entry.tag)) {
        // Classic TIFF has no 64-bit types; a tag listed twice keeps its first entry.
        guard entry.type <= 12, entry.count <= Int(UInt32.max), entry.byteCount <= budget,
          seen.insert(entry.tag).inserted, let values = values(entry)
        else { continue }
        budget -= values.count
        kept.append((entry, values))
      }
      directories.append(kept)
    }
    let (primaryKept, exifKept, gpsKept) = (directories[0], directories[1], directories[2])
    guard !(primaryKept.isEmpty && exifKept.isEmpty && gpsKept.isEmpty) else { return nil }
    return assemble(primary: primaryKept, exif: exifKept, gps: gpsKept)
  }

  /// The entries of the IFD an IFD0 pointer tag (Exif 0x8769, GPS 0x8825) names; none when the
  /// pointer is missing, outside the source or its IFD cut off.
  private func subdirectory(_ tag: Int) -> [TIFFLayout.Entry] {
    guard let entry = primary.first(where: { $0.tag == tag }), entry.count == 1 else { return [] }
    let offset: Int64?
    switch entry.type {
    case 4, 13: offset = layout.u32(Array(entry.field), 0).map(Int64.init)
    case 16, 18: offset = layout.pointerField(Array(entry.field), 0)
    default: offset = nil
    }
    guard let offset, offset >= 8, offset < source.size,
      let (entries, _) = try? layout.readIFD(source, at: offset)
    else { return [] }
    return entries
  }

  /// An entry's values: from its field when they fit there, else read where it points; nil
  /// when cut off by the end of the source.
  private func values(_ entry: TIFFLayout.Entry) -> [UInt8]? {
    if entry.inline { return Array(entry.field.prefix(entry.byteCount)) }
    guard let pointer = entry.pointer, let bytes = try? source.read(count: entry.byteCount, at: pointer),
      bytes.count == entry.byteCount
    else { return nil }
    return bytes
  }

  /// Lays out the header, the three IFDs (the pointer tags rewritten to the new offsets) and
  /// the values behind them.
  private func assemble(
    primary: [(entry: TIFFLayout.Entry, values: [UInt8])], exif: [(entry: TIFFLayout.Entry, values: [UInt8])],
    gps: [(entry: TIFFLayout.Entry, values: [UInt8])]
  ) -> [UInt8] {
    func ifdSize(_ count: Int) -> Int { count == 0 ? 0 : 2 + 12 * count + 4 }
    let primaryCount = primary.count + (exif.isEmpty ? 0 : 1) + (gps.isEmpty ? 0 : 1)
    let exifAt = 8 + ifdSize(primaryCount)
    let gpsAt = exifAt + ifdSize(exif.count)
    var valuesAt = gpsAt + ifdSize(gps.count)
    var out: [UInt8] = layout.little ? [0x49, 0x49, 42, 0] : [0x4D, 0x4D, 0, 42]
    out += word32(8)
    var tail: [UInt8] = []
    func directory(_ kept: [(entry: TIFFLayout.Entry, values: [UInt8])], pointers: [(UInt16, Int)]) {
      var rows: [(tag: Int, bytes: [UInt8])] = []
      for (tag, offset) in pointers {
        rows.append((Int(tag), word16(tag) + word16(4) + word32(1) + word32(offset)))
      }
      for (entry, values) in kept {
        var row = word16(UInt16(entry.tag)) + word16(UInt16(entry.type)) + word32(entry.count)
        if values.count <= 4 {
          row += values + [UInt8](repeating: 0, count: 4 - values.count)
        } else {
          row += word32(valuesAt)
          tail += values
          if values.count & 1 == 1 { tail.append(0) }
          valuesAt += values.count + values.count & 1
        }
        rows.append((entry.tag, row))
      }
      guard !rows.isEmpty else { return }
      out += word16(UInt16(rows.count))
      for row in rows.sorted(by: { $0.tag < $1.tag }) { out += row.bytes }
      out += word32(0)
    }
    var pointers: [(UInt16, Int)] = []
    if !exif.isEmpty { pointers.append((0x8769, exifAt)) }
    if !gps.isEmpty { pointers.append((0x8825, gpsAt)) }
    directory(primary, pointers: pointers)
    directory(exif, pointers: [])
    directory(gps, pointers: [])
    return out + tail
  }

  private func word16(_ value: UInt16) -> [UInt8] {
    layout.little ? [UInt8(value & 0xFF), UInt8(value >> 8)] : [UInt8(value >> 8), UInt8(value & 0xFF)]
  }

  private func word32(_ value: Int) -> [UInt8] {
    let bytes = [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: value >> $0) }
    return layout.little ? bytes : bytes.reversed()
  }
}
