import Foundation
import ShelfTestSupport
import Testing

/// Every crasher of issue 21's arithmetic classes (binary plists, BigTIFF, JPEG 2000, ICO,
/// XPM, RF64 and Ogg lengths) in one tree beside good files: `shelf index` catalogues them all,
/// each bad one with its reason, and a rescan neither crashes nor reads them again.
@Suite(
  .enabled(if: ExternalTool.isInstalled(["ffmpeg"]), "needs ffmpeg (scripts/setup.sh installs it)"))
struct HostileFilesIndexTests {
  /// The crashers, by file name, and the reason each is catalogued with.
  static func crashers() throws -> [(name: String, bytes: [UInt8], reason: String)] {
    let length = "corrupt: declared length of \(Double(Int64.max) / 8000) s is out of range"
    return [
      (
        "wide-integer.plist", HostileFiles.plistWideInteger(),
        "corrupt binary plist: integer of 64 bytes at byte 8"
      ),
      (
        "array-reference.plist", HostileFiles.plistArrayReference(),
        "corrupt binary plist: reference 9223372036854775808 past the object table"
      ),
      (
        "dictionary-key.plist", HostileFiles.plistDictionaryKeyReference(),
        "corrupt binary plist: reference 9223372036854775808 past the object table"
      ),
      (
        "count.tif", HostileFiles.bigTIFFOverflowingCount(),
        "corrupt TIFF: tag 256 declares 2305843009213693952 values, more than the file holds"
      ),
      (
        "xlbox.jp2", HostileFiles.jpeg2000OverflowingXLBox(),
        "truncated JP2: free box at byte 32 declares 9223372036854775807 bytes, the file holds 32"
      ),
      (
        "entry.ico", HostileFiles.icoHugePNGEntry(), "corrupt ICO: entry 2 is a PNG of 4294967295×4294967295"
      ),
      ("colours.xpm", HostileFiles.xpmNegativeColours(), "corrupt XPM: -1 colours"),
      ("samples.wav", try HostileFiles.rf64WithHugeSampleCount(), length),
      ("granule.ogg", try HostileFiles.oggWithHugeLastGranule(), length),
    ]
  }

  /// Good files of the same kinds, which must be catalogued as before.
  static func goodFiles() -> [(name: String, bytes: [UInt8])] {
    var wave = Array("RIFF".utf8) + [44, 0, 0, 0] + Array("WAVEfmt ".utf8) + [16, 0, 0, 0, 1, 0, 1, 0]
    wave += [0x40, 0x1F, 0, 0, 0x80, 0x3E, 0, 0, 2, 0, 16, 0] + Array("data".utf8) + [8, 0, 0, 0]
    wave += [1, 0, 2, 0, 3, 0, 4, 0]
    let xml = """
      <?xml version="1.0" encoding="UTF-8"?>
      <plist version="1.0"><dict><key>Name</key><string>shelf</string></dict></plist>

      """
    return [
      ("notes.txt", Array("good notes\n".utf8)),
      ("settings.plist", Array(xml.utf8)),
      ("binary.plist", HostileFiles.plistDictionaryKeyReference(1)),
      ("tone.wav", wave),
      (
        "good.xpm",
        Array(
          "/* XPM */\nstatic char *icon[] = {\n\"2 2 1 1\",\n\"a c #FF0000\",\n\"aa\",\n\"aa\",\n};\n".utf8)
      ),
    ]
  }

  @Test func indexCataloguesEveryHostileFileWithItsReasonAndARescanSkipsThem() throws {
    let scratch = try TemporaryDirectory()
    let root = scratch.path + "/tree"
    try scratch.makeDirectory("tree")
    let crashers = try Self.crashers()
    for file in crashers { try scratch.write("tree/bad/" + file.name, file.bytes) }
    let good = Self.goodFiles()
    for file in good { try scratch.write("tree/" + file.name, file.bytes) }
    _ = try scratch.copy(fromRepository: "Tests/Fixtures/pngsuite/basn2c08.png", as: "tree/photo.png")
    let total = crashers.count + good.count + 1
    let database = scratch.path + "/catalog.sqlite"
    let environment = ["SHELF_TRUST_WINDOW": "0"]

    let first = try ShelfProcess.run(
      ["--db", database, "-v", "index", root], environment: environment, timeout: 120)
    // The run went on past every crasher (no signal, every file counted) and says that some
    // files failed: status 1.
    #expect(first.status == 1, "\(first.status): \(first.stderr)")
    #expect(
      first.stdout
        == "\(root): \(total) files\n  \(total) new, 0 updated, 0 unchanged, 0 moved, 0 removed\n  \(crashers.count) with errors\n"
    )
    for file in crashers {
      #expect(first.stderr.contains("warning: \(root)/bad/\(file.name): \(file.reason)\n"), "\(file.name)")
    }

