import Foundation
import ShelfCore
import ShelfTestSupport
import Testing

@testable import ShelfFacts

/// Photos whose EXIF other programs wrote (Pillow, heif-enc, exiftool into ImageMagick's files),
/// made by `scripts/exif_photos.py` in a scratch folder.
enum EXIFTestPhotos {
  /// exiftool's values (`-json -n`) for the fields shelf reads, by file name.
  static func exiftool(_ folder: String) throws -> [String: [String: Any]] {
    let outcome = try ExternalTool.run(
      [
        "exiftool", "-json", "-n", "-DateTimeOriginal", "-OffsetTimeOriginal", "-DateCreated", "-CreateDate",
        "-OffsetTimeDigitized", "-Make", "-Model",
        "-LensModel",
        "-Orientation", "-Software", "-Composite:GPSLatitude", "-Composite:GPSLongitude",
        "-Composite:GPSAltitude", "-MediaGroupUUID", folder,
      ])
    guard outcome.status == 0,
      let list = try JSONSerialization.jsonObject(with: outcome.stdout) as? [[String: Any]]
    else { throw TestPhotos.SetUpFailure(message: "exiftool: " + outcome.stderr) }
    var byName: [String: [String: Any]] = [:]
    for object in list {
      let name = (object["SourceFile"] as? String ?? "").split(separator: "/").last.map(String.init) ?? ""
      byName[name] = object
    }
    return byName
  }

  /// What shelf should say, spelled out from exiftool's tags: the date as ISO-8601 with the
  /// offset appended (DateTimeOriginal, else XMP's DateCreated, else CreateDate, as exiftool's
  /// MWG composites fall back), the make dropped when the model starts with its first word.
  static func expected(_ tags: [String: Any]) -> EXIFFacts {
    func text(_ key: String) -> String? { tags[key].map { "\($0)" } }
    var facts = EXIFFacts()
    facts.taken =
      isoDate(text("DateTimeOriginal"), offset: text("OffsetTimeOriginal")) ?? isoDate(text("DateCreated"))
      ?? isoDate(text("CreateDate"), offset: text("OffsetTimeDigitized"))
    switch (text("Make"), text("Model")) {
    case (let make?, let model?):
      let word = make.split(separator: " ")[0].lowercased()
      facts.camera = model.lowercased().hasPrefix(word) ? model : make + " " + model
    case (let make, let model): facts.camera = model ?? make
    }
    facts.lens = text("LensModel")
    facts.orientation = tags["Orientation"] as? Int
    facts.software = text("Software")
    if let latitude = tags["GPSLatitude"] as? Double, let longitude = tags["GPSLongitude"] as? Double {
      facts.gps = GPSPosition(
        latitude: latitude, longitude: longitude, altitude: tags["GPSAltitude"] as? Double)
    }
    facts.contentIdentifier = text("MediaGroupUUID")
    return facts
  }

  /// An exiftool date (`2024:05:17 10:30:00`; from XMP with `.25` and `+02:00` after it) in
  /// ISO-8601, fractions of a second dropped; nil when zero or without seconds.
  static func isoDate(_ value: String?, offset: String? = nil) -> String? {
    guard let value, value.count >= 19, !value.hasPrefix("0000") else { return nil }
    var characters = Array(value)
    guard characters[16] == ":" else { return nil }
    characters[4] = "-"
    characters[7] = "-"
    characters[10] = "T"
    var rest = characters[19...]
    if rest.first == "." { rest = rest.dropFirst().drop(while: \.isNumber) }
    return String(characters[..<19]) + (rest.isEmpty ? offset ?? "" : String(rest))
  }

  /// The MIME type shelf's sniffer gives a test photo.
  static func mime(_ path: String) throws -> String {
    let file = try RegularFile(path: RawPath(path))
    return try ContentSniffer.sniff(file, fileExtension: RawPath(path).lowercasedExtension).mime
  }
}

