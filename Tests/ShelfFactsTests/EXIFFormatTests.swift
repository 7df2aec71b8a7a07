import Foundation
import ShelfCore
import ShelfTestSupport
import Testing

@testable import ShelfFacts

/// EXIF and XMP where formats other than JPEG keep them, in files ImageMagick, libtiff, Pillow,
/// heif-enc and exiftool wrote, compared field by field with `exiftool -json -n`.
@Suite struct EXIFFormatTests {
  /// Each file of `folder` against exiftool's values; returns how many carried each field.
  @discardableResult
  static func compareWithExiftool(_ folder: String) throws -> [String: Int] {
    let reference = try EXIFTestPhotos.exiftool(folder)
    var present: [String: Int] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: folder).sorted() {
      let path = folder + "/" + name
      let want = EXIFTestPhotos.expected(try #require(reference[name], "\(name)"))
      let got =
        EXIFBlockLocator.facts(try RegularFile(path: RawPath(path)), mime: try EXIFTestPhotos.mime(path))
        ?? EXIFFacts()
      #expect(got.taken == want.taken, "\(name)")
      #expect(got.camera == want.camera, "\(name)")
      #expect(got.lens == want.lens, "\(name)")
      #expect(got.orientation == want.orientation, "\(name)")
      #expect(got.software == want.software, "\(name)")
      #expect((got.gps == nil) == (want.gps == nil), "\(name)")
      if let gps = got.gps, let expected = want.gps {
        #expect(abs(gps.latitude - expected.latitude) < 1e-9, "\(name)")
        #expect(abs(gps.longitude - expected.longitude) < 1e-9, "\(name)")
        #expect(abs((gps.altitude ?? 0) - (expected.altitude ?? 0)) < 1e-9, "\(name)")
      }
      for (field, value) in [
        ("taken", want.taken), ("camera", want.camera), ("lens", want.lens), ("software", want.software),
        ("orientation", want.orientation.map { "\($0)" }), ("gps", want.gps.map { "\($0)" }),
      ] where value != nil {
        present[field, default: 0] += 1
      }
    }
    return present
  }

  /// exiftool's assignments for a photo with every field.
  static let allFields = [
    "-Make=DJI", "-Model=FC3170", "-Software=Scanner 2.0", "-DateTimeOriginal=2024:05:17 10:30:00",
    "-OffsetTimeOriginal=+02:00", "-LensModel=24mm f/2.8", "-Orientation#=6", "-GPSLatitude=41.5",
    "-GPSLatitudeRef=S", "-GPSLongitude=2.25", "-GPSLongitudeRef=W", "-GPSAltitude=120.5",
    "-GPSAltitudeRef#=1",
  ]

  static func exiftool(_ tags: [String], _ path: String) throws {
    try ExternalTool.make(["exiftool", "-q", "-q", "-overwrite_original"] + tags + [path])
  }

