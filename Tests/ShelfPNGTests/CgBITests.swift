import ShelfPNG
import ShelfTestSupport
import Testing

/// iPhone-optimized PNGs: reading every filter and Adam7, writing as Xcode does, round trips.
@Suite struct CgBITests {
  /// Straight RGBA test pixels: gradients, opaque and translucent areas, fully transparent ones.
  static func straightPixels(width: Int, height: Int, translucent: Bool) -> [UInt8] {
    var out: [UInt8] = []
    for y in 0..<height {
      for x in 0..<width {
        let alpha = translucent ? [0, 1, 37, 128, 200, 254, 255][(x + y) % 7] : 255
        out += [
          UInt8((x * 37 + y * 11) & 0xFF), UInt8((x * 5 + y * 29) & 0xFF), UInt8((x * y) & 0xFF),
          UInt8(alpha),
        ]
      }
    }
    return out
  }

  static func unpremultiply(_ bgra: [UInt8]) -> [UInt8] {
    var out = bgra
    for i in stride(from: 0, to: bgra.count, by: 4) {
      let a = Int(bgra[i + 3])
      for (target, source) in [(0, 2), (1, 1), (2, 0)] {
        out[i + target] = a == 0 ? 0 : UInt8(min(255, (Int(bgra[i + source]) * 255 + a / 2) / a))
      }
    }
    return out
  }

  /// Filters 4-byte pixel rows with the given filter per row (PNG rules, written out plainly).
  static func filterRows(_ pixels: [UInt8], width: Int, height: Int, filters: [UInt8]) -> [UInt8] {
    let stride = width * 4
    var out: [UInt8] = []
    for y in 0..<height {
      let f = filters[y % filters.count]
      out.append(f)
      for i in 0..<stride {
        let x = Int(pixels[y * stride + i])
        let a = i >= 4 ? Int(pixels[y * stride + i - 4]) : 0
        let b = y > 0 ? Int(pixels[(y - 1) * stride + i]) : 0
        let c = i >= 4 && y > 0 ? Int(pixels[(y - 1) * stride + i - 4]) : 0
        let predictor: Int
        switch f {
        case 0: predictor = 0
        case 1: predictor = a
        case 2: predictor = b
        case 3: predictor = (a + b) / 2
        default:
          let p = a + b - c
          let pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
          predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c
        }
        out.append(UInt8((x - predictor) & 0xFF))
      }
    }
    return out
  }

  /// Raw deflate of stored blocks (what a CgBI IDAT holds, uncompressed here).
  static func rawStored(_ data: [UInt8]) -> [UInt8] {
    let zlib = Synth.storedZlib(data)
    return Array(zlib[2..<(zlib.count - 4)])
  }

  static func cgbiFile(bgra: [UInt8], width: Int, height: Int, interlaced: Bool, zlibHeader: Bool = false)
    -> [UInt8]
  {
    var filtered: [UInt8] = []
    if interlaced {
      let passes = [
        (0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2),
      ]
      for (pass, (x0, y0, dx, dy)) in passes.enumerated() {
        var sub: [UInt8] = []
        var w = 0
        var h = 0
        for y in stride(from: y0, to: height, by: dy) {
          h += 1
          w = 0
          for x in stride(from: x0, to: width, by: dx) {
            w += 1
            sub += bgra[((y * width + x) * 4)..<((y * width + x) * 4 + 4)]
          }
        }
        if w > 0 && h > 0 {
          filtered += filterRows(sub, width: w, height: h, filters: [UInt8(pass % 5), 4, 3])
        }
      }
    } else {
      filtered = filterRows(bgra, width: width, height: height, filters: [0, 1, 2, 3, 4])
    }
    var header = Synth.header(
      width: UInt32(width), height: UInt32(height), depth: 8, colorType: 6, interlace: interlaced ? 1 : 0)
    header.data[9] = 6
    let idot = PNGChunk("iDOT", data: [UInt8](repeating: 0, count: 28))
    return Synth.file([
      PNGChunk("CgBI", data: [0x50, 0x00, 0x20, 0x02]), header, idot,
      PNGChunk("IDAT", data: zlibHeader ? Synth.storedZlib(filtered) : rawStored(filtered)),
      PNGChunk("IEND", data: []),
    ])
  }

