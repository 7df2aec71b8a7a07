import Foundation
import ShelfCore
import ShelfTestSupport
import Testing

@testable import ShelfFacts

/// Lying headers, loops and truncation: each reader gives facts or a one-line `HeaderError`
/// (or the partial facts with the reason), reading at most a small multiple of the file.
@Suite(
  .enabled(
    if: ExternalTool.isInstalled(["convert", "heif-enc", "png2icns"]),
    "needs ImageMagick, libheif-examples and icnsutils (scripts/setup.sh installs them)"))
struct ImageBadInputTests {
  @Test func tiffIFDLoopStops() throws {
    // Two IFDs pointing at each other: two pages, not an endless walk.
    var file = bytes("II") + [42, 0] + le32(8)
    for next in [26, 8] {
      file += le16(1) + le16(256) + le16(3) + le32(1) + le16(5) + [0, 0] + le32(next)
    }
    file += le16(0) + le32(0)
    do {
      _ = try ImageHeaderReader.readTIFF(MemoryBytes(file))
      Issue.record("a TIFF without a height was accepted")
    } catch let error as HeaderError {
      #expect(error == HeaderError("corrupt TIFF: no image width or height"))
    }
    var looped = bytes("MM") + [0, 42] + be32(8)
    looped +=
      be16(2) + be16(256) + be16(3) + be32(1) + be16(9) + [0, 0] + be16(257) + be16(3) + be32(1) + be16(4)
      + [0, 0] + be32(8)
    let facts = try ImageHeaderReader.readTIFF(MemoryBytes(looped))
    #expect(facts.width == 9 && facts.height == 4 && facts.frames == 1)
  }

  @Test func tiffNextIFDPastTheEndEndsTheChain() throws {
    var file = bytes("II") + [42, 0] + le32(8)
    file +=
      le16(2) + le16(256) + le16(3) + le32(1) + le16(9) + [0, 0] + le16(257) + le16(3) + le32(1) + le16(4)
      + [0, 0] + le32(0x7FFF_0000)
    #expect(try ImageHeaderReader.readTIFF(MemoryBytes(file)).frames == 1)
  }

  @Test func jpegChainOfFullSegmentsIsWalkedReadingOnlyTheirHeaders() throws {
    let segment = [0xFF, 0xE2, 0xFF, 0xFF] + [UInt8](repeating: 0x55, count: 65533)
    var file: [UInt8] = [0xFF, 0xD8]
    for _ in 0..<64 { file += segment }
    let frame =
      [0xFF, 0xC0] + be16(17) + [8] + be16(10) + be16(20) + [3, 1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0]
    let source = CountingBytes(file + frame)
    let facts = try ImageHeaderReader.readJPEG(source)
    #expect(facts.width == 20 && facts.height == 10)
    #expect(source.total < 64 * 20_000)
    // The same chain running past the end of the file has no frame.
    #expect(throws: HeaderError("corrupt JPEG: no frame header")) {
      try ImageHeaderReader.readJPEG(MemoryBytes(file))
    }
  }

  @Test func gifWithAMillionFramesIsCountedInOneStreamingPass() throws {
    var file = bytes("GIF89a") + le16(1) + le16(1) + [0, 0, 0]
    let frame: [UInt8] = [0x2C] + le16(0) + le16(0) + le16(1) + le16(1) + [0, 2, 0]
    file.reserveCapacity(file.count + frame.count * 1_000_000 + 1)
    for _ in 0..<1_000_000 { file += frame }
    file.append(0x3B)
    let source = CountingBytes(file)
    let facts = try ImageHeaderReader.readGIF(source)
    #expect(facts.frames == 1_000_000)
    #expect(source.total < file.count * 2)
  }

  @Test func gifCutOffMidFrameKeepsTheFramesFound() {
    var file = bytes("GIF89a") + le16(4) + le16(4) + [0, 0, 0]
    file += [0x2C] + le16(0) + le16(0) + le16(4) + le16(4) + [0, 2, 3, 1, 2, 3, 0]
    file += [0x2C] + le16(0) + le16(0) + le16(4) + le16(4) + [0, 2, 200, 1]
    do {
      _ = try ImageHeaderReader.readGIF(MemoryBytes(file))
      Issue.record("a cut-off GIF was accepted")
    } catch let partial as ImageHeaderReader.PartialImage {
      #expect(partial.reason == "truncated GIF: data cut off")
      #expect(partial.facts.frames == 2 && partial.facts.width == 4)
    } catch {
      Issue.record("unexpected \(error)")
    }
  }

  /// Every reader, on every prefix of a valid file and on an empty file: facts, a
  /// `HeaderError` or partial facts, never a crash or another error.
  @Test(arguments: [
    ("image/jpeg", "jpg"), ("image/gif", "gif"), ("image/bmp", "bmp"), ("image/tiff", "tif"),
    ("image/webp", "webp"), ("image/vnd.microsoft.icon", "ico"), ("image/x-icns", "icns"),
    ("image/vnd.adobe.photoshop", "psd"), ("image/x-tga", "tga"), ("image/x-qoi", "qoi"),
    ("image/x-portable-pixmap", "ppm"), ("image/x-xpixmap", "xpm"), ("image/jp2", "jp2"),
    ("image/svg+xml", "svg"), ("image/heic", "heic"),
  ])
  func truncatedAndEmptyFilesGiveAnError(_ mime: String, _ ext: String) throws {
    let whole = try Self.sample(mime, ext)
    let step = max(1, whole.count / 300)
    for length in stride(from: 0, to: whole.count, by: step) {
      do {
        _ = try ImageHeaderReader.read(MemoryBytes(Array(whole.prefix(length))), mime: mime)
      } catch is HeaderError {
      } catch is ImageHeaderReader.PartialImage {
      } catch {
        Issue.record("\(mime) cut to \(length) bytes: \(error)")
      }
    }
    #expect(throws: HeaderError.self) { try ImageHeaderReader.read(MemoryBytes([]), mime: mime) }
  }

  /// A small valid file of each format, made by ImageMagick (heif-enc for HEIC, png2icns for
  /// ICNS); SVG and QOI (which Debian's tools do not write) by hand.
  static func sample(_ mime: String, _ ext: String) throws -> [UInt8] {
    switch mime {
    case "image/svg+xml":
      return bytes("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"30\" height=\"20\"/>")
    case "image/x-qoi":
      let pixels = (0..<600).flatMap { [0xFE, UInt8($0 % 256), 7, 9] as [UInt8] }
      return bytes("qoif") + be32(30) + be32(20) + [3, 0] + pixels + [0, 0, 0, 0, 0, 0, 0, 1]
    default: break
    }
    let folder = try TemporaryDirectory()
    let source = folder.file("source.png")
    // Seeded: the same pixels every run (png2icns writes a truncated file for some random
    // plasmas, about one in 300).
    try ExternalTool.make(["convert", "-seed", "1", "-size", "32x32", "plasma:red-blue", source])
    let out = folder.file("sample." + ext)
    switch mime {
    case "image/heic": try ExternalTool.make(["heif-enc", "-q", "30", source, "-o", out])
    case "image/x-icns": try ExternalTool.make(["png2icns", out, source])
    default: try ExternalTool.make(["convert", source, out])
    }
    return Array(try Data(contentsOf: URL(fileURLWithPath: out)))
  }
}