  /// A drone's or scanner's TIFF: ImageMagick writes the strips first; exiftool's EXIF (one file
  /// with a 120 KiB XMP packet in front of the Exif IFD) is moved behind them by libtiff's
  /// tiffset, which rewrites IFD0 at the end. Also a BigTIFF, tagged by tiffset alone.
  @Test func tiffWhoseDirectoriesLieAfterTheStrips() throws {
    let scratch = try TemporaryDirectory()
    try FileManager.default.createDirectory(atPath: scratch.file("tiff"), withIntermediateDirectories: true)
    let description = scratch.file("description.txt")
    try String(repeating: "scanned ", count: 15_000).write(
      toFile: description, atomically: false, encoding: .utf8)
    for (index, extra) in [[], ["-XMP-dc:Description<=" + description]].enumerated() {
      let path = scratch.file("tiff/late-\(index).tif")
      try ExternalTool.make([
        "convert", "-size", "400x300", "plasma:", "-depth", "8", "-compress", "none", path,
      ])
      try Self.exiftool(Self.allFields + extra, path)
      try ExternalTool.make(["tiffset", "-s", "270", "scan", path])
      let head = Array(try Data(contentsOf: URL(fileURLWithPath: path)).prefix(8))
      // The premise: IFD0 past the 64 KiB libexif reads.
      #expect((head.le32(4) ?? 0) > 360_000, "late-\(index).tif")
    }
    let big = scratch.file("tiff/big.tif")
    try ExternalTool.make(["convert", "-size", "400x300", "plasma:", "-depth", "8", "TIFF64:" + big])
    for (tag, value) in [("271", "Phase One"), ("272", "IQ4 150MP"), ("274", "8"), ("305", "Capture One")] {
      try ExternalTool.make(["tiffset", "-s", tag, value, big])
    }
    let present = try Self.compareWithExiftool(scratch.file("tiff"))
    #expect(
      present["gps"] == 2 && present["taken"] == 2 && present["camera"] == 3 && present["orientation"] == 3)
  }

  /// PNG and WebP EXIF blocks longer than libexif reads: exiftool writes a 120 KiB
  /// ImageDescription before the Exif and GPS IFDs.
  @Test func exifBlocksLongerThanAJPEGSegment() throws {
    let scratch = try TemporaryDirectory()
    try FileManager.default.createDirectory(atPath: scratch.file("long"), withIntermediateDirectories: true)
    let description = scratch.file("description.txt")
    try String(repeating: "described ", count: 12_000).write(
      toFile: description, atomically: false, encoding: .utf8)
    for ext in ["png", "webp"] {
      let path = scratch.file("long/photo.\(ext)")
      try ExternalTool.make(["convert", "-size", "64x48", "plasma:", path])
      try Self.exiftool(Self.allFields + ["-ImageDescription<=" + description], path)
      #expect((try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0) > 120_000)
    }
    let present = try Self.compareWithExiftool(scratch.file("long"))
    #expect(present["gps"] == 2 && present["taken"] == 2 && present["lens"] == 2)
  }

  /// Photoshop files ImageMagick wrote, EXIF (resource 1058) or XMP only (1060) by exiftool.
  @Test func photoshopImageResources() throws {
    let scratch = try TemporaryDirectory()
    try FileManager.default.createDirectory(atPath: scratch.file("psd"), withIntermediateDirectories: true)
    for (name, tags) in [
      ("exif", Self.allFields),
      (
        "xmp",
        [
          "-XMP-photoshop:DateCreated=2019-03-04T05:06:07.5-05:00", "-XMP-tiff:Orientation#=3",
          "-XMP-tiff:Make=Canon",
        ]
      ),
    ] {
      let path = scratch.file("psd/\(name).psd")
      try ExternalTool.make(["convert", "-size", "64x48", "plasma:", "-depth", "8", path])
      try Self.exiftool(tags, path)
    }
    let present = try Self.compareWithExiftool(scratch.file("psd"))
    #expect(present["taken"] == 2 && present["orientation"] == 2 && present["gps"] == 1)
  }

  /// PNGs whose EXIF is an ImageMagick raw profile in a text chunk (`zTXt`, `iTXt`, `tEXt`,
  /// written by Pillow around exiftool's EXIF), and one ImageMagick made from a tagged JPEG
  /// (its `eXIf` chunk after the image data).
  @Test func pngRawProfilesAndEXIfAfterTheImageData() throws {
    let scratch = try TemporaryDirectory()
    try FileManager.default.createDirectory(atPath: scratch.file("png"), withIntermediateDirectories: true)
    let jpeg = scratch.file("tagged.jpg")
    try ExternalTool.make(["convert", "-size", "64x48", "plasma:", jpeg])
    try Self.exiftool(Self.allFields, jpeg)
    try ExternalTool.make(["convert", jpeg, scratch.file("png/imagemagick.png")])
    let script = """
      import subprocess, sys
      from PIL import Image, PngImagePlugin
      exif = subprocess.run(["exiftool", "-b", "-EXIF", sys.argv[1]], check=True, capture_output=True).stdout
      for chunk, name, data in (("zTXt", "exif", exif), ("iTXt", "APP1", b"Exif\\0\\0" + exif),
                                ("tEXt", "exif", b"Exif\\0\\0" + exif)):
          h = data.hex()
          text = "\\n%s\\n%8d\\n%s\\n" % (name.lower(), len(data), "\\n".join(h[i:i + 72] for i in range(0, len(h), 72)))
          info = PngImagePlugin.PngInfo()
          if chunk == "iTXt":
              info.add_itxt("Raw profile type " + name, text, zip=True)
          else:
              info.add_text("Raw profile type " + name, text, zip=chunk == "zTXt")
          Image.new("RGB", (32, 24), (200, 80, 40)).save("%s/png/%s.png" % (sys.argv[2], chunk), pnginfo=info)
      """
    try ExternalTool.make(["python3", "-c", script, jpeg, scratch.path])
    let present = try Self.compareWithExiftool(scratch.file("png"))
    #expect(present["gps"] == 4 && present["taken"] == 4 && present["lens"] == 4)
  }

  /// JPEG 2000 files ImageMagick (OpenJPEG) wrote, with exiftool's EXIF and XMP `uuid` boxes.
  @Test func jpeg2000UUIDBoxes() throws {
    let scratch = try TemporaryDirectory()
    try FileManager.default.createDirectory(atPath: scratch.file("jp2"), withIntermediateDirectories: true)
    for (name, tags) in [
      ("exif", Self.allFields),
      ("xmp", ["-XMP-exif:DateTimeOriginal=2020-01-02T03:04:05Z", "-XMP-tiff:Model=X100V"]),
    ] {
      let path = scratch.file("jp2/\(name).jp2")
      try ExternalTool.make(["convert", "-size", "64x48", "plasma:", path])
      try Self.exiftool(tags, path)
    }
    let present = try Self.compareWithExiftool(scratch.file("jp2"))
    #expect(present["taken"] == 2 && present["camera"] == 2 && present["gps"] == 1)
  }

  /// XMP only, as exiftool writes it into JPEG, PNG, WebP, TIFF and HEIC files: each of the
  /// three dates, the orientation, make, model, software and lens.
  @Test func xmpOnlyFilesAndTheDateFallbacks() throws {
    let scratch = try TemporaryDirectory()
    try FileManager.default.createDirectory(atPath: scratch.file("xmp"), withIntermediateDirectories: true)
    let dates = [
      "-XMP-exif:DateTimeOriginal=2021-06-07T08:09:10+05:30",
      "-XMP-photoshop:DateCreated=2018-11-12T13:14:15",
      "-XMP-xmp:CreateDate=2017-01-02T03:04:05.678-07:00",
    ]
    for (index, ext) in ["jpg", "png", "webp", "tif", "heic"].enumerated() {
      let path = scratch.file("xmp/photo.\(ext)")
      if ext == "heic" {
        let png = scratch.file("base.png")
        try ExternalTool.make(["convert", "-size", "64x48", "plasma:", png])
        try ExternalTool.make(["heif-enc", "-q", "50", png, "-o", path])
      } else {
        try ExternalTool.make(["convert", "-size", "64x48", "plasma:", "-depth", "8", path])
      }
      try Self.exiftool(
        [
          dates[index % 3], "-XMP-tiff:Orientation#=\(index + 2)", "-XMP-tiff:Make=FUJIFILM",
          "-XMP-tiff:Model=X-T4",
          "-XMP-tiff:Software=Photos 1.0 – édition", "-XMP-exifEX:LensModel=XF18-55mmF2.8-4 R LM OIS",
        ], path)
    }
    // EXIF's CreateDate when there is no DateTimeOriginal.
    let created = scratch.file("xmp/created.jpg")
    try ExternalTool.make(["convert", "-size", "64x48", "plasma:", created])
    try Self.exiftool(["-CreateDate=2016:02:03 04:05:06", "-OffsetTimeDigitized=-03:00"], created)
    let present = try Self.compareWithExiftool(scratch.file("xmp"))
    #expect(present["taken"] == 6 && present["orientation"] == 5 && present["lens"] == 5)
  }

  @Test func xmpPropertiesAsAttributesOrElementsUnderAnyPrefix() {
    let packet = """
      <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
      <rdf:Description xmlns:e="http://ns.adobe.com/exif/1.0/" xmlns:t="http://ns.adobe.com/tiff/1.0/"
        e:DateTimeOriginal='2024-05-17T10:30:00.123Z' t:Make="Ni &amp; Co">
        <t:Orientation>6</t:Orientation><tiff:Model>ignored: tiff is not declared</tiff:Model>
      </rdf:Description></rdf:RDF></x:xmpmeta>
      """
    let xmp = XMPPacket(Array(packet.utf8))
    #expect(xmp.dateTimeOriginal == "2024-05-17T10:30:00.123Z")
    #expect(EXIFFacts.isoDate(xmp: xmp.dateTimeOriginal) == "2024-05-17T10:30:00Z")
    #expect(xmp.make == "Ni & Co" && xmp.orientation == 6 && xmp.model == nil)
    #expect(EXIFFacts.isoDate(xmp: "2024-05-17T10:30+02:00") == nil)
    #expect(EXIFFacts.isoDate(xmp: "2024-05-17") == nil)
  }
}

