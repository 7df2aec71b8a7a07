import Foundation
import ShelfPNG
import ShelfTestSupport
import Testing

/// `shelf crush` on animated PNGs: every frame's image data is recompressed with its filtered
/// bytes untouched, so each frame decodes (in Pillow's APNG decoder) exactly as before; the
/// animation chunks keep their content, with one data chunk per frame and renumbered sequence
/// numbers.
@Suite struct CrushAnimatedPNGTests {
  /// Writes a 5-frame RGBA animation with Pillow (sub-frame rectangles, every disposal and blend
  /// operation), zlib level 1 so there is something to win.
  static func makeAnimation(_ path: String) throws {
    let script = """
      import sys
      from PIL import Image, ImageDraw
      frames = []
      for i in range(5):
          im = Image.new('RGBA', (64, 48), (20, 40, 60, 255))
          draw = ImageDraw.Draw(im)
          draw.ellipse((5 + i * 8, 5, 25 + i * 8, 25), fill=(200, 30 * i, 90, 180))
          draw.rectangle((0, 40, 63, 47), fill=(i * 50, 255 - i * 50, 0, 255))
          frames.append(im)
      frames[0].save(sys.argv[1], save_all=True, append_images=frames[1:], compress_level=1,
                     duration=[100, 120, 80, 100, 200], loop=0, disposal=[0, 1, 2, 0, 1], blend=[0, 1, 0, 1, 0])
      """
    let outcome = try ExternalTool.run(["python3", "-c", script, path])
    #expect(outcome.status == 0, "\(outcome.stderr)")
  }