  @Test(arguments: [false, true])
  func readsAllFiltersAndAdam7(interlaced: Bool) throws {
    let width = 19
    let height = 13
    let bgra = premultipliedBGRA(Self.straightPixels(width: width, height: height, translucent: true))
    let file = Self.cgbiFile(bgra: bgra, width: width, height: height, interlaced: interlaced)
    let info = try PNGHeaderInfo.read(bytes: file)
    #expect(info.isCgBI)
    #expect(info.chunkNames == ["CgBI", "IHDR", "iDOT", "IDAT", "IEND"])
    let decoded = try PNGDecoder().decode(bytes: file)
    #expect(decoded.isCgBI)
    #expect(decoded.image.isPremultipliedBGRA)
    #expect(decoded.image.pixels == bgra)
    #expect(decoded.image.rgba8() == Self.unpremultiply(bgra))
  }

  @Test func readsZlibWrappedCgBI() throws {
    let bgra = premultipliedBGRA(Self.straightPixels(width: 8, height: 8, translucent: true))
    let file = Self.cgbiFile(bgra: bgra, width: 8, height: 8, interlaced: false, zlibHeader: true)
    #expect(try PNGDecoder().decode(bytes: file).image.pixels == bgra)
  }

  @Test func revertWritesAStandardPNG() throws {
    let width = 19
    let height = 13
    let bgra = premultipliedBGRA(Self.straightPixels(width: width, height: height, translucent: true))
    let file = Self.cgbiFile(bgra: bgra, width: width, height: height, interlaced: true)
    let result = try PNGOptimizer(options: PNGOptimizationOptions(cgbi: .revertToStandard)).optimize(
      bytes: file)
    #expect(result.changed)
    #expect(!result.isCgBI)
    let info = try PNGHeaderInfo.read(bytes: result.bytes)
    #expect(!info.isCgBI)
    #expect(!info.chunkNames.contains("iDOT"))
    let decoded = try PNGDecoder().decode(bytes: result.bytes)
    #expect(decoded.image.pixels == Self.unpremultiply(bgra))
  }

  @Test(arguments: ["2", "max"])
  func plainCrushKeepsCgBI(level: String) throws {
    let bgra = premultipliedBGRA(Self.straightPixels(width: 40, height: 30, translucent: true))
    let file = Self.cgbiFile(bgra: bgra, width: 40, height: 30, interlaced: false)
    let result = try PNGOptimizer(options: PNGOptimizationOptions(level: PNGOptimizationLevel(level)!))
      .optimize(bytes: file)
    #expect(result.isCgBI)
    #expect(result.bytes.count < file.count)
    let info = try PNGHeaderInfo.read(bytes: result.bytes)
    #expect(info.chunkNames == ["CgBI", "IHDR", "IDAT", "IEND"])
    #expect(try PNGDecoder().decode(bytes: result.bytes).image.pixels == bgra)
  }

  @Test func opaqueRoundTripIsExact() throws {
    let width = 23
    let height = 17
    let rgba = Self.straightPixels(width: width, height: height, translucent: false)
    let source = Synth.rgbaFile(width: width, height: height, pixels: rgba)
    let toCgBI = try PNGOptimizer(options: PNGOptimizationOptions(cgbi: .convertToCgBI)).optimize(
      bytes: source)
    #expect(toCgBI.isCgBI)
    let cgbi = try PNGDecoder().decode(bytes: toCgBI.bytes)
    #expect(cgbi.cgbiFlags?[1...] == [0x00, 0x20, 0x06])
    #expect([0x50, 0x30].contains(cgbi.cgbiFlags?[0]))
    #expect(cgbi.colorType == .rgba && cgbi.bitDepth == 8 && !cgbi.interlaced)
    let back = try PNGOptimizer(options: PNGOptimizationOptions(cgbi: .revertToStandard)).optimize(
      bytes: toCgBI.bytes)
    let standard = try PNGDecoder().decode(bytes: back.bytes)
    #expect(!standard.isCgBI)
    #expect(standard.image.rgba8() == rgba)
  }