/// Hostile TIFF directories, containers and XMP packets: fewer facts, bounded reads, no trap.
@Suite struct EXIFFormatBadInputTests {
  /// A source that says it is 1 TiB long and counts what is read from it.
  final class CountingSource: ByteSource {
    let bytes: [UInt8]
    let size: Int64
    var readBytes = 0
    init(_ bytes: [UInt8], size: Int64 = 1 << 40) {
      self.bytes = bytes
      self.size = size
    }
    func read(count: Int, at offset: Int64) throws -> [UInt8] {
      readBytes += count
      guard offset < Int64(bytes.count) else { return [] }
      return Array(bytes[Int(offset)..<min(bytes.count, Int(offset) + count)])
    }
  }

  @Test func lyingDirectoriesCostBoundedReads() {
    // Make inline; Model with four billion values; the Exif IFD far past the end; the GPS IFD
    // is IFD0 itself; the next IFD is IFD0 again.
    let block = TestPhotos.tiff(
      [
        (0x010F, 2, 4, 0x4162_6300), (0x0110, 2, 0xFFFF_FFFF, 8), (0x8769, 4, 1, 0x7FFF_FFF0),
        (0x8825, 4, 1, 8), (0x0131, 2, 0x0100_0000, 8),
      ], next: 8)
    let source = CountingSource(block)
    let facts = EXIFBlockLocator.facts(source, mime: "image/tiff")
    #expect(facts == EXIFFacts(camera: "Abc"))
    #expect(source.readBytes < 256 << 10)
    // The same structure as a block from a container: the same facts.
    #expect(EXIFReader.facts(block: EXIFReader.header + block) == EXIFFacts(camera: "Abc"))
  }

