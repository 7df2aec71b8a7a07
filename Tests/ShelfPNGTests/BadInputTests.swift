import ShelfCore
import ShelfPNG
import Testing

/// Truncated, corrupt, hostile and non-PNG input gives one typed error and allocates nothing big.
@Suite struct BadInputTests {
  @Test func zeroLengthFile() {
    let error = #expect(throws: PNGError.self) { try PNGDecoder().decode(bytes: []) }
    #expect(error?.reason == .empty)
    #expect(error?.description == "empty file (zero bytes), not a PNG")
  }

  @Test func nonPNGFiles() {
    for bytes: [UInt8] in [Array("GIF89a....".utf8), [0xFF, 0xD8, 0xFF, 0xE0], Array("hello\n".utf8)] {
      let error = #expect(throws: PNGError.self) { try PNGDecoder().decode(bytes: bytes) }
      #expect(error?.reason == .notPNG)
    }
  }

  @Test func truncatedAtEveryChunkBoundaryAndInside() throws {
    let whole = Fixtures.bytes("basn2c08.png")
    for length in [4, 8, 20, 33, 40, 100, whole.count / 2, whole.count - 13, whole.count - 1] {
      let error = #expect(throws: PNGError.self, "length \(length)") {
        try PNGDecoder().decode(bytes: Array(whole.prefix(length)))
      }
      guard case .truncated = error?.reason else {
        Issue.record("length \(length): \(String(describing: error))")
        continue
      }
    }
  }

  @Test func truncatedMessageNamesTheChunk() {
    let whole = Fixtures.bytes("basn2c08.png")
    let error = #expect(throws: PNGError.self) {
      try PNGDecoder().decode(bytes: Array(whole.prefix(whole.count / 2)))
    }
    #expect(error?.description == "truncated PNG: IDAT ends early")
  }

  @Test func idatWithTooLittleDataIsTruncated() {
    // A valid container whose image data stops after half the rows.
    let rows = (0..<8).flatMap { _ in [UInt8](repeating: 0, count: 1 + 8 * 3) }
    let bytes = Synth.file([
      Synth.header(width: 8, height: 16, depth: 8, colorType: 2),
      PNGChunk("IDAT", data: Synth.storedZlib(rows)), PNGChunk("IEND", data: []),
    ])
    let error = #expect(throws: PNGError.self) { try PNGDecoder().decode(bytes: bytes) }
    #expect(error?.reason == .truncated("IDAT ends early"))
  }

  @Test func badCRCInEveryPosition() {
    let whole = Fixtures.bytes("basn0g08.png")
    let chunks = try! PNGChunkReader().chunks(of: whole)
    var offset = 8
    for chunk in chunks {
      var broken = whole
      let crcOffset = offset + 8 + chunk.data.count
      broken[crcOffset] ^= 0x01
      let error = #expect(throws: PNGError.self) { try PNGDecoder().decode(bytes: broken) }
      #expect(error?.reason == .badCRC(chunk: chunk.name))
      offset = crcOffset + 4
    }
  }

  @Test func hugeDimensionsAreRefusedBeforeAllocating() {
    let bytes = Synth.file([
      Synth.header(width: 100_000, height: 100_000, depth: 16, colorType: 6),
      PNGChunk("IDAT", data: Synth.storedZlib([0])), PNGChunk("IEND", data: []),
    ])
    let error = #expect(throws: PNGError.self) { try PNGDecoder().decode(bytes: bytes) }
    #expect(error?.reason == .tooLarge(width: 100_000, height: 100_000, limit: PNGDecoder.defaultPixelLimit))
    #expect(
      error?.description
        == "image too large: 100000x100000 exceeds the limit of \(PNGDecoder.defaultPixelLimit) pixels")
  }

  @Test func pixelLimitIsConfigurable() throws {
    let bytes = Fixtures.bytes("basn2c08.png")  // 32x32
    let error = #expect(throws: PNGError.self) { try PNGDecoder(pixelLimit: 1023).decode(bytes: bytes) }
    #expect(error?.reason == .tooLarge(width: 32, height: 32, limit: 1023))
    _ = try PNGDecoder(pixelLimit: 1024).decode(bytes: bytes)
  }

  @Test func decompressionBombIsBounded() throws {
    // 4 MiB of zeros compress to a few KiB; the image declares only 16x16, so libpng must stop
    // after the rows it needs instead of inflating everything.
    let zeros = [UInt8](repeating: 0, count: 4 << 20)
    let bomb = PNGChunk("IDAT", data: zlibOfZeros(zeros.count))
    let bytes = Synth.file([
      Synth.header(width: 16, height: 16, depth: 8, colorType: 0), bomb, PNGChunk("IEND", data: []),
    ])
    #expect(bytes.count < 64 * 1024)
    let decoded = try PNGDecoder().decode(bytes: bytes)
    #expect(decoded.image.pixels.count == 16 * 16 * 4)
    // A bomb declaring a huge image is refused by the pixel limit before inflating anything.
    let huge = Synth.file([
      Synth.header(width: 60_000, height: 60_000, depth: 8, colorType: 0), bomb, PNGChunk("IEND", data: []),
    ])
    let error = #expect(throws: PNGError.self) { try PNGDecoder().decode(bytes: huge) }
    #expect(error?.reason == .tooLarge(width: 60_000, height: 60_000, limit: PNGDecoder.defaultPixelLimit))
  }

  @Test func corruptImageDataIsTypedByZlibsReason() {
    // A deflate block of type 3, which does not exist.
    let bytes = Synth.file([
      Synth.header(width: 4, height: 4, depth: 8, colorType: 0),
      PNGChunk("IDAT", data: [0x78, 0x01, 0xFF, 0xFF, 0xFF, 0xFF]), PNGChunk("IEND", data: []),
    ])
    let error = #expect(throws: PNGError.self) { try PNGDecoder().decode(bytes: bytes) }
    #expect(error?.reason == .badImageData("invalid block type"))
    #expect(error?.description == "corrupt PNG: bad compressed image data (invalid block type)")
    #expect(error?.failure == .badInput)
    // A zlib header that is not one: libpng's "IDAT: incorrect header check" becomes a code.
    let badHeader = Synth.file([
      Synth.header(width: 4, height: 4, depth: 8, colorType: 0),
      PNGChunk("IDAT", data: [0x78, 0x00] + Synth.storedZlib(Array(repeating: 0, count: 20)).dropFirst(2)),
      PNGChunk("IEND", data: []),
    ])
    let headerError = #expect(throws: PNGError.self) { try PNGDecoder().decode(bytes: badHeader) }
    #expect(headerError?.reason == .badImageData("incorrect header check"))
  }

  @Test func errorsNameThePath() {
    let error = PNGError(.notPNG, path: RawPath("Documents/x.png"))
    #expect(error.description == "Documents/x.png: not a PNG file (no PNG signature)")
    #expect(error.failure == .badInput)
  }

  /// A zlib stream of `count` zero bytes: fixed-Huffman blocks of long matches.
  private func zlibOfZeros(_ count: Int) -> [UInt8] {
    // Build with stored + back-references is complex; a run of stored zeros would not be a
    // bomb, so use repeated fixed-Huffman blocks produced by a tiny encoder.
    var bits = BitWriter()
    bits.write(1, 1)  // BFINAL
    bits.write(1, 2)  // fixed Huffman
    writeLiteral(0, &bits)
    var remaining = count - 1
    while remaining > 0 {
      let length = min(258, remaining)
      guard length >= 3 else {
        for _ in 0..<length { writeLiteral(0, &bits) }
        break
      }
      writeLength(length, &bits)
      bits.write(0, 5)  // distance code 0 = distance 1 (5 bits, reversed zero)
      remaining -= length
    }
    writeSymbol(256, &bits)
    var out: [UInt8] = [0x78, 0x01] + bits.finish()
    var a: UInt32 = 1
    var b: UInt32 = 0
    for _ in 0..<count {
      a = (a + 0) % 65521
      b = (b + a) % 65521
    }
    let adler = b << 16 | a
    out += [UInt8(adler >> 24), UInt8((adler >> 16) & 0xFF), UInt8((adler >> 8) & 0xFF), UInt8(adler & 0xFF)]
    return out
  }

  private func writeLiteral(_ value: Int, _ bits: inout BitWriter) { writeSymbol(value, &bits) }

  private func writeSymbol(_ symbol: Int, _ bits: inout BitWriter) {
    switch symbol {
    case 0...143: bits.writeReversed(0x30 + symbol, 8)
    case 144...255: bits.writeReversed(0x190 + symbol - 144, 9)
    case 256...279: bits.writeReversed(symbol - 256, 7)
    default: bits.writeReversed(0xC0 + symbol - 280, 8)
    }
  }

  private func writeLength(_ length: Int, _ bits: inout BitWriter) {
    if length == 258 {
      writeSymbol(285, &bits)
      return
    }
    let bases = [
      3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195,
      227,
    ]
    let extras = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5]
    var code = bases.count - 1
    while bases[code] > length { code -= 1 }
    writeSymbol(257 + code, &bits)
    bits.write(length - bases[code], extras[code])
  }
}

/// Writes deflate's LSB-first bit stream.
struct BitWriter {
  private var bytes: [UInt8] = []
  private var current = 0
  private var used = 0

  mutating func write(_ value: Int, _ count: Int) {
    for i in 0..<count {
      current |= ((value >> i) & 1) << used
      used += 1
      if used == 8 {
        bytes.append(UInt8(current))
        current = 0
        used = 0
      }
    }
  }

  /// Huffman codes go most significant bit first.
  mutating func writeReversed(_ code: Int, _ count: Int) {
    for i in stride(from: count - 1, through: 0, by: -1) { write((code >> i) & 1, 1) }
  }

  mutating func finish() -> [UInt8] {
    if used > 0 { bytes.append(UInt8(current)) }
    return bytes
  }
}
