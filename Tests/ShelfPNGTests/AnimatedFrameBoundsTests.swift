import ShelfCore
import ShelfPNG
import ShelfTestSupport
import Testing

/// An animated PNG whose second frame's `fcTL` claims 4294967295 × 4294967295 pixels: the
/// frame's size (rows × bytes per row) overflowed while `crush` recompressed it.
@Suite struct AnimatedFrameBoundsTests {
  static func fcTL(_ sequence: UInt64, width: UInt64, height: UInt64, x: UInt64 = 0, y: UInt64 = 0)
    -> PNGChunk
  {
    let fields = [sequence, width, height, x, y].flatMap { HostileFiles.bigEndian($0, count: 4) }
    return PNGChunk("fcTL", data: fields + [0, 1, 0, 10, 0, 0])
  }

  /// A 4×4 RGBA APNG of two frames; the second one's fcTL is `second`.
  static func animation(second: PNGChunk) -> [UInt8] {
    var raw: [UInt8] = []
    for _ in 0..<4 { raw += [0] + [UInt8](repeating: 0x80, count: 16) }
    let stream = Synth.storedZlib(raw)
    return Synth.file([
      Synth.header(width: 4, height: 4, depth: 8, colorType: 6),
      PNGChunk("acTL", data: HostileFiles.bigEndian(2, count: 4) + HostileFiles.bigEndian(0, count: 4)),
      fcTL(0, width: 4, height: 4), PNGChunk("IDAT", data: stream), second,
      PNGChunk("fdAT", data: HostileFiles.bigEndian(2, count: 4) + stream), PNGChunk("IEND", data: []),
    ])
  }

  @Test func aFrameOf4294967295SquaredPixelsIsCorrupt() {
    let bytes = Self.animation(second: Self.fcTL(1, width: 0xFFFF_FFFF, height: 0xFFFF_FFFF))
    #expect(
      throws: PNGError(.corrupt("fcTL of frame 2: 4294967295×4294967295 at 0,0 does not fit the 4×4 image"))
    ) { try PNGOptimizer().optimize(bytes: bytes) }
  }

  @Test func aFrameOutsideTheCanvasIsCorrupt() {
    let bytes = Self.animation(second: Self.fcTL(1, width: 4, height: 4, x: 0xFFFF_FFFF))
    #expect(
      throws: PNGError(.corrupt("fcTL of frame 2: 4×4 at 4294967295,0 does not fit the 4×4 image"))
    ) { try PNGOptimizer().optimize(bytes: bytes) }
  }

  @Test func aFrameInsideTheCanvasIsRecompressed() throws {
    let bytes = Self.animation(second: Self.fcTL(1, width: 2, height: 2, x: 2, y: 2))
    let result = try PNGOptimizer().optimize(bytes: bytes)
    #expect(result.bytes.count <= bytes.count)
  }
}