@Suite struct EXIFTests {
  /// Every field of every test photo against exiftool's values; GPS to 1e-9 degrees.
  @Test func everyFieldMatchesExiftool() throws {
    let scratch = try TestPhotos.make()
    let folder = scratch.file("photos")
    let reference = try EXIFTestPhotos.exiftool(folder)
    let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    #expect(names.count == 12)
    var compared: [String: Int] = [:]
    for name in names {
      let path = folder + "/" + name
      let tags = try #require(reference[name], "\(name)")
      let want = EXIFTestPhotos.expected(tags)
      let file = try RegularFile(path: RawPath(path))
      let got = EXIFBlockLocator.facts(file, mime: try EXIFTestPhotos.mime(path)) ?? EXIFFacts()
      #expect(got.taken == want.taken, "\(name)")
      #expect(got.camera == want.camera, "\(name)")
      #expect(got.lens == want.lens, "\(name)")
      #expect(got.orientation == want.orientation, "\(name)")
      #expect(got.software == want.software, "\(name)")
      #expect(got.contentIdentifier == want.contentIdentifier, "\(name)")
      #expect((got.gps == nil) == (want.gps == nil), "\(name)")
      if let gps = got.gps, let expected = want.gps {
        #expect(abs(gps.latitude - expected.latitude) < 1e-9, "\(name)")
        #expect(abs(gps.longitude - expected.longitude) < 1e-9, "\(name)")
        #expect((gps.altitude == nil) == (expected.altitude == nil), "\(name)")
        #expect(abs((gps.altitude ?? 0) - (expected.altitude ?? 0)) < 1e-9, "\(name)")
      }
      let ext = RawPath(path).lowercasedExtension
      for (field, present) in [
        ("taken", want.taken), ("camera", want.camera), ("lens", want.lens), ("software", want.software),
        ("gps", want.gps.map { "\($0)" }), ("orientation", want.orientation.map { "\($0)" }),
        ("content", want.contentIdentifier),
      ] where present != nil {
        compared[field + "." + ext, default: 0] += 1
      }
    }
    // Every container carries every field in at least one file: none is compared vacuously.
    for ext in ["jpg", "png", "webp", "tif", "heic"] {
      for field in ["taken", "camera", "lens", "software", "gps", "orientation"] {
        #expect(compared[field + "." + ext] ?? 0 >= 1, "\(field) in .\(ext)")
      }
    }
    #expect(compared["content.jpg"] == 1 && compared["content.heic"] == 1)
    #expect(compared["camera.tiff"] == 1)
  }

  @Test func cameraNamesAsExiftoolUsersWriteThem() {
    #expect(EXIFFacts.cameraName(make: "Apple", model: "iPhone 12 Pro") == "Apple iPhone 12 Pro")
    #expect(EXIFFacts.cameraName(make: "Canon", model: "Canon EOS 5D") == "Canon EOS 5D")
    #expect(EXIFFacts.cameraName(make: "NIKON CORPORATION", model: "NIKON D750") == "NIKON D750")
    #expect(EXIFFacts.cameraName(make: "samsung", model: "SM-G991B") == "samsung SM-G991B")
    #expect(EXIFFacts.cameraName(make: nil, model: "X100V") == "X100V")
    #expect(EXIFFacts.cameraName(make: "FUJIFILM", model: nil) == "FUJIFILM")
  }

  @Test func datesThatAreBlankOrMalformedAreDropped() {
    #expect(EXIFFacts.isoDate("2024:05:17 10:30:00", offset: "+02:00") == "2024-05-17T10:30:00+02:00")
    #expect(EXIFFacts.isoDate("2024:05:17 10:30:00", offset: nil) == "2024-05-17T10:30:00")
    #expect(EXIFFacts.isoDate("2024:05:17 10:30:00", offset: "   ") == "2024-05-17T10:30:00")
    #expect(EXIFFacts.isoDate("0000:00:00 00:00:00", offset: nil) == nil)
    #expect(EXIFFacts.isoDate("    :  :     :  :  ", offset: nil) == nil)
    #expect(EXIFFacts.isoDate("2024:13:01 10:30:00", offset: nil) == nil)
    #expect(EXIFFacts.isoDate("2024:05:17", offset: nil) == nil)
  }
}

