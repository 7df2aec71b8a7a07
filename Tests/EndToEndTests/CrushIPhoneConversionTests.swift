import Foundation
import ShelfPNG
import ShelfTestSupport
import Testing

/// `shelf crush --iphone` on 16-bit, gray, gray-alpha and palette images (tRNS included): each
/// becomes 8-bit premultiplied BGRA as Xcode's pngcrush writes it, checked against ImageMagick's
/// decode of the original (rounded to 8 bits as libpng rounds), with a note for every 16-bit
/// image whose rounding loses detail.
@Suite struct CrushIPhoneConversionTests {
  /// PngSuite images of every kind `--iphone` must convert rather than refuse.
  static let names = [
    "basn0g16.png", "basn2c16.png", "basn4a16.png", "basn6a16.png", "basi6a16.png",  // 16-bit
    "tbbn2c16.png", "tbwn0g16.png",  // 16-bit with a tRNS colour key
    "basn0g01.png", "basn0g04.png", "basn0g08.png", "basn4a08.png",  // gray, gray-alpha
    "basn3p02.png", "basi3p04.png", "tbbn3p08.png", "tp1n3p08.png",  // palette, palette + tRNS
    "tbbn0g04.png", "tbrn2c08.png",  // gray and RGB with a tRNS colour key
  ]

  /// ImageMagick's decode of a file as straight 16-bit RGBA (big-endian; lower depths scaled
  /// up exactly). ImageMagick reads a copy without the colour-space chunks: it would convert a
  /// gray image with gAMA 1.0 ("LinearGray") to sRGB.
  static func imageMagickRGBA16(_ path: String) throws -> [UInt8] {
    let chunks = try PNGChunkReader().chunks(
      of: [UInt8](FileManager.default.contents(atPath: path) ?? Data()))
    let plain = path + ".plain.png"
    try Data(PNGChunkWriter().bytes(of: chunks.filter { $0.isCritical || $0.name == "tRNS" }))
      .write(to: URL(fileURLWithPath: plain))
    defer { try? FileManager.default.removeItem(atPath: plain) }
    let outcome = try ExternalTool.run(["convert", plain, "-depth", "16", "-endian", "MSB", "rgba:-"])
    #expect(outcome.status == 0, "convert \(path): \(outcome.stderr)")
    return [UInt8](outcome.stdout)
  }

  /// 16-bit samples rounded to 8 bits as the PNG specification and libpng's png_set_scale_16
  /// do: round(v · 255 / 65535) = round(v / 257). (ImageMagick's own `-depth 8` truncates some
  /// values, e.g. 2304 to 8 rather than 9, so the rounding is done here.)
  static func rounded(_ rgba16: [UInt8]) -> [UInt8] {
    stride(from: 0, to: rgba16.count, by: 2).map {
      UInt8((Double(Int(rgba16[$0]) << 8 | Int(rgba16[$0 + 1])) / 257).rounded())
    }
  }

  /// Whether 16-bit samples would lose something as 8-bit ones (one is not a multiple of 257).
  static func hasSixteenBitDetail(_ rgba16: [UInt8]) -> Bool {
    stride(from: 0, to: rgba16.count, by: 2).contains { rgba16[$0] != rgba16[$0 + 1] }
  }

  @Test func convertsEveryColourTypeAndDepthAsImageMagickReadsIt() throws {
    let dir = try TemporaryDirectory()
    var inputs: [String] = []
    for name in Self.names { inputs.append(try dir.copy(fromRepository: "Tests/Fixtures/pngsuite/" + name)) }
    let originals = inputs.map { [UInt8](FileManager.default.contents(atPath: $0) ?? Data()) }
    let result = try ShelfProcess.run(["crush", "--iphone", "-o", dir.file("ios")] + inputs)
    #expect(result.status == 0)
    #expect(result.stdout.hasPrefix("Crushed \(inputs.count) of \(inputs.count) files: "))
    // One note per 16-bit image with detail, in input order; nothing else on stderr.
    var lossy: [String] = []
    for (name, path) in zip(Self.names, inputs) where name.contains("16") {
      if try Self.hasSixteenBitDetail(Self.imageMagickRGBA16(path)) { lossy.append(path) }
    }
    #expect(lossy.count == 7, "every 16-bit PngSuite image used here has detail below 8 bits")
    #expect(
      result.stderr
        == lossy.map { "warning: \($0): 16-bit samples rounded to 8 bits for CgBI (lossy)\n" }.joined())

    for (index, name) in Self.names.enumerated() {
      #expect(
        [UInt8](FileManager.default.contents(atPath: inputs[index]) ?? Data()) == originals[index],
        "input untouched")
      let expected = try Self.rounded(Self.imageMagickRGBA16(inputs[index]))
      let cgbi = try PNGDecoder().decode(path: dir.raw("ios/" + name))
      #expect(cgbi.isCgBI && cgbi.colorType == .rgba && cgbi.bitDepth == 8, "\(name)")
      let opaque = stride(from: 3, to: expected.count, by: 4).allSatisfy { expected[$0] == 255 }
      #expect(cgbi.cgbiFlags?[1...] == (opaque ? [0x00, 0x20, 0x06] : [0x00, 0x20, 0x02]), "\(name)")
      // The stored pixels are exactly ImageMagick's RGBA, premultiplied and swapped to BGRA.
      #expect(cgbi.image.pixels == premultipliedBGRA(expected), "\(name)")
      // Read back as straight RGBA (the repository's CgBI reader, un-premultiplying as Apple
      // does), every opaque pixel is ImageMagick's exactly.
      let back = cgbi.image.rgba8()
      for i in stride(from: 0, to: expected.count, by: 4) where expected[i + 3] == 255 {
        #expect(back[i..<(i + 4)] == expected[i..<(i + 4)], "\(name) pixel \(i / 4)")
      }
    }
  }

  @Test func everySixteenBitValueRoundsAsLibpngRoundsIt() throws {
    // A 256×256 16-bit gray image holding each of the 65536 values once.
    let dir = try TemporaryDirectory()
    let path = dir.file("all16.png")
    let script = """
      import struct, sys, zlib
      raw = b''.join(b'\\0' + b''.join(bytes([y, x]) for x in range(256)) for y in range(256))
      def chunk(kind, data):
          return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))
      png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 256, 256, 16, 0, 0, 0, 0))
      png += chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b'')
      open(sys.argv[1], 'wb').write(png)
      """
    let made = try ExternalTool.run(["python3", "-c", script, path])
    #expect(made.status == 0, "\(made.stderr)")
    let result = try ShelfProcess.run(["crush", "--iphone", "-o", dir.file("ios"), path])
    #expect(result.status == 0)
    #expect(result.stderr == "warning: \(path): 16-bit samples rounded to 8 bits for CgBI (lossy)\n")
    let expected = try Self.rounded(Self.imageMagickRGBA16(path))
    #expect(expected.count == 65536 * 4)
    let cgbi = try PNGDecoder().decode(path: dir.raw("ios/all16.png"))
    #expect(cgbi.image.pixels == premultipliedBGRA(expected))
    // libpng's png_set_scale_16, written out: (v·255 + 32895) >> 16; 40000 → 156 (155.6).
    #expect(Array(cgbi.image.pixels[(40_000 * 4)..<(40_000 * 4 + 4)]) == [156, 156, 156, 255])
  }
}
