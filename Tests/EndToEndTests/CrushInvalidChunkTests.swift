import Foundation
import ShelfPNG
import ShelfTestSupport
import Testing

/// `shelf crush` drops the ancillary chunks libpng rejects (empty, malformed, repeated or out
/// of place), one warning per chunk, so that strict decoders (pypng, Pillow) read the output;
/// every other chunk keeps its place.
@Suite struct CrushInvalidChunkTests {
  static func bigEndian(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
  }

  static let width = 32
  static let height = 32

  /// The test image's RGB pixels: a gradient.
  static let rgb: [UInt8] = (0..<(width * height)).flatMap { index -> [UInt8] in
    let value = UInt8((index % width * 8 + index / width) & 0xFF)
    return [value, value, value]
  }

  /// Every ancillary chunk type libpng knows, empty, as in libpng's `empty_ancillary_chunks.png`
  /// (CRCs valid), with libpng 1.6's reason for rejecting each.
  static let emptyChunks: [(name: String, reason: String)] = [
    ("cHRM", "invalid"), ("gAMA", "invalid"), ("iCCP", "too short"), ("sRGB", "invalid"),
    ("sBIT", "invalid"), ("bKGD", "invalid"), ("pHYs", "duplicate"), ("oFFs", "invalid"),
    ("pCAL", "invalid"), ("sCAL", "invalid"), ("sPLT", "malformed sPLT chunk"), ("tIME", "invalid"),
    ("zTXt", "bad keyword"), ("iTXt", "bad keyword"), ("eXIf", "too short"), ("hIST", "out of place"),
    ("tRNS", "invalid"),
  ]

