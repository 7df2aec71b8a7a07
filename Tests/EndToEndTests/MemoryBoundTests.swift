import Foundation
import ShelfTestSupport
import Testing

/// Issue 21: `crush` and `show` of 8192×8192 images stay within twice the decoded image's size
/// (peak RSS of the child, from wait4 through /usr/bin/time), refuse only what exceeds
/// `--max-decoded-bytes`, and `show` of a damaged Opus file ends.
@Suite(.serialized) struct MemoryBoundTests {
  /// The child's peak resident set in bytes, from `/usr/bin/time -f`'s last line.
  static func run(_ arguments: [String]) throws -> (result: ShelfResult, peak: Int) {
    let result = try ShelfProcess.run(
      arguments, launcher: ["/usr/bin/time", "-f", "maxrss=%M"], timeout: 900)
    let line = result.stderr.split(separator: "\n").last { $0.hasPrefix("maxrss=") } ?? ""
    return (result, (Int(line.dropFirst(7)) ?? 0) * 1024)
  }

  /// ImageMagick's signature of the decoded pixels (SHA-256 over them): an independent decoder.
  static func signature(_ path: String) throws -> String {
    let outcome = try ExternalTool.run(["identify", "-format", "%#", path])
    return String(decoding: outcome.stdout, as: UTF8.self)
  }

  @Test func big16BitPNGCrushesExactlyWithinTwiceItsPixels() throws {
    let dir = try TemporaryDirectory()
    let source = dir.file("big16.png")
    try ExternalTool.run([
      "convert", "-size", "8192x8192", "gradient:red-blue", "-alpha", "set", "-channel", "A", "-evaluate",
      "set",
      "90%", "+channel", "-depth", "16", "PNG64:" + source,
    ])
    let decoded = 8192 * 8192 * 8
    let (crush, peak) = try Self.run(["crush", "--level", "0", "-o", dir.file("out"), source])
    #expect(crush.status == 0)
    #expect(peak > 0 && peak < 2 * decoded, "peak RSS \(peak) bytes")
    #expect(try Self.signature(dir.file("out/big16.png")) == Self.signature(source))
    let (show, showPeak) = try Self.run(["show", "--graphics", "blocks", "--width", "40", source])
    #expect(show.status == 0)
    #expect(showPeak < 2 * decoded, "show peak RSS \(showPeak) bytes")
    let (info, infoPeak) = try Self.run(["info", source])
    #expect(info.status == 0)
    #expect(infoPeak < 256 << 20)
  }

  @Test func bigCgBIPNGIsShownAndCrushedWithinTwiceItsPixels() throws {
    let dir = try TemporaryDirectory()
    let plain = dir.file("big8.png")
    try ExternalTool.run([
      "convert", "-size", "8192x8192", "gradient:yellow-navy", "-alpha", "set", "-depth", "8",
      "PNG32:" + plain,
    ])
    let made = try ShelfProcess.run(
      ["crush", "--iphone", "--level", "0", "-o", dir.file("ios"), plain], timeout: 900)
    #expect(made.status == 0)
    let cgbi = dir.file("ios/big8.png")
    let decoded = 8192 * 8192 * 4
    let (show, showPeak) = try Self.run(["show", "--graphics", "blocks", "--width", "40", cgbi])
    #expect(show.status == 0)
    #expect(show.stdout.contains("8192×8192"))
    #expect(showPeak < 2 * decoded, "show peak RSS \(showPeak) bytes")
    let (crush, crushPeak) = try Self.run([
      "crush", "--revert-iphone", "--level", "0", "-o", dir.file("back"), cgbi,
    ])
    #expect(crush.status == 0)
    #expect(crushPeak < 2 * decoded, "crush peak RSS \(crushPeak) bytes")
    // Opaque pixels survive premultiplication exactly. Pillow compares them (ImageMagick's
    // compare runs out of its pixel cache at this size); the output may have dropped the
    // opaque alpha channel, so both are compared as RGBA.
    let compared = try ExternalTool.run([
      "python3", "-c",
      "import sys; from PIL import Image, ImageChops; Image.MAX_IMAGE_PIXELS = None; "
        + "a, b = (Image.open(p).convert('RGBA') for p in sys.argv[1:]); "
        + "print(a.size == b.size and ImageChops.difference(a, b).getbbox() is None)",
      plain, dir.file("back/big8.png"),
    ])
    #expect(String(decoding: compared.stdout, as: UTF8.self) == "True\n", "\(compared.stderr)")
  }

