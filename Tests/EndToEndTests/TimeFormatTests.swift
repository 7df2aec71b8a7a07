import Foundation
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// One time format: RFC 3339 everywhere. Modification, scan and backup times in the local
/// zone with its offset (`Z` in UTC); a camera's time with the offset it recorded (QuickTime's
/// `+0200` as `+02:00`), or none when it recorded none. The zone is fixed through `TZ`.
@Suite struct TimeFormatTests {
  /// Two hours east of UTC, as a POSIX TZ string (needs no zone database).
  static let plusTwo = ["TZ": "CEST-2"]
  static let utc = ["TZ": "UTC0"]
  /// 2024-05-01T12:30:00Z.
  static let noteTime: time_t = 1_714_566_600

  /// A folder with a note of a known modification time, the sample video and HEIC photo, and
  /// the sample JPEG with its EXIF offsets removed, indexed.
  final class TimedFolder {
    let scratch: TemporaryDirectory
    let root: String
    let database: String

    init() throws {
      scratch = try TemporaryDirectory()
      root = scratch.file("media")
      let note = try scratch.write("media/note.txt", Array("a note\n".utf8))
      var times = [
        timespec(tv_sec: TimeFormatTests.noteTime, tv_nsec: 0),
        timespec(tv_sec: TimeFormatTests.noteTime, tv_nsec: 0),
      ]
      #expect(utimensat(AT_FDCWD, note, &times, 0) == 0)
      for name in ["portrait-clip.mov", "IMG_0001.HEIC", "DSC01234.JPG"] {
        let source = ShelfProcess.repositoryRoot.appendingPathComponent(
          "SampleMedia/Documents/Camera/" + name)
        try FileManager.default.copyItem(atPath: source.path, toPath: root + "/" + name)
      }
      try FileManager.default.moveItem(atPath: root + "/DSC01234.JPG", toPath: root + "/naive.jpg")
      try ExternalTool.make([
        "exiftool", "-q", "-overwrite_original", "-OffsetTime=", "-OffsetTimeOriginal=",
        "-OffsetTimeDigitized=",
        root + "/naive.jpg",
      ])
      database = scratch.file("catalog.sqlite")
      let indexed = try run(["index", root])
      #expect(indexed.status == 0, "\(indexed.stderr)")
    }

    func run(_ arguments: [String], environment: [String: String] = TimeFormatTests.plusTwo) throws
      -> ShelfResult
    {
      try ShelfProcess.run(
        ["--db", database] + arguments, environment: ["SHELF_TRUST_WINDOW": "0"].merging(environment) { $1 })
    }

    /// `ls --json` records by file name.
    func records(environment: [String: String] = TimeFormatTests.plusTwo) throws -> [String: [String: Any]] {
      let listing = try run(["ls", "--json"], environment: environment)
      let array = try JSONSerialization.jsonObject(with: Data(listing.stdoutBytes)) as? [[String: Any]] ?? []
      return Dictionary(
        array.map { ((($0["path"] as? String) ?? "").split(separator: "/").last.map(String.init) ?? "", $0) }
      ) { first, _ in first }
    }
  }

  /// A date in a query names the local day or hour, as `ls` prints modification times: the
  /// note (12:30 UTC) is on 2 May thirteen hours east of UTC.
  @Test func queryDatesAreInTheLocalZone() throws {
    let folder = try TimedFolder()
    func matches(_ term: String, _ environment: [String: String]) throws -> Bool {
      let listing = try folder.run(["ls", "-0", "name:note.txt", term], environment: environment)
      #expect(listing.status == 0 || listing.status == 1, "\(listing.stderr)")
      return listing.status == 0
    }
    #expect(try matches("mtime:2024-05-01T14", Self.plusTwo))
    #expect(try !matches("mtime:2024-05-01T12", Self.plusTwo))
    #expect(try matches("mtime:2024-05-01T12", Self.utc))
    let farEast = ["TZ": "NZST-13"]
    #expect(try matches("mtime:2024-05-02", farEast))
    #expect(try !matches("mtime:2024-05-01", farEast))
    #expect(try matches("mtime:2024-05-01", Self.utc))
    #expect(try matches("mtime:..2024-05-02T01:31", farEast))
    #expect(try !matches("mtime:..2024-05-02T01:29", farEast))
  }

