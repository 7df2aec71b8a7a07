import Foundation
import ShelfTestSupport
import Testing

/// `shelf extract` never collides: each backup's files under a folder named for the backup
/// (`<Device name> YYYY-MM-DD`, made unique), several roots' under their names, `--name`
/// templates, ` (2)` for outputs that meet; symbolic links of a backup reported, never
/// followed; a missing password said as such.
@Suite struct ExtractLayoutTests {
  static let label = "Shelf Test iPhone 2024-05-01"
  /// The folders of the seven sample backups: made unique in path order (their dates agree).
  static let labels: [String: String] = {
    let sorted = SampleBackupCopy.eras.sorted()
    var labels: [String: String] = [:]
    for (index, era) in sorted.enumerated() { labels[era] = index == 0 ? label : "\(label) (\(index + 1))" }
    return labels
  }()

  static func files(_ folder: String) -> [String] {
    SampleBackupCopy.tree(folder).keys.sorted()
  }

  @Test(arguments: TestCatalogues.kinds) func everyBackupsRecordingGoesToAPathOfItsOwn(
    store: CatalogueStoreKind
  ) throws {
    let copy = try SampleBackupCopy(store)
    #expect(try copy.run(["index", copy.folder]).status == 0)
    let out = copy.scratch.file("out")
    let result = try copy.run(["extract", "area:recordings", "-o", out])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.isEmpty, "\(result.stderr)")
    #expect(result.stdout.hasPrefix("Extracted 7 of 7 files ("), "\(result.stdout)")
    let memo = SampleBackupCopy.files.first { $0.path.hasSuffix(".wav") }!
    let expected = SampleBackupCopy.eras.map { "\(Self.labels[$0]!)/MediaDomain/\(memo.path)" }.sorted()
    #expect(Self.files(out) == expected)
    for (path, bytes) in SampleBackupCopy.tree(out) {
      #expect(bytes == SampleBackupCopy.sampleBytes(memo.source), "\(path)")
    }

