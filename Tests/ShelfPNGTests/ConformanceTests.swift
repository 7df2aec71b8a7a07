import ShelfPNG
import Testing

/// PngSuite: every valid file crushes to pixel-identical output, every corrupt file is refused
/// with a typed error.
@Suite struct ConformanceTests {
  @Test func suiteIsPresent() {
    #expect(Fixtures.validSuiteNames().count == 161)
    #expect(Fixtures.corruptSuiteNames().count == 14)
  }

  @Test(arguments: ["1", "2"])
  func everyValidFileCrushesToIdenticalPixels(level: String) throws {
    let optimizer = PNGOptimizer(
      options: PNGOptimizationOptions(level: PNGOptimizationLevel(level)!))
    let decoder = PNGDecoder()
    for name in Fixtures.validSuiteNames() {
      let input = Fixtures.bytes(name)
      let original = try decoder.decode(bytes: input)
      let result = try optimizer.optimize(bytes: input)
      let output = try decoder.decode(bytes: result.bytes)
      #expect(output.image.hasSamePixels(as: original.image), "\(name)")
      #expect(result.bytes.count <= input.count, "\(name)")
      if original.isAnimated == false && result.changed {
        #expect(result.bytes.count < input.count, "\(name)")
        #expect(!output.interlaced, "\(name) should be de-interlaced")
      }
    }
  }

  @Test func sixteenBitSamplesAreKeptExactly() throws {
    let input = Fixtures.bytes("basn6a16.png")
    let original = try PNGDecoder().decode(bytes: input)
    #expect(original.image.sampleDepth == 16)
    let result = try PNGOptimizer().optimize(bytes: input)
    let output = try PNGDecoder().decode(bytes: result.bytes)
    #expect(output.image.sampleDepth == 16)
    #expect(output.image.pixels == original.image.pixels)
  }

  @Test func reductionsReachTheExpectedFormats() throws {
    // A 1-bit gray file stays 1-bit; a 16-bit file holding 8-bit values becomes 8-bit;
    // 4-bit palette files stay paletted.
    let cases: [(String, Set<String>)] = [
      ("basn0g01.png", ["0/1"]),
      ("basi0g01.png", ["0/1", "3/1"]),
      ("basn3p04.png", ["3/4", "3/2", "3/1", "2/8"]),
      ("basn0g16.png", ["0/16"]),
      ("tbbn2c16.png", ["2/16", "6/16"]),
      ("basn2c08.png", ["2/8", "3/8"]),
    ]
    for (name, allowed) in cases {
      let result = try PNGOptimizer().optimize(bytes: Fixtures.bytes(name))
      let info = try PNGHeaderInfo.read(bytes: result.bytes)
      #expect(allowed.contains("\(info.colorType.rawValue)/\(info.bitDepth)"), "\(name): \(info)")
      #expect(!info.interlaced)
    }
  }

  @Test func corruptFilesGiveTypedErrors() throws {
    let expected: [String: PNGError.Reason] = [
      "xs1n0g01.png": .notPNG, "xs2n0g01.png": .notPNG, "xs4n0g01.png": .notPNG,
      "xs7n0g01.png": .notPNG, "xcrn0g04.png": .notPNG, "xlfn0g04.png": .notPNG,
      "xhdn0g08.png": .badCRC(chunk: "IHDR"), "xcsn0g01.png": .badCRC(chunk: "IDAT"),
      "xc1n0g08.png": .corrupt("invalid colour type 1 with bit depth 8"),
      "xc9n2c08.png": .corrupt("invalid colour type 9 with bit depth 8"),
      "xd0n2c08.png": .corrupt("invalid colour type 2 with bit depth 0"),
      "xd3n2c08.png": .corrupt("invalid colour type 2 with bit depth 3"),
      "xd9n2c08.png": .corrupt("invalid colour type 2 with bit depth 99"),
      "xdtn0g01.png": .corrupt("no IDAT chunk"),
    ]
    #expect(Set(expected.keys) == Set(Fixtures.corruptSuiteNames()))
    for name in Fixtures.corruptSuiteNames() {
      let input = Fixtures.bytes(name)
      let error = #expect(throws: PNGError.self, "\(name)") { try PNGDecoder().decode(bytes: input) }
      #expect(error?.reason == expected[name], "\(name): \(String(describing: error))")
      #expect(throws: PNGError.self) { try PNGOptimizer().optimize(bytes: input) }
    }
  }
}