/// Hostile EXIF blocks and containers: fewer facts, never a hang, a crash or a read outside.
@Suite struct EXIFBadInputTests {
  @Test func aDirectoryLoopEndsWithTheFactsBeforeIt() {
    // IFD0 names itself as the next IFD and as the EXIF and GPS IFDs; Make "Abc" inline.
    let block = TestPhotos.tiff(
      [(0x010F, 2, 4, 0x4162_6300), (0x8769, 4, 1, 8), (0x8825, 4, 1, 8)], next: 8)
    let facts = EXIFReader.facts(block: EXIFReader.header + block)
    #expect(facts?.camera == "Abc")
    #expect(facts?.gps == nil)
  }

  @Test func offsetsOutsideTheBlockGiveNoValue() {
    let entryCount: UInt32 = 4
    let dataStart = 8 + 2 + 12 * entryCount + 4
    let block = TestPhotos.tiff(
      [
        (0x010F, 2, 6, dataStart),  // Make "Canon\0", inside
        (0x0110, 2, 20, 0xFFFF_FF00),  // Model far past the end
        (0x8769, 4, 1, 0x7FFF_FFF0),  // EXIF IFD past the end
        (0x8825, 4, 1, dataStart + 2),  // GPS IFD overlapping the Make string
      ], tail: Array("Canon".utf8) + [0])
    let facts = EXIFReader.facts(block: EXIFReader.header + block)
    #expect(facts?.camera == "Canon")
    #expect(facts?.taken == nil && facts?.gps == nil)
  }

  @Test func everyTruncationOfARealBlockIsSafe() throws {
    let scratch = try TestPhotos.make()
    let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: scratch.file("photos/pillow-iphone.jpg"))))
    let block = try #require(try EXIFBlockLocator.jpegBlocks(MemoryBytes(bytes)).exif)
    #expect(EXIFReader.facts(block: block)?.gps != nil)
    var withFacts = 0
    for length in 0..<block.count where EXIFReader.facts(block: Array(block[0..<length])) != nil {
      withFacts += 1
    }
    // Cut inside IFD0 nothing is read; cut after it, the early facts are.
    #expect(withFacts > 0 && withFacts < block.count)
    // A file cut inside its APP1 segment has no EXIF block, and is still read as far as it goes.
    for cut in [4, 20, block.count / 2] {
      #expect(EXIFBlockLocator.facts(MemoryBytes(Array(bytes[0..<cut])), mime: "image/jpeg") == nil)
    }
  }

  /// A JPEG of endless 65535-byte segments: the walk stops after a bounded number of reads.
  @Test func anEndlessSegmentChainIsWalkedABoundedNumberOfTimes() {
    final class EndlessSegments: ByteSource {
      var reads = 0
      var size: Int64 { 1 << 40 }
      func read(count: Int, at offset: Int64) throws -> [UInt8] {
        reads += 1
        if offset == 0 { return [0xFF, 0xD8] }
        return Array([0xFF, 0xE2, 0xFF, 0xFF].prefix(count))
      }
    }
    let source = EndlessSegments()
    #expect(EXIFBlockLocator.facts(source, mime: "image/jpeg") == nil)
    #expect(source.reads <= 1000)
  }

  @Test func lyingChunkLengthsAndBoxSizesGiveNoFacts() {
    // A PNG whose eXIf chunk claims 2 GiB; a WebP whose EXIF chunk runs past the end.
    let png: [UInt8] =
      [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [0x7F, 0xFF, 0xFF, 0xF0] + Array("eXIf".utf8)
      + [0x4D, 0x4D, 0, 0x2A]
    #expect(EXIFBlockLocator.facts(MemoryBytes(png), mime: "image/png") == nil)
    let webp: [UInt8] =
      Array("RIFF".utf8) + [40, 0, 0, 0] + Array("WEBPEXIF".utf8) + [0xFF, 0xFF, 0, 0]
      + [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8]
    #expect(EXIFBlockLocator.facts(MemoryBytes(webp), mime: "image/webp") == nil)
    // A HEIF whose meta box claims to be far larger than the file.
    let heif: [UInt8] =
      [0, 0, 0, 24] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)
      + [0xFF, 0xFF, 0xFF, 0xF0] + Array("meta".utf8) + [0, 0, 0, 0] + [0, 0, 0, 33] + Array("hdlr".utf8)
    #expect(EXIFBlockLocator.facts(MemoryBytes(heif), mime: "image/heic") == nil)
    #expect(EXIFBlockLocator.facts(MemoryBytes([]), mime: "image/heic") == nil)
  }
}
