import Foundation
import ShelfCore
import ShelfTestSupport
import Testing

@testable import ShelfFacts

private func box(_ type: String, _ body: [UInt8]) -> [UInt8] { be32(body.count + 8) + bytes(type) + body }

/// A file whose reads fail from `failingFrom` on (an I/O error, a file cut short meanwhile),
/// though its size says otherwise.
private struct FailingBytes: ByteSource {
  let bytes: MemoryBytes
  let failingFrom: Int64
  var size: Int64 { bytes.size }
  func read(count: Int, at offset: Int64) throws -> [UInt8] {
    guard offset + Int64(count) <= failingFrom else { throw HeaderError("I/O error") }
    return try bytes.read(count: count, at: offset)
  }
}

/// A HEIF built box by box: items of a type with their properties (1-based indices into
/// `properties`), `dimg` references, and data in an `idat` for items that have some. Counts and
/// IDs are 32-bit, so that any number of items can be declared.
private struct SyntheticHEIF {
  var items: [(id: Int, type: String, properties: [Int])]
  var properties: [[UInt8]]
  var derivations: [(from: Int, to: [Int])] = []
  var itemData: [Int: [UInt8]] = [:]
  var metaSizeOverride: Int?
  /// Items flagged hidden in their `infe` (the tiles of an iPhone's grid are).
  var hidden: Set<Int> = []

  /// An HEVC configuration: Main profile, 4:2:0, 8 bits, no parameter-set arrays.
  static let hvcC = box(
    "hvcC",
    [1, 1] + be32(0x6000_0000) + [0, 0, 0, 0, 0, 0, 90] + be16(0xF000) + [
      0xFC, 0xFD, 0xF8, 0xF8, 0, 0, 0x0F, 0,
    ])

  static func ispe(_ width: Int, _ height: Int) -> [UInt8] {
    box("ispe", be32(0) + be32(width) + be32(height))
  }

  var bytes: [UInt8] {
    let ftyp = box("ftyp", Array("heic".utf8) + be32(0) + Array("mif1heic".utf8))
    let hdlr = box("hdlr", be32(0) + be32(0) + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
    let pitm = box("pitm", be32(0) + be16(items[0].id))
    var locations = [2, 0, 0, 0, 0x44, 0x00] + be32(items.count)
    var infos = [1, 0, 0, 0] + be32(items.count)
    var associations = [1, 0, 0, 0] + be32(items.count)
    var idat: [UInt8] = []
    for item in items {
      let data = itemData[item.id] ?? []
      locations +=
        be32(item.id) + be16(data.isEmpty ? 0 : 1) + be16(0) + be16(1) + be32(idat.count) + be32(data.count)
      idat += data
      infos += box(
        "infe",
        [3, 0, 0, hidden.contains(item.id) ? 1 : 0] + be32(item.id) + be16(0) + Array(item.type.utf8) + [0])
      associations +=
        be32(item.id) + [UInt8(item.properties.count)] + item.properties.map { 0x80 | UInt8($0) }
    }
    var references: [UInt8] = []
    for (from, to) in derivations {
      references += box("dimg", be32(from) + be16(to.count) + to.flatMap(be32))
    }
    let iprp = box("iprp", box("ipco", properties.flatMap { $0 }) + box("ipma", associations))
    var body = be32(0) + hdlr + pitm + box("iloc", locations) + box("iinf", infos) + iprp
    if !references.isEmpty { body += box("iref", [1, 0, 0, 0] + references) }
    if !idat.isEmpty { body += box("idat", idat) }
    var meta = box("meta", body)
    if let metaSizeOverride { meta.replaceSubrange(0..<4, with: be32(metaSizeOverride)) }
    return ftyp + meta
  }

  /// `count` HEVC items of 64×48.
  static func plain(count: Int) -> SyntheticHEIF {
    SyntheticHEIF(items: (1...count).map { ($0, "hvc1", [1, 2]) }, properties: [ispe(64, 48), hvcC])
  }
}

/// HEIF, HEIC and AVIF through libheif: the primary image's displayed size (grid, rotation,
/// clean aperture), top-level images as frames, alpha, the Exif block, and hostile files.
@Suite struct HEIFContainerTests {
  @Test func rotationAndCleanApertureGiveTheDisplayedSize() throws {
    var file = SyntheticHEIF.plain(count: 1)
    file.properties.append(box("irot", [1]))  // 90° anticlockwise
    file.items[0].properties.append(3)
    let rotated = try HEIFContainer(MemoryBytes(file.bytes), format: "heic")
    #expect(rotated.width == 48 && rotated.height == 64)
    // A clean aperture of 40×30 in the middle.
    var cropped = SyntheticHEIF.plain(count: 1)
    cropped.properties.append(box("clap", [40, 1, 30, 1, 0, 1, 0, 1].flatMap(be32)))
    cropped.items[0].properties.append(3)
    let clean = try HEIFContainer(MemoryBytes(cropped.bytes), format: "heic")
    #expect(clean.width == 40 && clean.height == 30)
  }

