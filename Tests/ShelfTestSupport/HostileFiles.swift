import Foundation

/// Hand-made files whose headers ask for arithmetic that traps (sizes that overflow, references
/// of 2^63 and more, negative counts), built byte by byte so that every test that needs one
/// (the parsers' own and the end-to-end index run) makes the same file.
public enum HostileFiles {
  /// `value` as `count` big-endian bytes.
  public static func bigEndian(_ value: UInt64, count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(count - 1 - $0))) }
  }

  /// `value` as `count` little-endian bytes.
  public static func littleEndian(_ value: UInt64, count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
  }

  // MARK: Binary property lists

  /// A `bplist00` of `objects` (each one object's bytes, in order), with a one-byte offset
  /// table and `refSize`-byte object references; object `top` is the root.
  public static func binaryPlist(_ objects: [[UInt8]], refSize: Int, top: Int = 0) -> [UInt8] {
    var bytes = Array("bplist00".utf8)
    var offsets: [UInt8] = []
    for object in objects {
      offsets.append(UInt8(bytes.count))
      bytes += object
    }
    let table = bytes.count
    bytes += offsets
    bytes += [0, 0, 0, 0, 0, 0, 1, UInt8(refSize)]
    bytes += bigEndian(UInt64(objects.count), count: 8) + bigEndian(UInt64(top), count: 8)
    bytes += bigEndian(UInt64(table), count: 8)
    return bytes
  }

  /// An integer object whose marker's size nibble asks for `1 << nibble` bytes (64 for 6),
  /// followed by 16 bytes, all the file has room for.
  public static func plistWideInteger(nibble: UInt8 = 6) -> [UInt8] {
    binaryPlist([[0x10 | nibble] + [UInt8](repeating: 0x11, count: 16)], refSize: 1)
  }

  /// An array of one element whose 8-byte reference is 2^63 (`Int(UInt64)` traps on it).
  public static func plistArrayReference(_ reference: UInt64 = 1 << 63) -> [UInt8] {
    binaryPlist([[0xA1] + bigEndian(reference, count: 8)], refSize: 8)
  }

  /// A dictionary of one pair whose key reference is 2^63; the value is a string.
  public static func plistDictionaryKeyReference(_ reference: UInt64 = 1 << 63) -> [UInt8] {
    binaryPlist(
      [[0xD1] + bigEndian(reference, count: 8) + bigEndian(1, count: 8), [0x51, 0x61]], refSize: 8)
  }

  // MARK: Images

  /// A little-endian BigTIFF whose first IFD's width tag (256) is a LONG8 (8 bytes) with
  /// 2^61 values: 2^64 bytes, which overflows `Int`.
  public static func bigTIFFOverflowingCount(_ count: UInt64 = 1 << 61) -> [UInt8] {
    var bytes: [UInt8] = Array("II".utf8) + [43, 0, 8, 0, 0, 0] + littleEndian(16, count: 8)
    bytes += littleEndian(2, count: 8)
    bytes += littleEndian(256, count: 2) + littleEndian(16, count: 2) + littleEndian(count, count: 8)
    bytes += littleEndian(640, count: 8)
    bytes += littleEndian(257, count: 2) + littleEndian(3, count: 2) + littleEndian(1, count: 8)
    bytes += littleEndian(480, count: 8)
    bytes += littleEndian(0, count: 8)
    return bytes
  }

  /// A JP2 (signature and `ftyp` boxes) whose third box has an XLBox length of Int64.max, so
  /// that its end offset overflows.
  public static func jpeg2000OverflowingXLBox() -> [UInt8] {
    var bytes: [UInt8] = [0, 0, 0, 0x0C] + Array("jP  ".utf8) + [0x0D, 0x0A, 0x87, 0x0A]
    bytes += bigEndian(20, count: 4) + Array("ftypjp2 ".utf8) + bigEndian(0, count: 4) + Array("jp2 ".utf8)
    bytes += bigEndian(1, count: 4) + Array("free".utf8) + bigEndian(UInt64(Int64.max), count: 8)
    bytes += [UInt8](repeating: 0, count: 16)
    return bytes
  }

  /// An ICO of two entries, the second a PNG whose IHDR says 4294967295 × 4294967295: the
  /// product of width and height overflows `Int`.
  public static func icoHugePNGEntry() -> [UInt8] {
    var bytes: [UInt8] = [0, 0, 1, 0, 2, 0]
    // Entry 1: a 16×16 bitmap at byte 38; entry 2: a PNG at byte 38 + 40.
    bytes += [16, 16, 0, 0, 1, 0, 32, 0] + littleEndian(40, count: 4) + littleEndian(38, count: 4)
    bytes += [0, 0, 0, 0, 1, 0, 32, 0] + littleEndian(33, count: 4) + littleEndian(78, count: 4)
    bytes += littleEndian(40, count: 4) + [UInt8](repeating: 0, count: 36)
    bytes += [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + bigEndian(13, count: 4) + Array("IHDR".utf8)
    bytes += bigEndian(0xFFFF_FFFF, count: 4) + bigEndian(0xFFFF_FFFF, count: 4) + [8, 6, 0, 0, 0]
    bytes += [0, 0, 0, 0]
    return bytes
  }

  /// An XPM whose values string declares -1 colours.
  public static func xpmNegativeColours() -> [UInt8] {
    Array("/* XPM */\nstatic char *icon[] = {\n\"4 4 -1 1\",\n\"a c #FF0000\",\n};\n".utf8)
  }

  // MARK: Ogg

  /// The CRC of an Ogg page: CRC-32 with polynomial 0x04C11DB7, no reflection, initial 0,
  /// over the page with its CRC field zeroed.
  public static func oggCRC(_ page: ArraySlice<UInt8>) -> UInt32 {
    var crc: UInt32 = 0
    for byte in page {
      crc ^= UInt32(byte) << 24
      for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
    }
    return crc
  }

  /// `ogg` with its last page's granule position set to `granule` and that page's CRC
  /// recomputed, so that demuxers take the file for whole.
  public static func oggWithLastGranule(_ ogg: [UInt8], granule: UInt64 = UInt64(Int64.max)) -> [UInt8]? {
    let capture = Array("OggS".utf8)
    guard let last = (0...(ogg.count - 27)).last(where: { ogg[$0..<$0 + 4].elementsEqual(capture) }) else {
      return nil
    }
    var bytes = ogg
    bytes.replaceSubrange((last + 6)..<(last + 14), with: littleEndian(granule, count: 8))
    bytes.replaceSubrange((last + 22)..<(last + 26), with: [0, 0, 0, 0])
    let crc = oggCRC(bytes[last...])
    bytes.replaceSubrange((last + 22)..<(last + 26), with: littleEndian(UInt64(crc), count: 4))
    return bytes
  }

  /// A 0.2-second 8 kHz RF64 file in Microsoft ADPCM (for PCM, FFmpeg recomputes the count
  /// from the data size) whose `ds64` sample count is 2^63 - 1: FFmpeg reports that length.
  public static func rf64WithHugeSampleCount() throws -> [UInt8] {
    let folder = try TemporaryDirectory()
    try ExternalTool.ffmpeg([
      "-f", "lavfi", "-i", "sine=frequency=440:duration=0.2:sample_rate=8000", "-c:a", "adpcm_ms", "-rf64",
      "always", folder.file("made.wav"),
    ])
    let made = try Array(Data(contentsOf: URL(fileURLWithPath: folder.file("made.wav"))))
    guard let patched = rf64WithSampleCount(made) else {
      throw ExternalTool.ToolFailure(tool: "ffmpeg", message: "wrote no ds64 chunk")
    }
    return patched
  }

  /// A 0.5-second 8 kHz Ogg Vorbis file whose last granule position is 2^63 - 1 (its page
  /// CRC made good): FFmpeg reports that length.
  public static func oggWithHugeLastGranule() throws -> [UInt8] {
    let folder = try TemporaryDirectory()
    try ExternalTool.ffmpeg([
      "-f", "lavfi", "-i", "sine=frequency=440:duration=0.5:sample_rate=8000", "-c:a", "libvorbis",
      folder.file("made.ogg"),
    ])
    let made = try Array(Data(contentsOf: URL(fileURLWithPath: folder.file("made.ogg"))))
    guard let patched = oggWithLastGranule(made) else {
      throw ExternalTool.ToolFailure(tool: "ffmpeg", message: "wrote no Ogg page")
    }
    return patched
  }

  /// `rf64` (an RF64 WAVE file) with its `ds64` chunk's sample count set to `count`.
  public static func rf64WithSampleCount(_ rf64: [UInt8], count: UInt64 = UInt64(Int64.max)) -> [UInt8]? {
    let tag = Array("ds64".utf8)
    guard rf64.count >= 40,
      let ds64 = (12...(rf64.count - 36)).first(where: { rf64[$0..<$0 + 4].elementsEqual(tag) })
    else { return nil }
    var bytes = rf64
    // ds64: tag, size, RIFF size (8), data size (8), sample count (8).
    bytes.replaceSubrange((ds64 + 24)..<(ds64 + 32), with: littleEndian(count, count: 8))
    return bytes
  }
}