    // A backup keeps its folder whichever of its files a query picks.
    let one = copy.scratch.file("one")
    let single = try copy.run(["extract", "root:\(copy.backup("mbdb"))", "name:1.ogg", "-o", one])
    #expect(single.status == 0, "\(single.stderr)")
    #expect(Self.files(one) == ["\(Self.labels["mbdb"]!)/HomeDomain/Library/Voicemail/1.ogg"])
  }

  @Test func symbolicLinksOfABackupAreReportedAndNeverFollowed() throws {
    let copy = try SampleBackupCopy()
    let backup = copy.backup("manifest-db")
    #expect(try copy.run(["index", backup]).status == 0)
    let out = copy.scratch.file("out")
    let result = try copy.run(["extract", "area:voicemail", "-o", out])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(
      result.stderr == "\(backup)/HomeDomain/Library/Voicemail/latest.ogg: symbolic link to 1.ogg; skipped\n")
    #expect(result.stdout.hasPrefix("Extracted 1 of 1 file ("))
    #expect(result.stdout.hasSuffix("; 1 symbolic link skipped\n"))
    #expect(Self.files(out) == ["\(Self.label)/HomeDomain/Library/Voicemail/1.ogg"])
    let folder = out + "/\(Self.label)/HomeDomain/Library/Voicemail"
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["1.ogg"], "no link recreated")
  }

  @Test func aMissingPasswordIsReportedAsSuch() throws {
    let copy = try SampleBackupCopy()
    let backup = copy.backup("manifest-db-encrypted")
    #expect(try copy.run(["index", backup]).status == 0)
    let out = copy.scratch.file("out")
    let result = try copy.run(["extract", "root:\(backup)", "-o", out], password: nil)
    #expect(result.status == 77)
    #expect(
      result.stderr
        == "error: \(backup): encrypted backup: a password is needed (give --password-file FILE, set SHELF_BACKUP_PASSWORD, or run on a terminal to be asked)\n"
    )
    #expect(result.stdout.hasPrefix("Extracted 0 of 5 files (0 B) in "), "\(result.stdout)")
    #expect(result.stdout.hasSuffix("; 5 failed (password needed)\n"), "\(result.stdout)")
    #expect(!FileManager.default.fileExists(atPath: out))
  }

  @Test func aNameTemplateNamesTheOutputsAndNumbersThoseThatMeet() throws {
    let copy = try SampleBackupCopy()
    for era in ["manifest-db", "mbdb", "mdbackup"] {
      #expect(try copy.run(["index", copy.backup(era)]).status == 0)
    }
    let out = copy.scratch.file("memos")
    let result = try copy.run(["extract", "area:recordings", "--name", "{title}.{ext}", "-o", out])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(Self.files(out) == ["A440 Tone (2).wav", "A440 Tone (3).wav", "A440 Tone.wav"])

    // An empty field in a folder part is 'unknown'; the template's own '/' makes folders.
    let years = copy.scratch.file("years")
    let photos = try copy.run(["extract", "kind:image", "--name", "{taken:%Y}/{domain}-{name}", "-o", years])
    #expect(photos.status == 0, "\(photos.stderr)")
    #expect(
      Self.files(years) == [
        "unknown/CameraRollDomain-IMG_0001 (2).PNG", "unknown/CameraRollDomain-IMG_0001 (3).PNG",
        "unknown/CameraRollDomain-IMG_0001.PNG",
      ])

    // An output that exists is still refused without --force.
    let again = try copy.run(["extract", "area:recordings", "--name", "{title}.{ext}", "-o", out])
    #expect(again.status == 0, "identical files are left as they are: \(again.stderr)")
    try Data("mine".utf8).write(to: URL(fileURLWithPath: out + "/A440 Tone.wav"))
    let first = copy.backup("manifest-db")
    let refused = try copy.run([
      "extract", "root:\(first)", "area:recordings", "--name", "{title}.{ext}", "-o", out,
    ])
    #expect(refused.status == 73)
    #expect(
      refused.stderr
        == "error: \(first)/MediaDomain/Media/Recordings/20240501 093000.wav: \(out)/A440 Tone.wav exists with different content; not replaced (--force replaces it)\n"
    )
    #expect(FileManager.default.contents(atPath: out + "/A440 Tone.wav") == Data("mine".utf8))
  }

  @Test func photosAreFiledByTheYearTheyWereTaken() throws {
    let scratch = try TemporaryDirectory()
    let camera = try scratch.copy(fromRepository: "SampleMedia/Documents/Camera")
    let database = scratch.file("catalog.sqlite")
    #expect(try ShelfProcess.run(["--db", database, "index", camera]).status == 0)
    let out = scratch.file("photos")
    let result = try ShelfProcess.run([
      "--db", database, "extract", "taken:", "--name", "{taken:%Y}/{taken:%m %B}/{name}", "-o", out,
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(
      Self.files(out) == [
        "2022/08 August/DSC01234.JPG", "2024/05 May/IMG_0001.HEIC", "2024/05 May/portrait-clip.mov",
      ])
  }

  /// A small root of notes whose first lines hold a slash and a very long name.
  final class Notes {
    let scratch: TemporaryDirectory
    let database: String

    init(roots: [String] = ["notes"]) throws {
      scratch = try TemporaryDirectory()
      database = scratch.file("catalog.sqlite")
      for root in roots {
        try scratch.write(root + "/Documents/a.txt", Array("either/or\n".utf8))
        try scratch.write(
          root + "/Documents/long.txt", Array((String(repeating: "é", count: 200) + "\n").utf8))
        #expect(try run(["index", scratch.file(root)]).status == 0)
      }
    }

    func run(_ arguments: [String]) throws -> ShelfResult {
      try ShelfProcess.run(["--db", database] + arguments)
    }
  }

  @Test func valuesCannotMakeFoldersAndNamesAreCutTo255Bytes() throws {
    let notes = try Notes()
    let out = notes.scratch.file("out")
    let result = try notes.run(["extract", "ext:txt", "--name", "{first_line}.{ext}", "-o", out])
    #expect(result.status == 0, "\(result.stderr)")
    let long = String(repeating: "é", count: 125) + ".txt"
    #expect(long.utf8.count == 254, "cut before a character that would pass 255 bytes")
    #expect(Self.files(out) == ["either_or.txt", long].sorted())
  }

  @Test func dotPartsAreRefused() throws {
    let notes = try Notes()
    let out = notes.scratch.file("out")
    let result = try notes.run(["extract", "name:a.txt", "--name", "../{name}", "-o", out])
    #expect(result.status == 65)
    #expect(
      result.stderr
        == "error: \(notes.scratch.file("notes"))/Documents/a.txt: unsafe path ('..' part); not extracted\n")
    #expect(!FileManager.default.fileExists(atPath: notes.scratch.file("a.txt")))
    let unnamed = try notes.run(["extract", "name:a.txt", "--name", "{title}/", "-o", out])
    #expect(unnamed.status == 65)
    #expect(
      unnamed.stderr
        == "error: \(notes.scratch.file("notes"))/Documents/a.txt: unsafe path (the template gives it no file name); not extracted\n"
    )
    let usage = try notes.run(["extract", "ext:txt", "--name", "$name", "-o", out])
    #expect(usage.status == 64)
    #expect(
      usage.stderr.hasPrefix("error: --name: expects fields as {field}: write '{name}', not beets' '$name'\n")
    )
    let ls = try notes.run(["ls", "--format", "$title - ${artist}"])
    #expect(ls.status == 64)
    #expect(
      ls.stderr.hasPrefix(
        "error: --format: expects fields as {field}: write '{title}', not beets' '$title'\n"))
  }

  @Test func severalRootsGoUnderTheirNamesAndFlatNamesAreNumbered() throws {
    let notes = try Notes(roots: ["one", "two"])
    let out = notes.scratch.file("out")
    let result = try notes.run(["extract", "name:a.txt", "-o", out])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(Self.files(out) == ["one/Documents/a.txt", "two/Documents/a.txt"])
    let flat = notes.scratch.file("flat")
    let flattened = try notes.run(["extract", "--flat", "name:a.txt", "-o", flat])
    #expect(flattened.status == 0, "\(flattened.stderr)")
    #expect(Self.files(flat) == ["a (2).txt", "a.txt"])
  }
}