  @Test func gridImageIsOneImageOfTheGridsSize() throws {
    // A 2×2 grid of hidden 64×48 tiles showing 120×90, as an iPhone writes it: one top-level
    // image, not five.
    var file = SyntheticHEIF(
      items: [(1, "grid", [3])] + (2...5).map { ($0, "hvc1", [1, 2]) },
      properties: [SyntheticHEIF.ispe(64, 48), SyntheticHEIF.hvcC, SyntheticHEIF.ispe(120, 90)])
    file.derivations = [(1, [2, 3, 4, 5])]
    file.hidden = [2, 3, 4, 5]
    file.itemData[1] = [0, 0, 1, 1] + be16(120) + be16(90)
    let grid = try HEIFContainer(MemoryBytes(file.bytes), format: "heic")
    #expect(grid.width == 120 && grid.height == 90 && grid.topLevelImageCount == 1)
  }

  @Test func heifWithAHundredThousandItemsIsRefusedReadingTheFileOnce() throws {
    // The same file with two items opens: the count alone is refused.
    let honest = try HEIFContainer(MemoryBytes(SyntheticHEIF.plain(count: 2).bytes), format: "heic")
    #expect(honest.width == 64 && honest.height == 48 && honest.topLevelImageCount == 2)
    let file = SyntheticHEIF.plain(count: 100_000).bytes
    let source = CountingBytes(file)
    #expect(throws: HeaderError.self) { try HEIFContainer(source, format: "heic") }
    #expect(source.total <= file.count * 2)
  }

  @Test func heifBoxLargerThanTheFileIsRefused() throws {
    var lying = SyntheticHEIF.plain(count: 2)
    lying.metaSizeOverride = 0x7FFF_FFF0
    let source = CountingBytes(lying.bytes)
    #expect(throws: HeaderError("corrupt HEIC: Invalid input: No 'meta' box")) {
      try HEIFContainer(source, format: "heic")
    }
    #expect(source.total <= lying.bytes.count * 4)
  }

  @Test func heifLargerThanTheLimitIsNotOpened() {
    struct Huge: ByteSource {
      var size: Int64 { HEIFContainer.sizeLimit + 1 }
      func read(count: Int, at offset: Int64) throws -> [UInt8] { [] }
    }
    #expect(throws: HeaderError("HEIC larger than 256 MiB: not read")) {
      try HEIFContainer(Huge(), format: "heic")
    }
  }

  @Test(
    .enabled(
      if: ExternalTool.isInstalled(["convert", "heif-enc"]),
      "needs ImageMagick and libheif-examples (scripts/setup.sh installs them)"))
  func aReadThatFailsIsAnErrorNotAnAbort() throws {
    // libheif asserts when reading an item's data fails; shelf gives it zeros and says so.
    let folder = try TemporaryDirectory()
    try ExternalTool.make(["convert", "-size", "64x48", "plasma:", folder.file("p.png")])
    try ExternalTool.make(["heif-enc", "-q", "40", folder.file("p.png"), "-o", folder.file("p.heic")])
    let file = Array(try Data(contentsOf: URL(fileURLWithPath: folder.file("p.heic"))))
    let source = FailingBytes(bytes: MemoryBytes(file), failingFrom: Int64(file.count - 100))
    #expect(throws: HeaderError("truncated HEIC: a read failed")) {
      try HEIFContainer(source, format: "heic")
    }
  }

  @Test(
    .enabled(
      if: ExternalTool.isInstalled(["convert", "heif-enc", "exiftool"]),
      "needs ImageMagick, libheif-examples and exiftool (scripts/setup.sh installs them)"))
  func heifEncFilesGiveSizeAlphaFramesAndTheExifBlock() throws {
    let folder = try TemporaryDirectory()
    try ExternalTool.make([
      "convert", "-size", "96x64", "plasma:", "-alpha", "set", "PNG32:" + folder.file("a.png"),
    ])
    try ExternalTool.make(["convert", "-size", "96x64", "plasma:", folder.file("b.jpg")])
    try ExternalTool.make([
      "exiftool", "-q", "-overwrite_original", "-Make=Shelf", "-Model=Test Camera", folder.file("b.jpg"),
    ])
    try ExternalTool.make(["heif-enc", "-q", "40", folder.file("a.png"), "-o", folder.file("alpha.heic")])
    try ExternalTool.make([
      "heif-enc", "-q", "40", folder.file("b.jpg"), folder.file("a.png"), "-o", folder.file("two.heic"),
    ])
    let alpha = try HEIFContainer(try RegularFile(path: folder.raw("alpha.heic")), format: "heic")
    #expect(alpha.width == 96 && alpha.height == 64 && alpha.hasAlpha && alpha.topLevelImageCount == 1)
    #expect(try alpha.metadataBlocks(type: "Exif").isEmpty)
    let two = try HEIFContainer(try RegularFile(path: folder.raw("two.heic")), format: "heic")
    #expect(two.topLevelImageCount == 2 && !two.hasAlpha && two.bitDepth == 8)
    let exif = try two.metadataBlocks(type: "Exif")
    #expect(exif.count == 1)
    // A 4-byte offset to the TIFF header, then the TIFF structure with exiftool's Make.
    let block = try #require(exif.first)
    let tiffStart = 4 + Int(block[0]) << 24 + Int(block[1]) << 16 + Int(block[2]) << 8 + Int(block[3])
    #expect(
      block[tiffStart..<tiffStart + 2] == [0x4D, 0x4D] || block[tiffStart..<tiffStart + 2] == [0x49, 0x49])
    #expect(String(decoding: block, as: UTF8.self).contains("Test Camera"))
  }
}