  /// The test file's chunks, and for each the reason libpng rejects it (nil: valid).
  static func chunks() -> [(chunk: PNGChunk, rejected: String?)] {
    let gamma = PNGChunk("gAMA", data: bigEndian(45455))
    let physical = PNGChunk("pHYs", data: bigEndian(2835) + bigEndian(2835) + [1])
    var raw: [UInt8] = []
    for y in 0..<height {
      raw.append(0)
      raw += rgb[(y * width * 3)..<((y + 1) * width * 3)]
    }
    var list: [(PNGChunk, String?)] = [
      (PNGChunk("IHDR", data: bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 2, 0, 0, 0]), nil),
      (gamma, nil), (physical, nil), (PNGChunk("tEXt", data: Array("Comment\u{0}kept".utf8)), nil),
    ]
    list += emptyChunks.map { (PNGChunk($0.name, data: []), $0.reason) }
    list += [
      (PNGChunk("tEXt", data: []), nil),  // libpng accepts an empty tEXt
      (physical, "duplicate"),
      (PNGChunk("IDAT", data: StoredZlib.stream(raw)), nil),
      (PNGChunk("tIME", data: [0x07, 0xEA, 1, 2, 3, 4, 5]), nil),
      (gamma, "out of place"),
      (PNGChunk("IEND", data: []), nil),
    ]
    return list
  }

  /// The byte offset of every chunk in a file made of `chunks`.
  static func offsets(_ chunks: [PNGChunk]) -> [Int] {
    var offset = 8
    return chunks.map { chunk in
      defer { offset += 12 + chunk.data.count }
      return offset
    }
  }

  /// pypng's RGBA8 decode of a file, or nil when pypng rejects it.
  static func pypngRGBA(_ path: String) throws -> [UInt8]? {
    let script = """
      import png, sys
      width, height, rows, info = png.Reader(filename=sys.argv[1]).asRGBA8()
      sys.stdout.buffer.write(b''.join(bytes(row) for row in rows))
      """
    let outcome = try ExternalTool.run(["python3", "-c", script, path])
    return outcome.status == 0 ? [UInt8](outcome.stdout) : nil
  }

  /// Whether Pillow opens and decodes a file.
  static func pillowDecodes(_ path: String) throws -> Bool {
    let script = "import sys\nfrom PIL import Image\nImage.open(sys.argv[1]).load()"
    return try ExternalTool.run(["python3", "-c", script, path]).status == 0
  }

  @Test func emptyAncillaryChunksAreDroppedWithAWarningEach() throws {
    let dir = try TemporaryDirectory()
    let list = Self.chunks()
    let input = try dir.write("empty_ancillary_chunks.png", PNGChunkWriter().bytes(of: list.map(\.chunk)))
    let original = [UInt8](FileManager.default.contents(atPath: input) ?? Data())
    // The input is what strict decoders refuse.
    #expect(try Self.pypngRGBA(input) == nil)
    #expect(try !Self.pillowDecodes(input))

    let result = try ShelfProcess.run(["crush", "-o", dir.file("out"), input])
    #expect(result.status == 0)
    #expect(result.stdout.hasPrefix("Crushed 1 of 1 file: "))
    let offsets = Self.offsets(list.map(\.chunk))
    let expectedWarnings = list.indices.compactMap { index -> String? in
      guard let reason = list[index].rejected else { return nil }
      return
        "warning: \(input): dropped \(list[index].chunk.name) chunk at byte \(offsets[index]) (libpng: \(reason))\n"
    }
    #expect(expectedWarnings.count == 19)
    #expect(result.stderr == expectedWarnings.joined())
    #expect([UInt8](FileManager.default.contents(atPath: input) ?? Data()) == original, "input untouched")

    // Every other chunk is kept, in its place and unchanged (the image data is re-encoded).
    let output = dir.file("out/empty_ancillary_chunks.png")
    let written = try PNGChunkReader().chunks(
      of: [UInt8](FileManager.default.contents(atPath: output) ?? Data()))
    let kept = list.filter { $0.rejected == nil }.map(\.chunk)
    #expect(written.map(\.name) == kept.map(\.name))
    #expect(
      written.filter { $0.name != "IHDR" && $0.name != "IDAT" }
        == kept.filter { $0.name != "IHDR" && $0.name != "IDAT" })

    // pypng and Pillow now read it, with the original pixels.
    var rgba: [UInt8] = []
    for index in stride(from: 0, to: Self.rgb.count, by: 3) { rgba += Self.rgb[index..<(index + 3)] + [255] }
    #expect(try Self.pypngRGBA(output) == rgba)
    #expect(try Self.pillowDecodes(output))
    // libpng has nothing left to reject: a second crush warns about nothing.
    let again = try ShelfProcess.run(["crush", "-o", dir.file("again"), output])
    #expect(again.status == 0)
    #expect(again.stderr.isEmpty)
  }

  @Test func aFileThatCannotShrinkLosesOnlyItsRejectedChunks() throws {
    // An already crushed file with an empty gAMA and a second tIME added: its image data cannot
    // be made smaller, so the output is the input without those two chunks, byte for byte.
    let dir = try TemporaryDirectory()
    let source = try dir.copy(fromRepository: "Tests/Fixtures/pngsuite/basn2c08.png")
    #expect(try ShelfProcess.run(["crush", "-o", dir.file("optimal"), source]).status == 0)
    let optimal = try PNGChunkReader().chunks(
      of: [UInt8](FileManager.default.contents(atPath: dir.file("optimal/basn2c08.png")) ?? Data()))
    let time = PNGChunk("tIME", data: [0x07, 0xEA, 1, 2, 3, 4, 5])
    var chunks = optimal
    chunks.insert(PNGChunk("gAMA", data: []), at: 1)
    chunks.insert(contentsOf: [time, time], at: chunks.count - 1)
    let input = try dir.write("a.png", PNGChunkWriter().bytes(of: chunks))
    let offsets = Self.offsets(chunks)

    let result = try ShelfProcess.run(["crush", "-v", "--in-place", input])
    #expect(result.status == 0)
    #expect(
      result.stderr
        == "warning: \(input): dropped gAMA chunk at byte 33 (libpng: invalid)\n"
        + "warning: \(input): dropped tIME chunk at byte \(offsets[chunks.count - 2]) (libpng: duplicate)\n")
    #expect(result.stdout.contains("; 2 invalid chunks dropped\n"))
    var expected = optimal
    expected.insert(time, at: expected.count - 1)
    #expect(
      [UInt8](FileManager.default.contents(atPath: input) ?? Data()) == PNGChunkWriter().bytes(of: expected))
    #expect(try Self.pypngRGBA(input) != nil)
  }
}
