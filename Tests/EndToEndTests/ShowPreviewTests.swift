import Foundation
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Previews of every decodable image format, checked against Pillow's decode of the same files,
/// which other programs wrote (scripts/preview-fixtures.py).
@Suite(.serialized) struct ShowPreviewTests {
  /// What Pillow saw in one fixture.
  struct Reference {
    var path: String
    var width: Int
    var height: Int
    /// R, G, B at the centres of the top-left, top-right, bottom-left and bottom-right quadrants.
    var colours: [[Int]]
  }

  /// One cell of a half-block preview: the upper pixel (foreground) and the lower (background).
  struct Cell {
    var top: [Int]
    var bottom: [Int]?
  }

  static let fixtures = Fixtures()

  /// The generated files and Pillow's reference, made once for the suite.
  final class Fixtures: Sendable {
    let folder: TemporaryDirectory
    let references: [String: Reference]

    init() {
      folder = try! TemporaryDirectory.forProcess()
      let script = ShelfProcess.repositoryRoot.appendingPathComponent("scripts/preview-fixtures.py").path
      let outcome = try! ExternalTool.run(["python3", script, folder.path])
      precondition(outcome.status == 0, "preview-fixtures.py failed: \(outcome.stderr)")
      let json = try! JSONSerialization.jsonObject(with: outcome.stdout) as! [String: [String: Any]]
      references = json.mapValues { entry in
        Reference(
          path: entry["path"] as! String, width: entry["width"] as! Int, height: entry["height"] as! Int,
          colours: entry["colours"] as! [[Int]])
      }
    }
  }

  /// The size a picture of `width` × `height` gets in a box, keeping its aspect, never enlarged.
  static func fitted(_ width: Int, _ height: Int, into box: (Int, Int)) -> (Int, Int) {
    let scale = min(1, Double(box.0) / Double(width), Double(box.1) / Double(height))
    return (Int((Double(width) * scale).rounded()), Int((Double(height) * scale).rounded()))
  }

  /// The cells of half-block output, row by row.
  static func cells(_ output: String) -> [[Cell]] {
    output.split(separator: "\n").filter { $0.contains("▀") }.map { line in
      line.split(separator: "▀").compactMap { segment -> Cell? in
        let codes = segment.split(separator: "\u{1B}").compactMap { code -> [Int]? in
          guard code.hasPrefix("[38;2;") || code.hasPrefix("[48;2;") else { return nil }
          return code.dropFirst(6).dropLast().split(separator: ";").compactMap { Int($0) }
        }
        guard let top = codes.first else { return nil }
        return Cell(top: top, bottom: codes.count > 1 ? codes[1] : nil)
      }
    }
  }

  /// A terminal that announces 24-bit colour, for previews compared pixel by pixel.
  static let trueColour = ["COLORTERM": "truecolor"]

  static func close(_ left: [Int], _ right: [Int], within tolerance: Int) -> Bool {
    left.count == right.count && zip(left, right).allSatisfy { abs($0 - $1) <= tolerance }
  }

