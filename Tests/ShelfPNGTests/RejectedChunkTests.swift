import ShelfPNG
import ShelfTestSupport
import Testing

/// Which chunks count as rejected: only those libpng ignores for their structure; warnings
/// about chunks libpng keeps leave them in place.
@Suite struct RejectedChunkTests {
  static func file(_ ancillary: [PNGChunk], after: [PNGChunk] = []) -> [UInt8] {
    let raw: [UInt8] = [0, 10, 20, 30, 0, 40, 50, 60]
    return Synth.file(
      [Synth.header(width: 1, height: 2, depth: 8, colorType: 2)] + ancillary
        + [PNGChunk("IDAT", data: StoredZlib.stream(raw))] + after + [PNGChunk("IEND", data: [])])
  }

  static let gammaOne = PNGChunk("gAMA", data: [0, 1, 0x86, 0xA0])

  @Test func chunksLibpngOnlyWarnsAboutAreKept() throws {
    // libpng warns "gamma value does not match sRGB" on both orders, and keeps the chunks.
    for order in [
      [Self.gammaOne, PNGChunk("sRGB", data: [0])], [PNGChunk("sRGB", data: [0]), Self.gammaOne],
    ] {
      let decoded = try PNGDecoder().decode(bytes: Self.file(order))
      #expect(decoded.rejectedChunks.isEmpty)
      let result = try PNGOptimizer().optimize(bytes: Self.file(order))
      #expect(result.notes.isEmpty)
      #expect(try PNGChunkReader().chunks(of: result.bytes).filter { !$0.isCritical } == order)
    }
  }

  @Test func rejectionsNameTheChunkItsOffsetAndLibpngsReason() throws {
    let time = PNGChunk("tIME", data: [0x07, 0xEA, 1, 2, 3, 4, 5])
    let bytes = Self.file(
      [Self.gammaOne, Self.gammaOne], after: [time, time, Self.gammaOne])
    let chunks = try PNGChunkReader().chunks(of: bytes)
    var offsets: [Int] = []
    var offset = 8
    for chunk in chunks {
      offsets.append(offset)
      offset += 12 + chunk.data.count
    }
    let rejected = try PNGDecoder().decode(bytes: bytes).rejectedChunks
    #expect(
      rejected == [
        PNGRejectedChunk(index: 2, name: "gAMA", offset: 49, reason: "duplicate"),
        PNGRejectedChunk(index: 5, name: "tIME", offset: offsets[5], reason: "duplicate"),
        PNGRejectedChunk(index: 6, name: "gAMA", offset: offsets[6], reason: "out of place"),
      ])
    #expect(rejected[0].description == "gAMA chunk at byte 49 (libpng: duplicate)")
    // libpng's reason may carry its own prefix: it is kept whole.
    #expect(
      try PNGDecoder().decode(bytes: Self.file([PNGChunk("sRGB", data: [9])])).rejectedChunks == [
        PNGRejectedChunk(
          index: 1, name: "sRGB", offset: 33, reason: "profile 'sRGB': 9h: invalid sRGB rendering intent")
      ])
  }

  @Test func cgbiFilesAreNotChecked() throws {
    // libpng never sees a CgBI file's ancillary chunks: none can be judged, none is dropped.
    let cgbi = try PNGOptimizer(options: PNGOptimizationOptions(cgbi: .convertToCgBI)).optimize(
      bytes: Self.file([PNGChunk("tEXt", data: Array("k\u{0}v".utf8))]))
    #expect(try PNGDecoder().decode(bytes: cgbi.bytes).rejectedChunks.isEmpty)
  }
}
