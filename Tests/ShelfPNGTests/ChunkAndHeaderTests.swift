import Foundation
import ShelfCore
import ShelfPNG
import Testing

/// The container layer: chunk reading/writing with CRCs, the cheap header read, chunk policy.
@Suite struct ChunkAndHeaderTests {
  @Test func chunksRoundTripByteForByte() throws {
    for name in Fixtures.validSuiteNames() {
      let bytes = Fixtures.bytes(name)
      let chunks = try PNGChunkReader().chunks(of: bytes)
      #expect(PNGChunkWriter().bytes(of: chunks) == bytes, "\(name)")
    }
  }

  @Test func writerComputesTheCRC() {
    // IEND's CRC is the well-known AE 42 60 82.
    let bytes = PNGChunkWriter().bytes(of: [PNGChunk("IEND", data: [])])
    #expect(Array(bytes.suffix(12)) == [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82])
  }

  @Test func headerInfoOfSuiteFiles() throws {
    let info = try PNGHeaderInfo.read(bytes: Fixtures.bytes("basi3p04.png"))
    #expect(info.width == 32 && info.height == 32)
    #expect(info.bitDepth == 4 && info.colorType == .palette)
    #expect(info.interlaced && !info.hasAlpha && !info.isCgBI)
    #expect(info.animationFrameCount == nil)
    #expect(info.chunkNames == ["IHDR", "gAMA", "sBIT", "PLTE", "IDAT", "IEND"])
    let alpha = try PNGHeaderInfo.read(bytes: Fixtures.bytes("tbbn3p08.png"))
    #expect(alpha.hasAlpha)
    let sixteen = try PNGHeaderInfo.read(bytes: Fixtures.bytes("basn6a16.png"))
    #expect(sixteen.bitDepth == 16 && sixteen.colorType == .rgba && sixteen.hasAlpha)
  }