  /// What Pillow's APNG decoder sees, frame by frame: a digest of the composited RGBA pixels,
  /// the timing and the disposal and blend operations; and a digest of each frame's inflated
  /// (still filtered) image data, read with zlib straight from the chunks.
  static func frames(_ path: String) throws -> [String] {
    let script = """
      import hashlib, struct, sys, zlib
      from PIL import Image
      im = Image.open(sys.argv[1])
      for index in range(im.n_frames):
          im.seek(index)
          rgba = im.convert('RGBA').tobytes()
          print('frame', index, hashlib.sha256(rgba).hexdigest(), im.info.get('duration'),
                im.dispose_op, im.blend_op)
      data = open(sys.argv[1], 'rb').read()
      offset, streams, current = 8, [], None
      while offset < len(data):
          length, kind = struct.unpack('>I4s', data[offset:offset + 8])
          body = data[offset + 8:offset + 8 + length]
          if kind == b'IDAT' or kind == b'fdAT':
              if current is None or current[0] != kind:
                  current = [kind, b'']
                  streams.append(current)
              current[1] += body if kind == b'IDAT' else body[4:]
          else:
              current = None
          offset += 12 + length
      for kind, stream in streams:
          print('stream', kind.decode(), hashlib.sha256(zlib.decompress(stream)).hexdigest())
      """
    let outcome = try ExternalTool.run(["python3", "-c", script, path])
    #expect(outcome.status == 0, "\(outcome.stderr)")
    return String(decoding: outcome.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
  }

  static func bigEndian(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
  }

  /// The animation with each frame's data split over two chunks (sequence numbers renumbered)
  /// and a tEXt chunk before the first frame, as other encoders write them.
  static func splitFrames(_ chunks: [PNGChunk]) -> [PNGChunk] {
    var out: [PNGChunk] = []
    var sequence: UInt32 = 0
    for chunk in chunks {
      switch chunk.name {
      case "acTL":
        out += [chunk, PNGChunk("tEXt", data: Array("Title\u{0}five frames".utf8))]
      case "fcTL":
        out.append(PNGChunk("fcTL", data: bigEndian(sequence) + chunk.data[4...]))
        sequence += 1
      case "IDAT":
        let half = chunk.data.count / 2
        out += [
          PNGChunk("IDAT", data: Array(chunk.data[..<half])),
          PNGChunk("IDAT", data: Array(chunk.data[half...])),
        ]
      case "fdAT":
        let body = Array(chunk.data[4...])
        let half = body.count / 2
        for part in [Array(body[..<half]), Array(body[half...])] {
          out.append(PNGChunk("fdAT", data: bigEndian(sequence) + part))
          sequence += 1
        }
      default:
        out.append(chunk)
      }
    }
    return out
  }

  @Test func everyFrameIsRecompressedAndDecodesAsBefore() throws {
    let dir = try TemporaryDirectory()
    try Self.makeAnimation(dir.file("pillow.png"))
    let pillow = try PNGChunkReader().chunks(
      of: [UInt8](FileManager.default.contents(atPath: dir.file("pillow.png")) ?? Data()))
    let input = try dir.write("anim.png", PNGChunkWriter().bytes(of: Self.splitFrames(pillow)))
    let original = [UInt8](FileManager.default.contents(atPath: input) ?? Data())
    let before = try Self.frames(input)
    #expect(before.count == 10)  // five frames, five image data streams
    #expect(Set(before.prefix(5).map { $0.split(separator: " ")[2] }).count == 5, "the frames differ")

    let result = try ShelfProcess.run(["crush", "-v", "-o", dir.file("out"), input])
    #expect(result.status == 0)
    #expect(result.stderr.isEmpty)
    let outputPath = dir.file("out/anim.png")
    let output = [UInt8](FileManager.default.contents(atPath: outputPath) ?? Data())
    #expect(output.count < original.count)
    #expect(
      result.stdout.hasPrefix(
        "\(input): \(original.count) -> \(output.count) bytes (-"))
    #expect(result.stdout.contains("%), animated PNG, frames recompressed\n"))
    #expect([UInt8](FileManager.default.contents(atPath: input) ?? Data()) == original, "input untouched")

    // Pillow decodes every frame to the same pixels, timing, disposal and blending, and each
    // frame's filtered data is the same bytes.
    #expect(try Self.frames(outputPath) == before)
    // One data chunk per frame; acTL, tEXt and every fcTL field but the sequence number as they
    // were; sequence numbers 0, 1, 2… over fcTL and fdAT.
    let written = try PNGChunkReader().chunks(of: output)
    #expect(
      written.map(\.name) == [
        "IHDR", "acTL", "tEXt", "fcTL", "IDAT", "fcTL", "fdAT", "fcTL", "fdAT", "fcTL", "fdAT", "fcTL",
        "fdAT",
        "IEND",
      ])
    let inputChunks = Self.splitFrames(pillow)
    #expect(
      written.filter { $0.name == "acTL" || $0.name == "tEXt" }
        == inputChunks.filter { $0.name == "acTL" || $0.name == "tEXt" })
    #expect(
      written.filter { $0.name == "fcTL" }.map { Array($0.data[4...]) }
        == inputChunks.filter { $0.name == "fcTL" }.map { Array($0.data[4...]) })
    let sequence = written.filter { $0.name == "fcTL" || $0.name == "fdAT" }.map { Array($0.data[0..<4]) }
    #expect(sequence == (0..<UInt32(sequence.count)).map(Self.bigEndian))
  }

  @Test func iphoneKeepsAnAnimationAStandardAPNG() throws {
    // CgBI has no animated form: with --iphone an animated PNG is crushed as without it and
    // stays a standard APNG, every frame as it was.
    let dir = try TemporaryDirectory()
    let input = dir.file("anim.png")
    try Self.makeAnimation(input)
    let before = try Self.frames(input)
    let result = try ShelfProcess.run(["crush", "-v", "--iphone", "-o", dir.file("ios"), input])
    #expect(result.status == 0)
    #expect(result.stderr.isEmpty)
    #expect(result.stdout.contains("%), animated PNG, frames recompressed\n"))
    let output = [UInt8](FileManager.default.contents(atPath: dir.file("ios/anim.png")) ?? Data())
    #expect(try PNGChunkReader().chunks(of: output).prefix(2).map(\.name) == ["IHDR", "acTL"])
    #expect(try Self.frames(dir.file("ios/anim.png")) == before)
  }
}
