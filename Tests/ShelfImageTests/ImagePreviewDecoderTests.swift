import Foundation
import ShelfCore
import ShelfTestSupport
import Testing

@testable import ShelfImage

@Suite struct ImagePreviewDecoderTests {
  /// A 160×120 picture of four flat quadrants, written by ImageMagick.
  static func quadrants(in folder: TemporaryDirectory, as name: String) throws -> String {
    let path = folder.file(name)
    let made = try ExternalTool.run([
      "convert", "(", "-size", "80x60", "xc:rgb(220,20,60)", "xc:rgb(30,160,70)", "+append", ")", "(",
      "-size",
      "80x60", "xc:rgb(40,60,200)", "xc:rgb(240,200,40)", "+append", ")", "-append", "-quality", "95", path,
    ])
    try #require(made.status == 0, "\(made.stderr)")
    return path
  }

  static func close(_ pixel: (UInt8, UInt8, UInt8, UInt8), _ expected: (Int, Int, Int)) -> Bool {
    abs(Int(pixel.0) - expected.0) <= 8 && abs(Int(pixel.1) - expected.1) <= 8
      && abs(Int(pixel.2) - expected.2) <= 8 && pixel.3 == 255
  }

  @Test func fitsTheBoxKeepingTheAspectAndNeverEnlarges() throws {
    let folder = try TemporaryDirectory()
    let path = RawPath(try Self.quadrants(in: folder, as: "q.png"))
    let small = try ImagePreviewDecoder.preview(path: path, maxWidth: 40, maxHeight: 80)
    #expect((small.width, small.height) == (40, 30))
    let whole = try ImagePreviewDecoder.preview(path: path, maxWidth: 1000, maxHeight: 1000)
    #expect((whole.width, whole.height) == (160, 120))
    #expect(whole.pixel(x: 0, y: 0) == (220, 20, 60, 255))
    #expect(whole.pixel(x: 159, y: 119) == (240, 200, 40, 255))
  }

  @Test func exifOrientationSixTurnsThePictureUpright() throws {
    let folder = try TemporaryDirectory()
    let path = try Self.quadrants(in: folder, as: "rotated.jpg")
    let tagged = try ExternalTool.run(["exiftool", "-q", "-overwrite_original", "-n", "-Orientation=6", path])
    try #require(tagged.status == 0, "\(tagged.stderr)")
    let image = try ImagePreviewDecoder.preview(path: RawPath(path), maxWidth: 1000, maxHeight: 1000)
    #expect((image.width, image.height) == (120, 160))
    // Rotated 90° clockwise: the bottom-left quadrant (blue) comes to the top left.
    #expect(Self.close(image.pixel(x: 30, y: 40), (40, 60, 200)))
    #expect(Self.close(image.pixel(x: 90, y: 40), (220, 20, 60)))
  }

  @Test func iconsShowTheirLargestEntry() {
    var directory: [UInt8] = [0, 0, 1, 0, 3, 0]
    for (width, height, bits) in [(16, 16, 32), (0, 0, 8), (0, 0, 32)] as [(UInt8, UInt8, UInt8)] {
      directory += [width, height, 0, 0, 1, 0, bits, 0] + [UInt8](repeating: 0, count: 8)
    }
    // Stored 0 means 256; of two 256×256 entries, the one with more bits per pixel.
    #expect(IconDirectory.largestEntry(directory) == 2)
    #expect(IconDirectory.largestEntry(Array(directory.prefix(30))) == nil)
    // A reserved byte set: not an icon directory (another format starting 00 00 01 00).
    directory[6 + 16 + 3] = 7
    #expect(IconDirectory.largestEntry(directory) == nil)
  }

  @Test func aQOIFileDeclaringTooManyPixelsIsRefusedUnread() throws {
    let folder = try TemporaryDirectory()
    // 100000 × 100000 pixels, then the end marker: nothing to decode.
    let header: [UInt8] = Array("qoif".utf8) + [0, 1, 0x86, 0xA0, 0, 1, 0x86, 0xA0, 4, 0]
    let path = try folder.write("huge.qoi", header + [0, 0, 0, 0, 0, 0, 0, 1])
    #expect(throws: ImagePreviewError(.tooLarge(width: 100_000, height: 100_000), path: RawPath(path))) {
      try ImagePreviewDecoder.preview(path: RawPath(path), maxWidth: 80, maxHeight: 80)
    }
  }

  @Test func aCutQOIFileIsCorruptNotPartlyDrawn() throws {
    let folder = try TemporaryDirectory()
    let png = try Self.quadrants(in: folder, as: "q.png")
    let qoi = folder.file("q.qoi")
    let made = try ExternalTool.run(["qoiconv", png, qoi])
    try #require(made.status == 0, "\(made.stderr)")
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: qoi)))
    let cut = try folder.write("cut.qoi", Array(bytes.dropLast(20)))
    #expect(throws: ImagePreviewError(.corrupt("truncated QOI data: no end marker"), path: RawPath(cut))) {
      try ImagePreviewDecoder.preview(path: RawPath(cut), maxWidth: 80, maxHeight: 80)
    }
    let whole = try ImagePreviewDecoder.preview(path: RawPath(qoi), maxWidth: 1000, maxHeight: 1000)
    #expect(whole.pixel(x: 100, y: 20) == (30, 160, 70, 255))
  }

  @Test func textIsNoPicture() throws {
    let folder = try TemporaryDirectory()
    let path = try folder.write("notes.bin", Array("not a picture at all\n".utf8))
    #expect(throws: ImagePreviewError(.unknownFormat, path: RawPath(path))) {
      try ImagePreviewDecoder.preview(path: RawPath(path), maxWidth: 80, maxHeight: 80)
    }
  }
}
