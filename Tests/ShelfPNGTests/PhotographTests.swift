import Foundation
import Testing

@testable import ShelfPNG

/// The transformations that close the gap with oxipng on real photographs: gray images as
/// sorted palettes, palette orders, and the filter strategies, each checked for exact pixels.
@Suite struct PhotographTests {
  static let photos = Fixtures.pngSuite.deletingLastPathComponent().appendingPathComponent("photos")

  static func photo(_ name: String) -> [UInt8] {
    [UInt8](try! Data(contentsOf: photos.appendingPathComponent(name)))
  }

  static func reducer(_ bytes: [UInt8]) throws -> Reducer {
    let image = try PNGDecoder().decode(bytes: bytes).image
    return Reducer(image: image, metadata: CanonicalMetadata())
  }

  /// The smallest image data (plus PLTE and tRNS) of `encoding` over every filter strategy at
  /// libdeflate's strongest level.
  static func smallestData(_ encoding: PNGEncoding) -> Int {
    let strategies: [FilterStrategy] = [
      .fixed(0), .fixed(1), .fixed(2), .fixed(3), .fixed(4), .minimumSum, .entropy, .bigrams,
      .bigramEntropy,
    ]
    return strategies.map { strategy in
      RowFilter.filter(encoding, strategy: strategy).withUnsafeBytes {
        Deflate.zlib($0, level: 12).count
      }
    }.min()! + encoding.overheadBytes
  }

  /// The RGBA pixels a palette encoding stands for, read back through its palette and tRNS.
  static func pixels(of encoding: PNGEncoding) -> [UInt8] {
    var out: [UInt8] = []
    let perByte = 8 / encoding.bitDepth
    for y in 0..<encoding.height {
      for x in 0..<encoding.width {
        let byte = encoding.rows[y * encoding.rowBytes + x / perByte]
        let shift = 8 - encoding.bitDepth * (x % perByte + 1)
        let index = Int(byte >> UInt8(shift)) & ((1 << encoding.bitDepth) - 1)
        out += encoding.palette[(3 * index)..<(3 * index + 3)]
        out.append(index < (encoding.transparency?.count ?? 0) ? encoding.transparency![index] : 255)
      }
    }
    return out
  }

  @Test func grayPhotographBecomesASortedPaletteWhenThatIsSmaller() throws {
    // A 102×102 retina photograph using a narrow range of grays: oxipng stores it 20 % smaller
    // as a palette; shelf used to keep it gray (and the file unchanged).
    let input = Self.photo("microaneurysms.png")
    let reducer = try Self.reducer(input)
    let analysis = reducer.analyze()
    let gray = reducer.directEncoding(analysis)
    let colors = try #require(analysis.colors)
    let sorted = try #require(reducer.paletteEncoding(colors: colors, order: .luminance))
    #expect(gray.colorType == .gray)
    #expect(Self.pixels(of: sorted) == reducer.image.pixels)
    #expect(Self.smallestData(sorted) < Self.smallestData(gray))

    let result = try PNGOptimizer().optimize(bytes: input)
    #expect(result.changed)
    #expect(try PNGHeaderInfo.read(bytes: result.bytes).colorType == .palette)
    #expect(try PNGDecoder().decode(bytes: result.bytes).image == PNGDecoder().decode(bytes: input).image)
    // Smaller than the best gray file shelf can make: header, gray image data, IEND.
    #expect(result.bytes.count < 8 + 25 + 12 + Self.smallestData(gray) + 12)
  }

  @Test(arguments: PaletteOrder.allCases)
  func paletteOrdersOnlyRenumberColours(order: PaletteOrder) throws {
    let reducer = try Self.reducer(Self.photo("microaneurysms.png"))
    let colors = try #require(reducer.analyze().colors)
    let encoding = try #require(reducer.paletteEncoding(colors: colors, order: order))
    #expect(Self.pixels(of: encoding) == reducer.image.pixels)
    #expect(encoding.palette.count == 3 * colors.count)
  }

  @Test func luminanceOrderRunsFromDarkToLight() throws {
    let reducer = try Self.reducer(Self.photo("microaneurysms.png"))
    let colors = try #require(reducer.analyze().colors)
    let encoding = try #require(reducer.paletteEncoding(colors: colors, order: .luminance))
    let grays = stride(from: 0, to: encoding.palette.count, by: 3).map { encoding.palette[$0] }
    #expect(grays == grays.sorted())
    #expect(grays.count == colors.count)
  }

  @Test func cooccurrenceOrderChainsColoursThatTouch() throws {
    // Four vertical stripes A|B|C|D whose widths make the frequency order A, D, B, C: the
    // co-occurrence chain starts at the most frequent colour and follows its neighbours.
    let stripes: [(color: [UInt8], width: Int)] = [
      ([200, 10, 10, 255], 8), ([10, 200, 10, 255], 3), ([10, 10, 200, 255], 2), ([90, 90, 90, 255], 5),
    ]
    var pixels: [UInt8] = []
    for _ in 0..<4 { for stripe in stripes { for _ in 0..<stripe.width { pixels += stripe.color } } }
    let image = PNGImage(width: 18, height: 4, sampleDepth: 8, pixels: pixels)
    let reducer = Reducer(image: image, metadata: CanonicalMetadata())
    let colors = try #require(reducer.analyze().colors)
    let byFrequency = try #require(reducer.paletteEncoding(colors: colors, order: .frequency))
    let chained = try #require(reducer.paletteEncoding(colors: colors, order: .cooccurrence))
    let expected = stripes.flatMap { $0.color.prefix(3) }
    #expect(chained.palette == expected)
    #expect(byFrequency.palette != expected)
    #expect(Self.pixels(of: chained) == pixels)
  }