  @Test(arguments: [
    "png", "jpeg", "gif", "webp", "tiff", "bmp", "heic", "avif", "ico", "icns", "psd", "tga", "qoi",
    "ppm", "ppm-ascii", "pam", "jp2", "jpeg-orientation-6", "jpeg-progressive", "jpeg-gray",
  ])
  func halfBlockPreviewMatchesPillow(_ kind: String) throws {
    let reference = try #require(Self.fixtures.references[kind])
    let result = try ShelfProcess.run(
      ["show", "--color", "always", "--width", "40", reference.path], environment: Self.trueColour)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.isEmpty)
    // 40 columns and, into a pipe, 40 rows of two pixels each.
    let (width, height) = Self.fitted(reference.width, reference.height, into: (40, 80))
    let rows = Self.cells(result.stdout)
    #expect(rows.count == (height + 1) / 2, "\(kind)")
    #expect(rows.allSatisfy { $0.count == width }, "\(kind)")
    guard rows.count == (height + 1) / 2, rows.allSatisfy({ $0.count == width }) else { return }
    let centres = [
      (width / 4, height / 4), (3 * width / 4, height / 4), (width / 4, 3 * height / 4),
      (3 * width / 4, 3 * height / 4),
    ]
    for (quadrant, (x, y)) in centres.enumerated() {
      let cell = rows[y / 2][x]
      let shown = y % 2 == 0 ? cell.top : cell.bottom ?? []
      // Lossy formats (JPEG, WebP, HEIC, AVIF) may differ a little after resampling.
      #expect(
        Self.close(shown, reference.colours[quadrant], within: 12),
        "\(kind) quadrant \(quadrant): \(shown) vs Pillow's \(reference.colours[quadrant])")
    }
  }

  @Test func svgFillsTheBoxAsRsvgConvertDrawsIt() throws {
    let reference = try #require(Self.fixtures.references["svg"])
    // A 40×32 drawing in a 100×80-pixel box (100 columns, 40 rows into a pipe) is enlarged to
    // fill it, as rsvg-convert rendered it.
    let result = try ShelfProcess.run(
      ["show", "--color", "always", "--width", "100", reference.path], environment: Self.trueColour)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.isEmpty)
    let rows = Self.cells(result.stdout)
    #expect(rows.count == 40 && rows.allSatisfy { $0.count == 100 }, "\(rows.map(\.count))")
    guard rows.count == 40, rows.allSatisfy({ $0.count == 100 }) else { return }
    #expect(result.stdout.hasSuffix("\u{1B}[0m\n40×32\n"))
    let expected = try [UInt8](
      Data(contentsOf: URL(fileURLWithPath: Self.fixtures.folder.file("drawing.rgba"))))
    // Every pixel, the circle's gradient and its edges included.
    var wrong: [String] = []
    for y in 0..<80 {
      for x in 0..<100 {
        let cell = rows[y / 2][x]
        let shown = y % 2 == 0 ? cell.top : cell.bottom ?? []
        let offset = (y * 100 + x) * 4
        let drawn = (0..<3).map { Int(expected[offset + $0]) }
        if !Self.close(shown, drawn, within: 12) { wrong.append("(\(x), \(y)): \(shown) vs \(drawn)") }
      }
    }
    #expect(wrong.isEmpty, "\(wrong.count) pixels differ from rsvg-convert's: \(wrong.prefix(5))")
  }

  @Test func kittyGraphicsCarriesThePixelsExactly() throws {
    let reference = try #require(Self.fixtures.references["png"])
    let result = try ShelfProcess.run(["show", "--graphics", "kitty", "--width", "20", reference.path])
    #expect(result.status == 0)
    let stream = result.stdout
    // Without a terminal to ask, cells count as 10×20 pixels: 20 columns hold 160 pixels.
    let escapes = stream.components(separatedBy: "\u{1B}\\").dropLast()
    #expect(escapes.count > 1)
    #expect(escapes.first?.hasPrefix("\u{1B}_Ga=T,f=32,s=160,v=120,c=16,r=6,q=2,m=1;") == true)
    var payload = ""
    for (index, escape) in escapes.enumerated() {
      #expect(escape.hasPrefix("\u{1B}_G"))
      let more = index == escapes.count - 1 ? "m=0;" : "m=1;"
      let parts = escape.dropFirst(3).split(separator: ";", maxSplits: 1)
      #expect(parts.first?.hasSuffix(more.dropLast()) == true, "chunk \(index)")
      #expect(parts.last!.count <= 4096)
      payload += parts.last!
    }
    let pixels = try #require(Data(base64Encoded: payload))
    let expected = try Data(contentsOf: URL(fileURLWithPath: Self.fixtures.folder.file("source.rgba")))
    #expect(pixels == expected)
    #expect(stream.hasSuffix("\u{1B}\\\n160×120\n"))
  }

  /// The pixels of a sixel image: nil where no colour was painted.
  static func decodeSixel(_ bytes: [UInt8]) throws -> (width: Int, height: Int, pixels: [[Int]?]) {
    var text = Substring(String(decoding: bytes, as: UTF8.self))
    guard let start = text.range(of: "\u{1B}P"), let end = text.range(of: "\u{1B}\\") else {
      throw SixelError.malformed("no DCS … ST")
    }
    text = text[start.upperBound..<end.lowerBound]
    guard let q = text.firstIndex(of: "q") else { throw SixelError.malformed("no q") }
    text = text[text.index(after: q)...]
    guard text.hasPrefix("\"") else { throw SixelError.malformed("no raster attributes") }
    let rasterEnd = text.firstIndex { $0 == "#" } ?? text.endIndex
    let raster = text.dropFirst()[..<rasterEnd].split(separator: ";").compactMap { Int($0) }
    guard raster.count == 4, raster[0] == 1, raster[1] == 1 else {
      throw SixelError.malformed("raster \(raster)")
    }
    let (width, height) = (raster[2], raster[3])
    var pixels = [[Int]?](repeating: nil, count: width * height)
    var palette: [Int: [Int]] = [:]
    var current = 0
    var x = 0
    var band = 0
    var characters = Array(text[rasterEnd...])
    characters.append(" ")
    var index = 0
    func number() -> Int {
      var value = 0
      while let digit = characters[index].wholeNumberValue {
        value = value * 10 + digit
        index += 1
      }
      return value
    }
    while index < characters.count - 1 {
      let character = characters[index]
      switch character {
      case "#":
        index += 1
        let register = number()
        if characters[index] == ";" {
          index += 1
          var values = [number()]
          for _ in 0..<3 {
            guard characters[index] == ";" else { break }
            index += 1
            values.append(number())
          }
          guard values.count == 4, values[0] == 2 else { throw SixelError.malformed("colour \(values)") }
          palette[register] = values.dropFirst().map { ($0 * 255 + 50) / 100 }
        }
        current = register
      case "$":
        x = 0
        index += 1
      case "-":
        x = 0
        band += 1
        index += 1
      case "!":
        index += 1
        let count = number()
        let bits = Int(characters[index].asciiValue!) - 63
        for _ in 0..<count {
          paint(bits, x)
          x += 1
        }
        index += 1
      default:
        let value = Int(character.asciiValue ?? 0) - 63
        guard (0...63).contains(value) else { throw SixelError.malformed("byte \(character)") }
        paint(value, x)
        x += 1
        index += 1
      }
    }
    func paint(_ bits: Int, _ column: Int) {
      for row in 0..<6 where bits & (1 << row) != 0 {
        let y = band * 6 + row
        if column < width && y < height { pixels[y * width + column] = palette[current] }
      }
    }
    return (width, height, pixels)
  }

  enum SixelError: Error { case malformed(String) }

  @Test func sixelDecodesBackToThePicture() throws {
    let reference = try #require(Self.fixtures.references["png"])
    let result = try ShelfProcess.run(["show", "--graphics", "sixel", "--width", "20", reference.path])
    #expect(result.status == 0)
    #expect(result.stdout.hasPrefix("\u{1B}P0;1;0q\"1;1;160;120#"))
    let sixel = try Self.decodeSixel(result.stdoutBytes)
    #expect(sixel.width == 160 && sixel.height == 120)
    let expected = try [UInt8](
      Data(contentsOf: URL(fileURLWithPath: Self.fixtures.folder.file("source.rgba"))))
    var wrong = 0
    for y in 0..<120 {
      for x in 0..<160 {
        let offset = (y * 160 + x) * 4
        let source = [Int(expected[offset]), Int(expected[offset + 1]), Int(expected[offset + 2])]
        // 6 × 7 × 6 levels: at most half a step (25.5 of 255) off, plus the percent rounding.
        if let shown = sixel.pixels[y * 160 + x], Self.close(shown, source, within: 28) { continue }
        wrong += 1
      }
    }
    #expect(wrong == 0)
  }

  /// Runs `shelf show` on a pseudo-terminal that answers the device-attributes query with
  /// `reply` (or not at all: "none").
  static func onTerminal(reply: String, _ arguments: [String], environment: [String] = []) throws -> (
    Int32, [UInt8]
  ) {
    let scratch = try TemporaryDirectory()
    let output = scratch.file("screen")
    let script = ShelfProcess.repositoryRoot.appendingPathComponent("scripts/pty-show.py").path
    let outcome = try ExternalTool.run(
      ["env", "-u", "COLUMNS", "-u", "NO_COLOR", "-u", "KITTY_WINDOW_ID", "TERM=xterm-256color"] + environment
        + ["python3", script, reply, output, ShelfProcess.binary, "show"] + arguments)
    let screen = try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
    return (outcome.status, screen)
  }

  @Test func terminalsThatAnnounceSixelsGetSixels() throws {
    let path = try #require(Self.fixtures.references["png"]).path
    let (status, screen) = try Self.onTerminal(reply: "\\x1b[?62;4;22c", ["--width", "20", path])
    #expect(status == 0)
    let text = String(decoding: screen, as: UTF8.self)
    #expect(text.hasPrefix("\u{1B}[c\u{1B}P0;1;0q\"1;1;160;120#"))
    // Without feature 4, or without an answer at all, half-blocks.
    for reply in ["\\x1b[?62;22c", "none"] {
      let (status, screen) = try Self.onTerminal(reply: reply, ["--width", "20", path])
      #expect(status == 0)
      let text = String(decoding: screen, as: UTF8.self)
      #expect(!text.contains("\u{1B}P"), "\(reply)")
      #expect(Self.cells(text.replacingOccurrences(of: "\r", with: "")).count == 8, "\(reply)")
    }
  }

  @Test func kittyIsChosenUnderKitty() throws {
    let path = try #require(Self.fixtures.references["png"]).path
    for variable in ["TERM=xterm-kitty", "KITTY_WINDOW_ID=3"] {
      let (status, screen) = try Self.onTerminal(
        reply: "none", ["--width", "20", path], environment: [variable])
      #expect(status == 0)
      // The terminal's cells are 10×20 pixels (800×480 over 80×24).
      #expect(String(decoding: screen, as: UTF8.self).hasPrefix("\u{1B}_Ga=T,f=32,s=160,v=120,c=16,r=6,"))
    }
  }

  @Test func graphicsNoneAndPipesPrintOnlyFacts() throws {
    let path = try #require(Self.fixtures.references["webp"]).path
    for options in [[], ["--graphics", "none"], ["--graphics", "none", "--color", "always"]] {
      let result = try ShelfProcess.run(["show"] + options + [path])
      #expect(result.status == 0)
      #expect(result.stdout == "\(path): image/webp, 160×120\n", "\(options)")
    }
    let bad = try ShelfProcess.run(["show", "--graphics", "ascii-art", path])
    #expect(bad.status == 64)
  }

  @Test(arguments: ["photo.jpg", "source.png", "picture.webp", "photo.heic", "picture.qoi", "picture.tga"])
  func damagedImagesCostOneLineAndJPEGAndPNGShowWhatTheyHold(_ name: String) throws {
    let scratch = try TemporaryDirectory()
    let whole = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.fixtures.folder.file(name))))
    // The first two-thirds of the file: headers intact, image data cut.
    let cut = try scratch.write("cut-" + name, Array(whole.prefix(whole.count * 2 / 3)))
    let result = try ShelfProcess.run(["show", "--color", "always", cut])
    if name == "photo.jpg" || name == "source.png" {
      // libjpeg and libvips give what a JPEG or PNG cut short holds, as ImageMagick shows it.
      #expect(result.status == 0, "\(name): \(result.stderr)")
      #expect(!result.stdout.isEmpty)
      #expect(
        result.stderr.hasPrefix("warning: \(cut): ")
          && result.stderr.hasSuffix("; shown as far as it decodes\n"))
      #expect(result.stderr.filter { $0 == "\n" }.count == 1, "\(name): \(result.stderr)")
      return
    }
    #expect(result.status == 65, "\(name): \(result.stdout)")
    #expect(result.stdout.isEmpty, "\(name): something was drawn")
    #expect(result.stderr.hasPrefix("error: \(cut): "), "\(name): \(result.stderr)")
    #expect(result.stderr.filter { $0 == "\n" }.count == 1, "\(name): \(result.stderr)")
  }

  @Test func aHugeImageIsPreviewedWithoutDecodingItWhole() throws {
    let scratch = try TemporaryDirectory()
    // 30000 × 30000 pixels: 2.7 GB as RGB, were it decoded at full size.
    let huge = scratch.file("huge.jpg")
    let made = try ExternalTool.run(["vips", "black", huge, "30000", "30000"])
    try #require(made.status == 0, "\(made.stderr)")
    let usage = scratch.file("usage")
    let result = try ShelfProcess.run(
      ["show", "--color", "always", "--width", "40", huge], environment: Self.trueColour,
      launcher: ["/usr/bin/time", "-f", "%M", "-o", usage])
    #expect(result.status == 0)
    #expect(Self.cells(result.stdout).map(\.count) == Array(repeating: 40, count: 20))
    let kilobytes = try #require(
      Int(String(contentsOfFile: usage, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
    #expect(kilobytes < 300_000, "max RSS \(kilobytes) KB")
  }

  @Test func videoShowsAStillOfItsFirstFrameUpright() throws {
    let scratch = try TemporaryDirectory()
    let clip = scratch.file("clip.mp4")
    let portrait = scratch.file("portrait.mp4")
    try ExternalTool.ffmpeg([
      "-loop", "1", "-i", Self.fixtures.folder.file("source.png"), "-t", "0.5", "-r", "10", "-pix_fmt",
      "yuv420p",
      "-c:v", "libx264", clip,
    ])
    // A display matrix of a quarter turn, as a phone's portrait clip carries.
    try ExternalTool.ffmpeg(["-i", clip, "-c", "copy", "-metadata:s:v:0", "rotate=90", portrait])
    for (path, width, height) in [(clip, 160, 120), (portrait, 120, 160)] {
      // ffmpeg's own decode of the first frame, turned as ffmpeg turns it.
      let frame = try ExternalTool.run([
        "ffmpeg", "-nostdin", "-v", "error", "-i", path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt",
        "rgb24", "-",
      ])
      try #require(frame.stdout.count == width * height * 3)
      let result = try ShelfProcess.run(
        ["show", "--color", "always", "--width", "40", path], environment: Self.trueColour)
      #expect(result.status == 0, "\(result.stderr)")
      let (cellsWide, pixelsHigh) = Self.fitted(width, height, into: (40, 80))
      let rows = Self.cells(result.stdout)
      #expect(rows.count == (pixelsHigh + 1) / 2 && rows.allSatisfy { $0.count == cellsWide }, "\(path)")
      guard rows.count == (pixelsHigh + 1) / 2, rows.allSatisfy({ $0.count == cellsWide }) else { continue }
      for (fx, fy) in [(1, 1), (3, 1), (1, 3), (3, 3)] {
        let (x, y) = (cellsWide * fx / 4, pixelsHigh * fy / 4)
        let cell = rows[y / 2][x]
        let shown = y % 2 == 0 ? cell.top : cell.bottom ?? []
        let offset = ((height * fy / 4) * width + width * fx / 4) * 3
        let expected = (0..<3).map { Int(frame.stdout[frame.stdout.startIndex + offset + $0]) }
        #expect(
          Self.close(shown, expected, within: 16), "\(path) at \(fx)/4, \(fy)/4: \(shown) vs \(expected)")
      }
      // The facts follow the still.
      #expect(result.stdout.contains("codec:"), "\(path)")
    }
  }
}
