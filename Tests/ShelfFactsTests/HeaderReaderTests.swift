import ShelfCore
import Testing

@testable import ShelfFacts

/// A PNG made of chunk headers with the given data (CRCs are not checked by the header reader).
private func png(_ chunks: [(String, [UInt8])]) -> [UInt8] {
  var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
  for (name, data) in chunks { out += be32(data.count) + bytes(name) + data + [0, 0, 0, 0] }
  return out
}

private func ihdr(width: Int, height: Int, depth: UInt8 = 8, color: UInt8 = 6, interlace: UInt8 = 0) -> (
  String, [UInt8]
) {
  ("IHDR", be32(width) + be32(height) + [depth, color, 0, 0, interlace])
}

@Test func pngHeaderFactsAndChunkNames() throws {
  let file = png([
    ihdr(width: 640, height: 480, depth: 8, color: 3, interlace: 1), ("PLTE", [0, 0, 0]), ("tRNS", [0]),
    ("IDAT", [1, 2]), ("IDAT", [3]), ("IEND", []),
  ])
  let facts = try ImageHeaderReader.readPNG(MemoryBytes(file))
  #expect(
    facts
      == ImageFacts(
        format: "png", width: 640, height: 480, bitDepth: 8, colorType: .palette, alpha: true,
        interlaced: true, cgbi: false, frames: 1, chunks: ["IHDR", "PLTE", "tRNS", "IDAT", "IEND"]))
}

@Test func pngCgBIAndAPNGFrames() throws {
  let file = png([
    ("CgBI", [0x50, 0, 0x20, 6]), ihdr(width: 60, height: 60), ("acTL", be32(12) + be32(0)),
    ("fcTL", [UInt8](repeating: 0, count: 26)), ("IDAT", [0]), ("fcTL", [UInt8](repeating: 0, count: 26)),
    ("fdAT", be32(1)), ("IEND", []),
  ])
  let facts = try ImageHeaderReader.readPNG(MemoryBytes(file))
  #expect(facts.cgbi == true)
  // The frames are the fcTL chunks, not acTL's claim of 12.
  #expect(facts.frames == 2)
  #expect(facts.alpha == true)
}

@Test func pngClaimingHugeSizeIsReadWithoutAllocating() throws {
  // A header that lies costs nothing: only the header is read.
  let file = png([ihdr(width: 100_000, height: 100_000), ("IDAT", [0]), ("IEND", [])])
  let facts = try ImageHeaderReader.readPNG(MemoryBytes(file))
  #expect(facts.width == 100_000 && facts.height == 100_000)
}

@Test func pngChunkPastTheEndIsReportedAsTruncated() throws {
  var file = png([ihdr(width: 4, height: 4)])
  file += be32(0x7000_0000) + bytes("IDAT") + [1, 2, 3]
  do {
    _ = try ImageHeaderReader.readPNG(MemoryBytes(file))
    Issue.record("no error")
  } catch let partial as ImageHeaderReader.PartialImage {
    #expect(partial.reason == "truncated PNG: no IEND chunk")
    #expect(partial.facts.width == 4)
  }
}

@Test func pngBadDepthIsAnError() {
  let file = png([ihdr(width: 4, height: 4, depth: 3, color: 2), ("IEND", [])])
  #expect(throws: HeaderError("corrupt PNG: invalid colour type 2 with bit depth 3")) {
    try ImageHeaderReader.readPNG(MemoryBytes(file))
  }
}

@Test func notAPNGIsAnError() {
  #expect(throws: HeaderError("not a PNG file (no PNG signature)")) {
    try ImageHeaderReader.readPNG(MemoryBytes(bytes("GIF89a")))
  }
}

@Test func jpegFrameHeaderAfterAPPSegments() throws {
  var file: [UInt8] = [0xFF, 0xD8]
  file += [0xFF, 0xE0, 0x00, 0x10] + bytes("JFIF\0") + [1, 1, 0, 0, 1, 0, 1, 0, 0]
  file += [0xFF, 0xE1, 0x00, 0x08] + bytes("Exif\0\0")
  file += [0xFF, 0xC2, 0x00, 0x11, 8, 0x01, 0xE0, 0x02, 0x80, 3] + [UInt8](repeating: 0, count: 9)
  file += [0xFF, 0xDA]
  let facts = try ImageHeaderReader.readJPEG(MemoryBytes(file))
  #expect(
    facts
      == ImageFacts(
        format: "jpeg", width: 640, height: 480, bitDepth: 8, colorType: .ycbcr, alpha: false,
        interlaced: true, cgbi: nil, frames: 1))
}