  @Test func headerInfoFromAFileSeeksOverData() throws {
    let path = RawPath(Fixtures.pngSuite.appendingPathComponent("basn2c08.png").path)
    let info = try PNGHeaderInfo.read(path: path)
    #expect(info.width == 32 && info.colorType == .rgb && info.chunkNames.last == "IEND")
    #expect(throws: PNGError.self) { try PNGHeaderInfo.read(bytes: []) }
    let error = #expect(throws: PNGError.self) {
      try PNGHeaderInfo.read(path: RawPath(Fixtures.pngSuite.appendingPathComponent("xs1n0g01.png").path))
    }
    #expect(error?.description.hasSuffix("xs1n0g01.png: not a PNG file (no PNG signature)") == true)
  }

  /// The fcTL chunks are counted, not acTL's claim (here 3 for 2 frames); an acTL without
  /// any fcTL is one still frame.
  @Test func animationFramesAreTheFrameControlChunks() throws {
    let actl: [UInt8] = [0, 0, 0, 3, 0, 0, 0, 0]
    let fctl = [UInt8](repeating: 0, count: 26)
    let idat = PNGChunk("IDAT", data: Synth.storedZlib([0, 7]))
    let header = Synth.header(width: 1, height: 1, depth: 8, colorType: 0)
    let twoFrames = Synth.file([
      header, PNGChunk("acTL", data: actl), PNGChunk("fcTL", data: fctl), idat,
      PNGChunk("fcTL", data: fctl), PNGChunk("fdAT", data: [0, 0, 0, 1] + Synth.storedZlib([0, 7])),
      PNGChunk("IEND", data: []),
    ])
    #expect(try PNGHeaderInfo.read(bytes: twoFrames).animationFrameCount == 2)
    let noFrameControl = Synth.file([header, PNGChunk("acTL", data: actl), idat, PNGChunk("IEND", data: [])])
    #expect(try PNGHeaderInfo.read(bytes: noFrameControl).animationFrameCount == 1)
  }

  @Test func animatedFramesAreRecompressedExactly() throws {
    func be(_ v: UInt32) -> [UInt8] {
      [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }
    func frameControl(_ sequence: UInt32, _ w: UInt32, _ h: UInt32, _ x: UInt32, _ y: UInt32) -> PNGChunk {
      PNGChunk("fcTL", data: be(sequence) + be(w) + be(h) + be(x) + be(y) + [0, 1, 0, 10, 0, 0])
    }
    // Frame 1: 16x16 gray gradient; frame 2: 8x8 checkerboard, its data split over two fdATs.
    var first: [UInt8] = []
    for y in 0..<16 { first += [0] + (0..<16).map { UInt8((y * 16 + $0) & 0xFF) } }
    var second: [UInt8] = []
    for y in 0..<8 { second += [0] + (0..<8).map { UInt8(($0 + y) % 2 == 0 ? 0 : 255) } }
    let secondStream = Synth.storedZlib(second)
    let half = secondStream.count / 2
    let input = Synth.file([
      Synth.header(width: 16, height: 16, depth: 8, colorType: 0),
      PNGChunk("acTL", data: be(2) + be(0)),
      frameControl(0, 16, 16, 0, 0),
      PNGChunk("IDAT", data: Synth.storedZlib(first)),
      frameControl(1, 8, 8, 4, 4),
      PNGChunk("fdAT", data: be(2) + Array(secondStream[..<half])),
      PNGChunk("fdAT", data: be(3) + Array(secondStream[half...])),
      PNGChunk("tEXt", data: Array("Comment\u{0}kept".utf8)),
      PNGChunk("IEND", data: []),
    ])
    let result = try PNGOptimizer().optimize(bytes: input)
    #expect(result.changed && result.bytes.count < input.count)
    let chunks = try PNGChunkReader().chunks(of: result.bytes)
    #expect(chunks.map(\.name) == ["IHDR", "acTL", "fcTL", "IDAT", "fcTL", "fdAT", "tEXt", "IEND"])
    #expect(chunks[2].data.prefix(4) == [0, 0, 0, 0])
    #expect(chunks[4].data.prefix(4) == [0, 0, 0, 1])
    #expect(chunks[5].data.prefix(4) == [0, 0, 0, 2])
    #expect(Array(chunks[4].data[4...]) == Array(frameControl(1, 8, 8, 4, 4).data[4...]))
    // Both frames decode to exactly the original pixels.
    #expect(try PNGDecoder().decode(bytes: result.bytes).image == PNGDecoder().decode(bytes: input).image)
    let secondFrame = Synth.file([
      Synth.header(width: 8, height: 8, depth: 8, colorType: 0),
      PNGChunk("IDAT", data: Array(chunks[5].data[4...])), PNGChunk("IEND", data: []),
    ])
    let expected = Synth.file([
      Synth.header(width: 8, height: 8, depth: 8, colorType: 0),
      PNGChunk("IDAT", data: secondStream), PNGChunk("IEND", data: []),
    ])
    #expect(try PNGDecoder().decode(bytes: secondFrame).image == PNGDecoder().decode(bytes: expected).image)
  }

  @Test func ancillaryChunksAreKeptInPlaceByDefault() throws {
    let input = Fixtures.bytes("ct1n0g04.png")  // has tEXt chunks
    let inputNames = try PNGHeaderInfo.read(bytes: input).chunkNames
    let result = try PNGOptimizer().optimize(bytes: input)
    let names = try PNGHeaderInfo.read(bytes: result.bytes).chunkNames
    #expect(names.filter { $0 == "tEXt" }.count == inputNames.filter { $0 == "tEXt" }.count)
    let stripped = try PNGOptimizer(options: PNGOptimizationOptions(strip: .all)).optimize(bytes: input)
    let strippedNames = try PNGHeaderInfo.read(bytes: stripped.bytes).chunkNames
    #expect(strippedNames.allSatisfy { ["IHDR", "PLTE", "tRNS", "IDAT", "IEND"].contains($0) })
  }

  @Test func significantBitsAreKeptOnlyWhenTheyCarryInformation() throws {
    // An opaque grey ramp stored as RGBA: the crush reduces it to one channel.
    let pixels = (0..<256).flatMap { v -> [UInt8] in
      let g = UInt8(v & 0xF8); return [g, g, g, 255]
    }
    func crushed(significantBits: [UInt8]) throws -> [UInt8]? {
      let plain = Synth.rgbaFile(width: 16, height: 16, pixels: pixels)
      var chunks = try PNGChunkReader().chunks(of: plain)
      chunks.insert(PNGChunk("sBIT", data: significantBits), at: 1)
      let result = try PNGOptimizer().optimize(bytes: Synth.file(chunks))
      return try PNGChunkReader().chunks(of: result.bytes).first { $0.name == "sBIT" }?.data
    }
    // Five significant bits of grey survive the reduction to a single channel.
    let kept = try #require(try crushed(significantBits: [5, 5, 5, 8]))
    #expect(!kept.isEmpty && kept.allSatisfy { $0 == 5 })
    // "Every bit is significant" tells a decoder nothing: the chunk is dropped.
    #expect(try crushed(significantBits: [8, 8, 8, 8]) == nil)
  }

  @Test func safeStripKeepsColourChunks() throws {
    let input = Fixtures.bytes("g04n2c08.png")  // gAMA
    let result = try PNGOptimizer(options: PNGOptimizationOptions(strip: .safe)).optimize(bytes: input)
    #expect(try PNGHeaderInfo.read(bytes: result.bytes).chunkNames.contains("gAMA"))
  }

  @Test func backgroundChunkStaysValid() throws {
    for name in [
      "bgai4a08.png", "bgbn4a08.png", "bggn4a16.png", "bgwn6a08.png", "bgyn6a16.png", "tbbn3p08.png",
      "tbwn3p08.png",
    ] {
      let input = Fixtures.bytes(name)
      let result = try PNGOptimizer().optimize(bytes: input)
      let inputHasBackground = try PNGHeaderInfo.read(bytes: input).chunkNames.contains("bKGD")
      let outputHasBackground = try PNGHeaderInfo.read(bytes: result.bytes).chunkNames.contains("bKGD")
      #expect(inputHasBackground == outputHasBackground, "\(name)")
    }
  }

  @Test func cleaningTransparentColourOnlyTouchesTransparentPixels() throws {
    let input = Fixtures.bytes("tbrn2c08.png")
    let original = try PNGDecoder().decode(bytes: input).image
    let result = try PNGOptimizer(options: PNGOptimizationOptions(cleanTransparentColor: true)).optimize(
      bytes: input)
    let output = try PNGDecoder().decode(bytes: result.bytes).image
    #expect(output.hasSamePixels(as: original, ignoringTransparentColor: true))
  }

  @Test func maxLevelIsSmallerThanDefault() throws {
    let input = Fixtures.bytes("basn6a08.png")
    let standard = try PNGOptimizer().optimize(bytes: input)
    let max = try PNGOptimizer(options: PNGOptimizationOptions(level: .max, parallelTrials: 2)).optimize(
      bytes: input)
    #expect(max.bytes.count <= standard.bytes.count)
    #expect(try PNGDecoder().decode(bytes: max.bytes).image == PNGDecoder().decode(bytes: input).image)
  }

  @Test func finalistsAreComparedAsWholeFiles() throws {
    // 245 colours in 32×32 pixels: the palette's image data is half the size of RGB's, but
    // with its 747-byte PLTE the file is bigger. Level 3 compresses both in full and must keep
    // the smaller file, as level 2 (one finalist, ranked with the PLTE counted) does.
    let input = Fixtures.bytes("tp0n3p08.png")
    let standard = try PNGOptimizer().optimize(bytes: input)
    let level3 = PNGOptimizationOptions(level: try #require(PNGOptimizationLevel("3")))
    let stronger = try PNGOptimizer(options: level3).optimize(bytes: input)
    #expect(stronger.bytes.count <= standard.bytes.count)
    #expect(try PNGHeaderInfo.read(bytes: stronger.bytes).colorType == .rgb)
  }

  @Test func brokenColourProfileIsDroppedNotFatal() throws {
    // An iCCP chunk libpng rejects (its profile inflates to 4 bytes; the kind of broken profile
    // that makes other tools fail or write empty files): the pixels still crush, and the chunk,
    // which libpng ignores, is dropped with a note naming it.
    let base = try PNGChunkReader().chunks(of: Fixtures.bytes("basn2c08.png"))
    let profile = PNGChunk("iCCP", data: Array("sRGB\u{0}".utf8) + [0, 0x78, 0x9C, 1, 2, 3, 4])
    let input = PNGChunkWriter().bytes(of: [base[0], profile] + base.dropFirst())
    let result = try PNGOptimizer().optimize(bytes: input)
    let output = try PNGChunkReader().chunks(of: result.bytes)
    #expect(!output.contains(profile))
    #expect(result.notes.map(\.description) == ["dropped iCCP chunk at byte 33 (libpng: too short)"])
    #expect(
      try PNGDecoder().decode(bytes: result.bytes).image == PNGDecoder().decode(bytes: input).image)
  }

  @Test func levelsParse() {
    #expect(PNGOptimizationLevel("max") == .max)
    #expect(PNGOptimizationLevel("2") == .standard)
    #expect(PNGOptimizationLevel("7") == nil)
    #expect(PNGOptimizationLevel("x") == nil)
  }
}