  @Test func modificationTimesAreInTheLocalZoneWithItsOffset() throws {
    let folder = try TimedFolder()
    #expect(try folder.records()["note.txt"]?["mtime"] as? String == "2024-05-01T14:30:00+02:00")
    #expect(
      try folder.records(environment: Self.utc)["note.txt"]?["mtime"] as? String == "2024-05-01T12:30:00Z")
    let template = try folder.run(["ls", "-f", "{mtime} {mtime:%d %B %Y, %H:%M %z}", "name:note.txt"])
    #expect(template.status == 0, "\(template.stderr)")
    #expect(template.stdout == "2024-05-01T14:30:00+02:00 01 May 2024, 14:30 +0200\n")
    let long = try folder.run(["ls", "-l", "name:note.txt"])
    #expect(long.stdout.contains(" 2024-05-01T14:30:00+02:00"), "\(long.stdout)")
    let info = try folder.run(["info", folder.root + "/note.txt"])
    #expect(info.stdout.contains("modified:     2024-05-01T14:30:00+02:00\n"), "\(info.stdout)")
  }

  @Test func cameraTimesKeepTheOffsetTheyRecordedOrNone() throws {
    let folder = try TimedFolder()
    for environment in [Self.plusTwo, Self.utc] {
      let records = try folder.records(environment: environment)
      let video = records["portrait-clip.mov"]?["video"] as? [String: Any]
      #expect(video?["taken"] as? String == "2024-05-01T14:30:00+02:00")
      let photo = records["IMG_0001.HEIC"]?["image"] as? [String: Any]
      #expect(photo?["taken"] as? String == "2024-05-17T10:30:00-07:00")
      let naive = records["naive.jpg"]?["image"] as? [String: Any]
      #expect(naive?["taken"] as? String == "2022-08-14T16:20:05", "no zone is guessed")
    }
    let info = try folder.run(["info", folder.root + "/portrait-clip.mov"])
    #expect(info.stdout.contains("taken:        2024-05-01T14:30:00+02:00\n"), "\(info.stdout)")
    let years = try folder.run(["ls", "-f", "{name} {taken:%Y/%m %H:%M%z}", "--sort", "taken", "taken:"])
    #expect(years.status == 0, "\(years.stderr)")
    #expect(
      years.stdout == """
        naive.jpg 2022/08 16:20
        portrait-clip.mov 2024/05 14:30+0200
        IMG_0001.HEIC 2024/05 10:30-0700

        """)
  }

  @Test func scanAndBackupDatesAreInTheLocalZone() throws {
    let copy = try SampleBackupCopy()
    #expect(try copy.run(["index", copy.backup("manifest-db")]).status == 0)
    let roots = try ShelfProcess.run(["--db", copy.database, "roots", "--json"], environment: Self.plusTwo)
    let records = try JSONSerialization.jsonObject(with: Data(roots.stdoutBytes)) as? [[String: Any]] ?? []
    let record = try #require(records.first)
    #expect((record["backup"] as? [String: Any])?["date"] as? String == "2024-05-01T11:30:00+02:00")
    let scanned = try #require(record["last_scan"] as? String)
    #expect(scanned.count == 25 && scanned.hasSuffix("+02:00"), "\(scanned)")
    let text = try ShelfProcess.run(["--db", copy.database, "roots"], environment: Self.plusTwo)
    #expect(text.stdout.contains("iOS 17.5, 2024-05-01T11:30:00+02:00, not encrypted, manifest-db\n"))
    let stats = try ShelfProcess.run(["--db", copy.database, "stats"], environment: Self.plusTwo)
    #expect(stats.stdout.contains("2024-05-01T11:30:00+02:00, not encrypted, manifest-db)  scanned "))
    #expect(stats.stdout.contains("  scanned \(scanned)"), "\(stats.stdout)")
    let utc = try ShelfProcess.run(["--db", copy.database, "roots", "--json"], environment: Self.utc)
    #expect(utc.stdout.contains("\"date\":\"2024-05-01T09:30:00Z\""), "\(utc.stdout)")
  }

  @Test func propertyListDatesAreInTheLocalZone() throws {
    let plist = ShelfProcess.repositoryRoot.appendingPathComponent("SampleMedia/Documents/settings.plist")
      .path
    let shown = try ShelfProcess.run(["show", plist], environment: Self.plusTwo)
    #expect(shown.stdout.contains("\"LastOpened\" => 2024-05-01T14:00:00+02:00\n"), "\(shown.stdout)")
  }
}