  @Test(arguments: [FilterStrategy.bigramEntropy, .entropy, .bigrams, .minimumSum, .fixed(1)])
  func filterStrategiesRoundTripExactly(strategy: FilterStrategy) throws {
    // Filtered rows of a real photograph, written as a PNG and decoded by libpng.
    let input = Self.photo("coffee-crop.png")
    let reducer = try Self.reducer(input)
    let encoding = reducer.directEncoding(reducer.analyze())
    #expect(encoding.colorType == .rgb)
    let filtered = RowFilter.filter(encoding, strategy: strategy)
    var header: [UInt8] = []
    header.appendBigEndian(UInt32(encoding.width))
    header.appendBigEndian(UInt32(encoding.height))
    header += [8, 2, 0, 0, 0]
    let file = PNGChunkWriter().bytes(of: [
      PNGChunk("IHDR", data: header),
      PNGChunk("IDAT", data: filtered.withUnsafeBytes { Deflate.zlib($0, level: 6) }),
      PNGChunk("IEND", data: []),
    ])
    #expect(try PNGDecoder().decode(bytes: file).image == PNGDecoder().decode(bytes: input).image)
  }

  @Test func bigramEntropyPrefersTheFilterThatRepeatsPairs() throws {
    // Every row is the same horizontal ramp. On the first row Sub turns it into one repeated
    // byte, the most repetitive pairs; below it Up (as Paeth, and the lower number wins ties)
    // leaves only zeros, one pair more than Sub's repeats.
    let width = 64
    var pixels: [UInt8] = []
    for _ in 0..<4 { for x in 0..<width { pixels += [UInt8(3 * x), UInt8(3 * x), UInt8(3 * x), 255] } }
    let image = PNGImage(width: width, height: 4, sampleDepth: 8, pixels: pixels)
    let reducer = Reducer(image: image, metadata: CanonicalMetadata())
    var analysis = reducer.analyze()
    analysis.colors = nil
    let encoding = reducer.directEncoding(analysis)
    #expect(encoding.colorType == .gray)
    let choices = RowFilter.chooseFilters(encoding, heuristics: [.bigramEntropy])
    #expect(choices == [[1, 2, 2, 2]])
  }

  @Test func rgbPhotographCrushesExactlyAtEveryLevel() throws {
    // Pillow's zlib stream of a 96×64 photograph: Debian's libdeflate 1.14 alone did not beat
    // it at the default level (the input was kept); zlib's Huffman-only coding does, and zopfli
    // at `max` does no worse.
    let input = Self.photo("coffee-crop.png")
    let standard = try PNGOptimizer().optimize(bytes: input)
    let max = try PNGOptimizer(options: PNGOptimizationOptions(level: .max)).optimize(bytes: input)
    #expect(standard.changed)
    #expect(standard.bytes.count < input.count)
    #expect(max.bytes.count <= standard.bytes.count)
    for result in [standard, max] {
      #expect(try PNGDecoder().decode(bytes: result.bytes).image == PNGDecoder().decode(bytes: input).image)
    }
  }

  /// The filtered image data of `file` (its IDAT chunks inflated) and their zlib size.
  static func imageData(of file: [UInt8]) throws -> (filtered: [UInt8], compressedSize: Int) {
    let idat = try PNGChunkReader().chunks(of: file).filter { $0.is("IDAT") }.flatMap(\.data)
    let info = try PNGHeaderInfo.read(bytes: file)
    let expected = PNGDecoder.filteredSize(
      width: info.width, height: info.height,
      bitsPerPixel: info.bitDepth * info.colorType.channels, interlaced: info.interlaced)
    let filtered = try #require(Deflate.inflateRaw(idat, expectedSize: expected, zlibWrapped: true))
    return (filtered, idat.count)
  }

  @Test func photographTakesTheEntropyCodingWhenLibdeflateLosesOnIt() throws {
    // On this photograph's filtered rows libdeflate 1.14's strongest level spends bits on
    // short matches; the crush keeps zlib's literal-only coding, smaller, with exact pixels.
    let input = Self.photo("coffee-crop.png")
    let result = try PNGOptimizer().optimize(bytes: input)
    let (filtered, compressedSize) = try Self.imageData(of: result.bytes)
    let strongest = filtered.withUnsafeBytes { Deflate.zlib($0, level: 12) }
    #expect(compressedSize < strongest.count)
    #expect(try PNGDecoder().decode(bytes: result.bytes).image == PNGDecoder().decode(bytes: input).image)
  }

  @Test(arguments: [false, true])
  func entropyCodingInflatesToTheSameBytes(raw: Bool) throws {
    // Both wrappers (zlib for PNG, raw deflate for CgBI) round-trip through libdeflate.
    let input = Self.photo("coffee-crop.png")
    let (filtered, _) = try Self.imageData(of: input)
    try filtered.withUnsafeBytes { data in
      let strongest = raw ? Deflate.raw(data, level: 12) : Deflate.zlib(data, level: 12)
      let chosen = Deflate.smallest(strongest, orEntropyCodingOf: data, raw: raw)
      #expect(chosen.count < strongest.count)
      let inflated = Deflate.inflateRaw(chosen, expectedSize: filtered.count, zlibWrapped: !raw)
      #expect(inflated == filtered)
    }
  }

  @Test func libdeflateStreamIsKeptWhenItIsSmaller() {
    // Repetitive rows (a screenshot's): matches win, and libdeflate's stream comes back as it is.
    let rows = [UInt8]((0..<60_000).map { UInt8(($0 / 7) % 5) })
    rows.withUnsafeBytes { data in
      let strongest = Deflate.zlib(data, level: 12)
      #expect(Deflate.smallest(strongest, orEntropyCodingOf: data) == strongest)
    }
  }
}