    let listed = try ShelfProcess.run(["--db", database, "ls", "--json"], environment: environment)
    let records = try JSONSerialization.jsonObject(with: Data(listed.stdoutBytes)) as? [[String: Any]] ?? []
    var byName: [String: [String: Any]] = [:]
    for record in records {
      byName[String((record["path"] as? String ?? "").dropFirst(root.count + 1))] = record
    }
    #expect(byName.count == total)
    for file in crashers {
      #expect(byName["bad/" + file.name]?["error"] as? String == file.reason, "\(file.name)")
    }
    for name in good.map(\.name) + ["photo.png"] {
      #expect(byName[name] != nil, "\(name) not catalogued")
      #expect(byName[name]?["error"] == nil, "\(name): \(byName[name]?["error"] ?? "")")
    }
    func fact(_ name: String, _ group: String, _ key: String) -> Int? {
      (byName[name]?[group] as? [String: Any])?[key] as? Int
    }
    #expect(fact("photo.png", "image", "width") == 32)
    #expect(fact("good.xpm", "image", "width") == 2)
    #expect(fact("tone.wav", "audio", "frames") == 4)
    #expect(byName["binary.plist"]?["kind"] as? String == byName["settings.plist"]?["kind"] as? String)
    // The lengths that would have trapped are catalogued as unknown (no frames).
    #expect(fact("bad/samples.wav", "audio", "frames") == 0)
    #expect(fact("bad/granule.ogg", "audio", "frames") == 0)

    // A rescan meets the same files: it finishes, and reads none of them again.
    let second = try ShelfProcess.run(
      ["--db", database, "index", root], environment: environment, timeout: 120)
    // Nothing failed in this run: nothing was read.
    #expect(second.status == 0, "\(second.status): \(second.stderr)")
    #expect(
      second.stdout
        == "\(root): \(total) files\n  0 new, 0 updated, \(total) unchanged, 0 moved, 0 removed\n")
    #expect(!second.stderr.contains("warning:"))
  }

  /// A file dated past 2262 (a bad clock, an archive's odd date: ext4 holds times up to 2446)
  /// once trapped the walk in the nanosecond arithmetic: it is catalogued with the nearest time
  /// a nanosecond count holds, and the rescan finishes too.
  @Test func filesDatedOutsideWhatNanosecondsCountAreCataloguedAtTheNearestTime() throws {
    let scratch = try TemporaryDirectory()
    let root = scratch.path + "/tree"
    try scratch.write("tree/future.txt", Array("from the future\n".utf8))
    try scratch.write("tree/today.txt", Array("from today\n".utf8))
    let future = [timespec(tv_sec: 15_000_000_000, tv_nsec: 0), timespec(tv_sec: 15_000_000_000, tv_nsec: 0)]
    #expect(utimensat(AT_FDCWD, root + "/future.txt", future, 0) == 0)
    let database = scratch.path + "/catalog.sqlite"
    let environment = ["TZ": "UTC"]
    for _ in 0..<2 {
      let run = try ShelfProcess.run(
        ["--db", database, "index", root], environment: environment, timeout: 60)
      #expect(run.status == 0, "\(run.status): \(run.stderr)")
      #expect(run.stdout.hasPrefix("\(root): 2 files\n"))
    }
    let listed = try ShelfProcess.run(["--db", database, "ls", "--json"], environment: environment)
    let records = try JSONSerialization.jsonObject(with: Data(listed.stdoutBytes)) as? [[String: Any]] ?? []
    let times = Dictionary(
      uniqueKeysWithValues: records.map { ($0["path"] as? String ?? "", $0["mtime"] as? String ?? "") })
    #expect(times[root + "/future.txt"] == "2262-04-11T23:47:16Z")
    #expect(times[root + "/today.txt"]?.hasPrefix("20") == true)
  }
}