  @Test func bigRGBPhotographCrushesExactlyWithinTwiceItsPixels() throws {
    // A real photograph (the PNG tests' coffee crop) enlarged to 6000×4500 RGB. libpng decodes
    // to RGBA (4 bytes a pixel): the RGB rows used to be a second array beside it, 2.8 times
    // the decoded image's 3 bytes a pixel at the peak.
    let dir = try TemporaryDirectory()
    let photo = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../Fixtures/photos/coffee-crop.png").standardized.path
    let source = dir.file("big-rgb.png")
    try ExternalTool.run(["convert", photo, "-resize", "6000x4500!", "PNG24:" + source])
    let decoded = 6000 * 4500 * 3
    let (crush, peak) = try Self.run(["crush", "--level", "0", "-o", dir.file("out"), source])
    #expect(crush.status == 0)
    #expect(peak > 0 && peak < 2 * decoded, "peak RSS \(peak) bytes")
    #expect(try Self.signature(dir.file("out/big-rgb.png")) == Self.signature(source))
  }

  @Test func imagesAboveMaxDecodedBytesAreRefusedFromTheHeader() throws {
    let dir = try TemporaryDirectory()
    let source = dir.file("wide.png")
    try ExternalTool.run(["convert", "-size", "2048x1024", "xc:red", "-depth", "16", "PNG64:" + source])
    let crush = try ShelfProcess.run(["crush", "--max-decoded-bytes", "8M", "-o", dir.file("out"), source])
    #expect(crush.status == 65)
    #expect(
      crush.stderr.contains(
        "error: \(source): decoded image of 16777216 bytes exceeds the 8 MiB limit (--max-decoded-bytes)\n"))
    let show = try ShelfProcess.run(["show", "--graphics", "blocks", "--max-decoded-bytes", "8M", source])
    #expect(show.status == 65)
    #expect(
      show.stderr
        == "error: \(source): decoded image of 16777216 bytes exceeds the 8 MiB limit (--max-decoded-bytes)\n"
    )
    let allowed = try ShelfProcess.run(["show", "--graphics", "blocks", "--max-decoded-bytes", "16M", source])
    #expect(allowed.status == 0)
  }

  @Test func damagedOpusWaveformEnds() throws {
    let dir = try TemporaryDirectory()
    let path = dir.file("tone.opus")
    try ExternalTool.ffmpeg([
      "-f", "lavfi", "-i", "sine=frequency=440:duration=6", "-c:a", "libopus", "-b:a", "32k", path,
    ])
    // The last page's granule position says 2^62 samples: the waveform used to seek there.
    var bytes = [UInt8](FileManager.default.contents(atPath: path)!)
    let last = try #require(
      (0..<(bytes.count - 4)).last { bytes[$0...($0 + 3)].elementsEqual(Array("OggS".utf8)) })
    for k in 0..<8 { bytes[last + 6 + k] = k == 7 ? 0x40 : 0 }
    FileManager.default.createFile(atPath: path, contents: Data(bytes))
    let show = try ShelfProcess.run(["show", "--graphics", "blocks", "--width", "40", path], timeout: 20)
    #expect(show.status == 65)
    #expect(show.stdout.hasPrefix("\(path)\n"))
    // The page's checksum no longer holds: its length is not to be trusted (info says so too).
    #expect(
      show.stderr
        == "error: \(path): corrupt: the last Ogg page fails its checksum, so the length it declares cannot be trusted\n"
    )
  }
}