  @Test func translucentRoundTripMatchesPremultiplicationRounding() throws {
    let width = 21
    let height = 9
    let rgba = Self.straightPixels(width: width, height: height, translucent: true)
    let source = Synth.rgbaFile(width: width, height: height, pixels: rgba)
    let toCgBI = try PNGOptimizer(options: PNGOptimizationOptions(cgbi: .convertToCgBI)).optimize(
      bytes: source)
    let cgbi = try PNGDecoder().decode(bytes: toCgBI.bytes)
    #expect(cgbi.cgbiFlags?[1...] == [0x00, 0x20, 0x02])
    #expect(cgbi.image.pixels == premultipliedBGRA(rgba))
    let back = try PNGOptimizer(options: PNGOptimizationOptions(cgbi: .revertToStandard)).optimize(
      bytes: toCgBI.bytes)
    let standard = try PNGDecoder().decode(bytes: back.bytes)
    #expect(standard.image.rgba8() == Self.unpremultiply(premultipliedBGRA(rgba)))
    // Opaque pixels survive exactly even in a translucent image.
    let restored = standard.image.rgba8()
    for i in stride(from: 0, to: rgba.count, by: 4) where rgba[i + 3] == 255 {
      #expect(Array(restored[i..<(i + 4)]) == Array(rgba[i..<(i + 4)]))
    }
  }

  @Test func sixteenBitSamplesAreRoundedAsLibpngScalesThem() throws {
    // Every 16-bit gray value once: 256×256 pixels. Xcode's pngcrush reads 16-bit images
    // through libpng's png_set_scale_16, which rounds v to round(v / 257).
    var raw: [UInt8] = []
    for y in 0..<256 {
      raw.append(0)
      for x in 0..<256 { raw += [UInt8(y), UInt8(x)] }
    }
    let input = Synth.file([
      Synth.header(width: 256, height: 256, depth: 16, colorType: 0),
      PNGChunk("IDAT", data: Synth.storedZlib(raw)), PNGChunk("IEND", data: []),
    ])
    let result = try PNGOptimizer(options: PNGOptimizationOptions(cgbi: .convertToCgBI)).optimize(
      bytes: input)
    #expect(result.isCgBI && result.changed)
    #expect(result.notes == [.roundedTo8Bit])
    #expect(result.notes.map(\.description) == ["16-bit samples rounded to 8 bits for CgBI (lossy)"])
    let cgbi = try PNGDecoder().decode(bytes: result.bytes)
    #expect(cgbi.cgbiFlags?[1...] == [0x00, 0x20, 0x06])
    var expected: [UInt8] = []
    for value in 0..<65536 {
      let gray = UInt8((Double(value) / 257).rounded())
      expected += [gray, gray, gray, 255]
    }
    #expect(cgbi.image.pixels == expected)
  }

  @Test func sixteenBitWithoutDetailConvertsWithoutANote() throws {
    // 16-bit samples that are 8-bit values widened (multiples of 257) narrow exactly: no note.
    var raw: [UInt8] = []
    for y in 0..<4 {
      raw.append(0)
      for x in 0..<4 { raw += [UInt8(x * 60), UInt8(x * 60), UInt8(y * 70), UInt8(y * 70), 9, 9] }
    }
    let input = Synth.file([
      Synth.header(width: 4, height: 4, depth: 16, colorType: 2),
      PNGChunk("IDAT", data: Synth.storedZlib(raw)), PNGChunk("IEND", data: []),
    ])
    let result = try PNGOptimizer(options: PNGOptimizationOptions(cgbi: .convertToCgBI)).optimize(
      bytes: input)
    #expect(result.notes.isEmpty)
    let pixels = try PNGDecoder().decode(bytes: result.bytes).image.pixels
    #expect(pixels.count == 64)
    #expect(Array(pixels[(4 * 5)..<(4 * 6)]) == [9, 70, 60, 255])  // B, G, R, A of pixel (1, 1)
  }

  @Test func suiteFilesConvertToCgBIAndBack() throws {
    // Every PngSuite image (16-bit ones rounded to 8 bits) goes to CgBI and back matching the
    // rounding.
    for name in Fixtures.validSuiteNames() {
      let input = Fixtures.bytes(name)
      let original = try PNGDecoder().decode(bytes: input).image.rgba8()
      let toCgBI = try PNGOptimizer(
        options: PNGOptimizationOptions(level: PNGOptimizationLevel("1")!, cgbi: .convertToCgBI)
      ).optimize(bytes: input)
      #expect(toCgBI.isCgBI, "\(name)")
      let back = try PNGOptimizer(
        options: PNGOptimizationOptions(level: PNGOptimizationLevel("1")!, cgbi: .revertToStandard)
      ).optimize(bytes: toCgBI.bytes)
      let restored = try PNGDecoder().decode(bytes: back.bytes).image.rgba8()
      #expect(restored == Self.unpremultiply(premultipliedBGRA(original)), "\(name)")
    }
  }
}