@Test func jpegWithoutFrameIsAnError() {
  #expect(throws: HeaderError("corrupt JPEG: no frame header")) {
    try ImageHeaderReader.readJPEG(MemoryBytes([0xFF, 0xD8, 0xFF, 0xD9]))
  }
}

@Test func gifScreenFramesAndTransparency() throws {
  var file = bytes("GIF89a") + le16(10) + le16(7) + [0x80 | 0x01, 0, 0]  // 4-colour table
  file += [UInt8](repeating: 0, count: 12)
  for _ in 0..<3 {
    file += [0x21, 0xF9, 4, 0x01, 0, 0, 0, 0]  // graphic control with transparency
    file += [0x2C] + le16(0) + le16(0) + le16(10) + le16(7) + [0x00]
    file += [2, 2, 0x4C, 0x01, 0]  // LZW data
  }
  file += [0x3B]
  let facts = try ImageHeaderReader.readGIF(MemoryBytes(file))
  #expect(
    facts
      == ImageFacts(
        format: "gif", width: 10, height: 7, bitDepth: 2, colorType: .palette, alpha: true,
        interlaced: false, cgbi: nil, frames: 3))
}

@Test func bmpInfoHeader() throws {
  var file =
    bytes("BM") + le32(0) + le32(0) + le32(54) + le32(40) + le32(300) + le32(-200 & 0xFFFF_FFFF) + le16(1)
    + le16(24)
  file += [UInt8](repeating: 0, count: 24)
  let facts = try ImageHeaderReader.readBMP(MemoryBytes(file))
  #expect(facts.width == 300 && facts.height == 200 && facts.colorType == .rgb)
}

@Test func tiffLittleEndianIFD() throws {
  var file = bytes("II") + [42, 0] + le32(8)
  let entries: [(Int, Int, Int)] = [(256, 4, 1024), (257, 3, 768), (258, 3, 16), (262, 3, 1), (277, 3, 1)]
  file += le16(entries.count)
  for (tag, type, value) in entries {
    file += le16(tag) + le16(type) + le32(1) + (type == 3 ? le16(value) + [0, 0] : le32(value))
  }
  file += le32(0)
  let facts = try ImageHeaderReader.readTIFF(MemoryBytes(file))
  #expect(
    facts
      == ImageFacts(
        format: "tiff", width: 1024, height: 768, bitDepth: 16, colorType: .gray, alpha: false,
        interlaced: false, cgbi: nil, frames: 1))
}

@Test func tiffWithIFDPastTheEndIsAnError() {
  #expect(throws: HeaderError("corrupt TIFF: IFD offset past the end")) {
    try ImageHeaderReader.readTIFF(MemoryBytes(bytes("MM") + [0, 42] + be32(0x7FFF_FFFF)))
  }
}

@Test func webpVariants() throws {
  let lossy =
    bytes("RIFF") + le32(30) + bytes("WEBPVP8 ") + le32(10) + [0, 0, 0, 0x9D, 0x01, 0x2A] + le16(400)
    + le16(300) + [0, 0]
  #expect(try ImageHeaderReader.readWebP(MemoryBytes(lossy)).width == 400)
  let bits = (99) | (49 << 14) | (1 << 28)
  let lossless =
    bytes("RIFF") + le32(30) + bytes("WEBPVP8L") + le32(10) + [0x2F] + le32(bits) + [0, 0, 0, 0, 0]
  let facts = try ImageHeaderReader.readWebP(MemoryBytes(lossless))
  #expect(facts.width == 100 && facts.height == 50 && facts.alpha == true)
  let extended =
    bytes("RIFF") + le32(30) + bytes("WEBPVP8X") + le32(10) + [0x10, 0, 0, 0] + [0xFF, 0x03, 0] + [
      0xDF, 0x01, 0,
    ]
  let x = try ImageHeaderReader.readWebP(MemoryBytes(extended))
  #expect(x.width == 1024 && x.height == 480 && x.alpha == true)
}