/// Headers whose counts and lengths would make the readers' arithmetic trap (a product or an
/// end offset beyond 64 bits, a negative count): each is a `corrupt`/`truncated` error.
@Suite struct ImageHeaderArithmeticTests {
  @Test func bigTIFFValueCountWhoseByteSizeOverflowsIsCorrupt() {
    let file = HostileFiles.bigTIFFOverflowingCount()
    #expect(ContentSniffer.sniff(prefix: file, fileExtension: "tif").mime == "image/tiff")
    #expect(
      throws: HeaderError(
        "corrupt TIFF: tag 256 declares 2305843009213693952 values, more than the file holds")
    ) { try ImageHeaderReader.read(MemoryBytes(file), mime: "image/tiff") }
    // A count of 2^64 - 1 bytes (no overflow), still more than the file holds.
    #expect(
      throws: HeaderError(
        "corrupt TIFF: tag 256 declares 18446744073709551615 values, more than the file holds")
    ) { try ImageHeaderReader.readTIFF(MemoryBytes(HostileFiles.bigTIFFOverflowingCount(.max))) }
  }

  @Test func bigTIFFTagOtherThanTheFactsWithAnOverflowingCountIsSkipped() throws {
    // The same file with the lying count moved to a private tag (65000) beside a good width.
    var file = HostileFiles.bigTIFFOverflowingCount()
    file.replaceSubrange(24..<26, with: HostileFiles.littleEndian(65000, count: 2))
    #expect(throws: HeaderError("corrupt TIFF: no image width or height")) {
      try ImageHeaderReader.readTIFF(MemoryBytes(file))
    }
  }

  @Test func jpeg2000XLBoxWhoseEndOverflowsIsTruncated() {
    let file = HostileFiles.jpeg2000OverflowingXLBox()
    #expect(ContentSniffer.sniff(prefix: file, fileExtension: "jp2").mime == "image/jp2")
    #expect(
      throws: HeaderError(
        "truncated JP2: free box at byte 32 declares 9223372036854775807 bytes, the file holds 32")
    ) { try ImageHeaderReader.read(MemoryBytes(file), mime: "image/jp2") }
  }

  @Test func icoPNGEntryOfHugeDimensionsIsCorrupt() {
    let file = HostileFiles.icoHugePNGEntry()
    #expect(ContentSniffer.sniff(prefix: file, fileExtension: "ico").mime == "image/vnd.microsoft.icon")
    #expect(throws: HeaderError("corrupt ICO: entry 2 is a PNG of 4294967295×4294967295")) {
      try ImageHeaderReader.read(MemoryBytes(file), mime: "image/vnd.microsoft.icon")
    }
  }

  @Test func xpmWithANegativeColourCountIsCorrupt() {
    let file = HostileFiles.xpmNegativeColours()
    #expect(ContentSniffer.sniff(prefix: file, fileExtension: "xpm").mime == "image/x-xpixmap")
    #expect(throws: HeaderError("corrupt XPM: -1 colours")) {
      try ImageHeaderReader.read(MemoryBytes(file), mime: "image/x-xpixmap")
    }
  }
}