  @Test func everyTruncationOfALateDirectoryIsSafe() {
    // IFD0 after 70,000 bytes of "strips", Make out of line.
    var file: [UInt8] = [0x4D, 0x4D, 0, 0x2A] + HostileFiles.bigEndian(70_008, count: 4)
    file += [UInt8](repeating: 0xAB, count: 70_000)
    file += HostileFiles.bigEndian(2, count: 2)
    file +=
      [0x01, 0x0F, 0, 2] + HostileFiles.bigEndian(6, count: 4) + HostileFiles.bigEndian(70_038, count: 4)
    file += [0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0]
    file += [0, 0, 0, 0] + Array("Canon".utf8) + [0]
    #expect(
      EXIFBlockLocator.facts(MemoryBytes(file), mime: "image/tiff")
        == EXIFFacts(camera: "Canon", orientation: 6))
    for cut in stride(from: 0, to: file.count, by: 7) {
      _ = EXIFBlockLocator.facts(MemoryBytes(Array(file[0..<cut])), mime: "image/tiff")
    }
  }

  @Test func megabytesOfXMPAreReadOnceAndCapped() {
    // 9 MiB of unclosed tags, then a property past the cap: nothing, in linear time.
    let junk = [UInt8](repeating: UInt8(ascii: "<"), count: 9 << 20)
    let late = Array(#"<x xmlns:tiff="http://ns.adobe.com/tiff/1.0/" tiff:Orientation="6"/>"#.utf8)
    #expect(XMPPacket(junk + late).orientation == nil)
    #expect(XMPPacket(late).orientation == 6)
    // Unclosed quotes and tags at the very end (the fuzzer's first find).
    for tail in ["<a b='c", "<a b", "<a b=", "<a b=\"c\" d", "<", "<a"] {
      #expect(XMPPacket(Array(tail.utf8)) == XMPPacket([]))
    }
    let clock = ContinuousClock()
    let start = clock.now
    _ = XMPPacket(Array(String(repeating: "<a b='c' d=\"&#x41;\">text&amp;", count: 200_000).utf8))
    #expect(clock.now - start < .seconds(20))
  }

  @Test func lyingContainersGiveNoFacts() {
    // A PSD whose resource section and resource claim more than the file holds.
    var psd: [UInt8] = Array("8BPS".utf8) + [0, 1] + [UInt8](repeating: 0, count: 6) + [0, 3]
    psd += HostileFiles.bigEndian(48, count: 4) + HostileFiles.bigEndian(64, count: 4) + [0, 8, 0, 3]
    psd += HostileFiles.bigEndian(0, count: 4) + HostileFiles.bigEndian(0x7FFF_FFFF, count: 4)
    psd += Array("8BIM".utf8) + [0x04, 0x22, 0, 0] + HostileFiles.bigEndian(0xFFFF_FFF0, count: 4)
    #expect(EXIFBlockLocator.facts(MemoryBytes(psd), mime: "image/vnd.adobe.photoshop") == nil)
    // A JP2 uuid box larger than the file, then one whose length overflows.
    let jp2 =
      HostileFiles.bigEndian(12, count: 4) + Array("jP  ".utf8) + [0x0D, 0x0A, 0x87, 0x0A]
      + HostileFiles.bigEndian(1, count: 4) + Array("uuid".utf8)
      + HostileFiles.bigEndian(UInt64.max, count: 8)
      + Array("JpgTiffExif->JP2".utf8)
    #expect(EXIFBlockLocator.facts(MemoryBytes(jp2), mime: "image/jp2") == nil)
    // A PNG raw profile whose length is more than its digits, and one that is not hexadecimal.
    #expect(EXIFBlockLocator.rawProfile(Array("\nexif\n      100\n4578696600\n".utf8)) == nil)
    #expect(EXIFBlockLocator.rawProfile(Array("\nexif\n99999999999\n00\n".utf8)) == nil)
  }

  @Test func aTextChunkThatInflatesPastTheLimitIsRefused() throws {
    // 20 MiB of hexadecimal digits in a zlib stream of about 20 KiB (made by Python's zlib).
    let bomb = try ExternalTool.run([
      "python3", "-c", "import sys, zlib; sys.stdout.buffer.write(zlib.compress(b'0' * (20 << 20), 9))",
    ]).stdout
    #expect(bomb.count < 64 << 10)
    let chunk = Array("Raw profile type exif".utf8) + [0, 0] + Array(bomb)
    #expect(EXIFBlockLocator.textChunk("zTXt", chunk) == nil)
    let small = try ExternalTool.run([
      "python3", "-c", "import sys, zlib; sys.stdout.buffer.write(zlib.compress(b'\\nexif\\n 2\\n4d4d\\n'))",
    ]).stdout
    let text = EXIFBlockLocator.textChunk(
      "zTXt", Array("Raw profile type exif".utf8) + [0, 0] + Array(small))
    #expect(text.map { EXIFBlockLocator.rawProfile($0.1) } == [0x4D, 0x4D])
  }
}
