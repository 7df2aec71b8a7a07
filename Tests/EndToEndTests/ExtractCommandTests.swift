import Foundation
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `shelf extract`: catalogued files copied out byte for byte under their root-relative paths,
/// with their modification times; existing files never replaced without --force; nothing
/// written outside the output folder.
@Suite struct ExtractCommandTests {
  static func bytes(_ path: String) -> [UInt8]? {
    FileManager.default.contents(atPath: path).map { [UInt8]($0) }
  }

  static func mtime(_ path: String) -> Int64 {
    var st = stat()
    guard stat(path, &st) == 0 else { return -1 }
    return Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
  }

  /// A small root of notes in two folders (two share a name), indexed.
  final class NotesRoot {
    let scratch: TemporaryDirectory
    let root: String
    let database: String
    let files = [
      "Documents/a.txt": "first note\n", "Documents/sub/b.txt": "second note\n",
      "Library/Caches/a.txt": "cached copy, another a.txt\n",
    ]

    init() throws {
      scratch = try TemporaryDirectory()
      root = scratch.file("root")
      for (path, text) in files { try scratch.write("root/" + path, Array(text.utf8)) }
      database = scratch.file("catalog.sqlite")
      let indexed = try ShelfProcess.run(["--db", database, "index", root])
      #expect(indexed.status == 0, "\(indexed.stderr)")
    }

    func run(_ arguments: [String], environment: [String: String] = [:]) throws -> ShelfResult {
      try ShelfProcess.run(["--db", database] + arguments, environment: environment)
    }
  }

  @Test func copiesMatchingFilesByRootRelativePathWithTheirTimes() throws {
    let notes = try NotesRoot()
    let catalogueBefore = Self.bytes(notes.database)
    let out = notes.scratch.file("out")
    let result = try notes.run(["extract", "ext:txt", "-o", out])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.isEmpty)
    #expect(result.stdout.hasPrefix("Extracted 3 of 3 files ("))
    for (path, text) in notes.files {
      #expect(Self.bytes(out + "/" + path) == Array(text.utf8), "\(path)")
      #expect(Self.mtime(out + "/" + path) == Self.mtime(notes.root + "/" + path), "\(path)")
    }
    #expect(Self.bytes(notes.database) == catalogueBefore, "the catalogue is only read")
    let contents = try FileManager.default.subpathsOfDirectory(atPath: out).sorted()
    #expect(
      contents == [
        "Documents", "Documents/a.txt", "Documents/sub", "Documents/sub/b.txt", "Library",
        "Library/Caches", "Library/Caches/a.txt",
      ], "no temporary files left")

    let again = try notes.run(["extract", "ext:txt", "-o", out])
    #expect(again.status == 0)
    #expect(again.stdout.hasPrefix("Extracted 0 of 3 files (0 B) in "))
    #expect(again.stdout.hasSuffix("; 3 identical, left as it was\n"))
  }

  @Test func neverReplacesAFileWithOtherContentWithoutForce() throws {
    let notes = try NotesRoot()
    let out = notes.scratch.file("out")
    let mine = try notes.scratch.write("out/Documents/a.txt", Array("my own edits\n".utf8))
    let result = try notes.run(["extract", "name:a.txt", "path:*/Documents/*", "-o", out])
    #expect(result.status == 73)
    #expect(
      result.stderr
        == "error: \(notes.root)/Documents/a.txt: \(mine) exists with different content; not replaced (--force replaces it)\n"
    )
    #expect(result.stdout.hasSuffix("; 1 failed (cannot create output)\n"))
    #expect(Self.bytes(mine) == Array("my own edits\n".utf8), "the user's file is untouched")

    let forced = try notes.run(["extract", "--force", "name:a.txt", "path:*/Documents/*", "-o", out])
    #expect(forced.status == 0)
    #expect(Self.bytes(mine) == Array("first note\n".utf8))
  }

  @Test func flatGivesSharedNamesNumbers() throws {
    let notes = try NotesRoot()
    let out = notes.scratch.file("flat")
    let result = try notes.run(["extract", "--flat", "name:a.txt", "-o", out])
    #expect(result.status == 0, "\(result.stderr)")
    let names = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
    #expect(names == ["a (2).txt", "a.txt"])
    // Entries are extracted in path order: Documents/a.txt before Library/Caches/a.txt.
    #expect(Self.bytes(out + "/a.txt") == Array("first note\n".utf8))
    #expect(Self.bytes(out + "/a (2).txt") == Array("cached copy, another a.txt\n".utf8))
  }

  @Test func aLinkedFolderInsideTheOutputIsNeverWrittenThrough() throws {
    let notes = try NotesRoot()
    let out = notes.scratch.file("out")
    let elsewhere = notes.scratch.file("elsewhere")
    try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    #expect(symlink(elsewhere, out + "/Documents") == 0)
    let result = try notes.run(["extract", "path:*/Documents/*", "-o", out])
    #expect(result.status == 65)
    #expect(
      result.stderr.contains(
        "\(notes.root)/Documents/a.txt: unsafe path (\(out)/Documents is a symbolic link)"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
  }

  @Test func missingSourcesAndEmptyMatchesHaveTheirExitCodes() throws {
    let notes = try NotesRoot()
    let out = notes.scratch.file("out")
    let nothing = try notes.run(["extract", "ext:wav", "-o", out])
    #expect(nothing.status == 1)
    #expect(nothing.stderr == "error: nothing in the catalogue matches 'ext:wav'\n")
    let usage = try notes.run(["extract", "ext:txt"])
    #expect(usage.status == 64)
    #expect(usage.stderr.contains("say where files go: -o/--out-dir <dir>"))

    try FileManager.default.removeItem(atPath: notes.root + "/Documents/sub/b.txt")
    let gone = try notes.run(["extract", "name:b.txt", "-o", out])
    #expect(gone.status == 66)
    #expect(gone.stderr == "error: \(notes.root)/Documents/sub/b.txt: no such file or directory\n")
    #expect(!FileManager.default.fileExists(atPath: out + "/Documents/sub/b.txt"))
  }
}

/// `shelf extract` of backup entries, and `info`, `show`, `play` and `crush` reading them by
/// their catalogued paths: decrypted, byte for byte.
@Suite struct BackupExtractTests {
  @Test(arguments: TestCatalogues.kinds) func everyEraIsExtractedByteForByteUnderDomainAndPath(
    store: CatalogueStoreKind
  ) throws {
    let copy = try SampleBackupCopy(store)
    #expect(try copy.run(["index", copy.folder]).status == 0)
    let listing = try copy.run(["ls", "--json"])
    let records = try JSONSerialization.jsonObject(with: Data(listing.stdoutBytes)) as? [[String: Any]] ?? []
    for era in SampleBackupCopy.eras {
      let out = copy.scratch.file("out/" + era)
      let result = try copy.run(["extract", "root:\(copy.backup(era))", "-o", out])
      #expect(result.status == 0, "\(era): \(result.stderr)")
      #expect(result.stdout.hasPrefix("Extracted 5 of 5 files ("), "\(era)")
      for file in SampleBackupCopy.files where file.era == era {
        let written = out + "/" + ExtractLayoutTests.labels[era]! + "/" + file.domain + "/" + file.path
        let bytes = FileManager.default.contents(atPath: written).map { [UInt8]($0) }
        #expect(bytes == SampleBackupCopy.sampleBytes(file.source), "\(era): \(file.path)")
        let catalogued = copy.backup(era) + "/" + file.domain + "/" + file.path
        let mtime = records.first { $0["path"] as? String == catalogued }?["mtime"] as? String
        var st = stat()
        #expect(stat(written, &st) == 0)
        let seconds = Int64(st.st_mtim.tv_sec)
        #expect(
          mtime.map { Self.epochSeconds($0) } == seconds, "\(era): \(file.path) keeps the manifest's time")
      }
    }
  }

  static func epochSeconds(_ iso: String) -> Int64 {
    let formatter = ISO8601DateFormatter()
    return Int64(formatter.date(from: iso)?.timeIntervalSince1970 ?? -1)
  }

  @Test(arguments: ["mbdb-encrypted", "mdinfo-encrypted"])
  func anEncryptedBackupNeedsItsPasswordToExtract(_ era: String) throws {
    let copy = try SampleBackupCopy()
    #expect(try copy.run(["index", copy.backup(era)]).status == 0)
    let wrongIndex = try copy.run(["index", copy.backup(era)], password: "wrong")
    #expect(wrongIndex.status == 77)
    let out = copy.scratch.file("out")
    let wrong = try copy.run(["extract", "kind:audio", "-o", out], password: "wrong")
    #expect(wrong.status == 77)
    #expect(wrong.stderr == "error: \(copy.backup(era)): wrong password for this encrypted backup\n")
    #expect(!FileManager.default.fileExists(atPath: out), "nothing written")
    let right = try copy.run(["extract", "--flat", "kind:audio", "-o", out])
    #expect(right.status == 0)
    #expect(
      FileManager.default.contents(atPath: out + "/1.ogg").map { [UInt8]($0) }
        == SampleBackupCopy.sampleBytes("Documents/sweep-stereo.ogg"))
  }

  @Test func infoShowPlayAndCrushReadAnEntryByItsCataloguedPath() throws {
    let copy = try SampleBackupCopy()
    let backup = copy.backup("manifest-db-encrypted")
    let image = backup + "/CameraRollDomain/Media/DCIM/100APPLE/IMG_0001.PNG"
    let info = try copy.run(["info", "--json", image])
    #expect(info.status == 0, "\(info.stderr)")
    let record = try JSONSerialization.jsonObject(with: Data(info.stdoutBytes)) as? [String: Any] ?? [:]
    #expect(record["path"] as? String == image)
    #expect((record["image"] as? [String: Any])?["width"] as? Int == 64)
    #expect((record["backup"] as? [String: Any])?["domain"] as? String == "CameraRollDomain")
    let locked = try copy.run(["info", image], password: "wrong")
    #expect(locked.status == 77)

    let note = try copy.run(["show", backup + "/AppDomain-com.example.notes/Documents/welcome.txt"])
    #expect(note.status == 0)
    #expect(note.stdoutBytes == SampleBackupCopy.sampleBytes("Documents/Notes/welcome-utf8.txt"))

    let crushed = try copy.run(["-v", "crush", "-o", copy.scratch.file("crushed"), image])
    #expect(crushed.status == 0, "\(crushed.stderr)")
    #expect(crushed.stdout.hasPrefix("\(image): 3745 -> "), "reported by its catalogued path")
    let output = FileManager.default.contents(atPath: copy.scratch.file("crushed/IMG_0001.PNG")) ?? Data()
    #expect(
      output.count > 0 && output.count < SampleBackupCopy.sampleBytes("Documents/gradient-rgba.png").count)
    let inPlace = try copy.run(["crush", "--in-place", image])
    #expect(inPlace.status == 73)

    let voicemail = backup + "/HomeDomain/Library/Voicemail/1.ogg"
    let played = try copy.run(["play", "--json", "-D", "null", voicemail])
    #expect(played.status == 0, "\(played.stderr)")
    #expect(played.stdout.contains("{\"event\":\"start\",\"track\":1,\"path\":\"\(voicemail)\""))
    #expect(played.stdout.contains("\"played\":1,\"failed\":0"))
  }

  /// `play` decrypts each backup track when its turn comes, not all of them before the first
  /// starts: a track whose stored file is gone fails in its turn, after the one before it
  /// played; a wrong password is still found before anything plays.
  @Test func playReadsEachBackupTrackWhenItsTurnComes() throws {
    let copy = try SampleBackupCopy()
    let backup = copy.backup("manifest-db-encrypted")
    let voicemail = backup + "/HomeDomain/Library/Voicemail/1.ogg"
    let memo = backup + "/MediaDomain/Media/Recordings/20240501 093000.wav"
    let memoFile = try #require(
      SampleBackupCopy.files.first { $0.era == "manifest-db-encrypted" && $0.path.hasSuffix(".wav") })
    try FileManager.default.removeItem(
      atPath: backup + "/" + memoFile.fileID.prefix(2) + "/" + memoFile.fileID)

    let played = try copy.run(["play", "--json", "-D", "null", voicemail, memo])
    #expect(played.status == 1, "\(played.stderr)")
    let events = played.stdout.split(separator: "\n").map(String.init)
    let started = try #require(events.firstIndex { $0.hasPrefix("{\"event\":\"start\",\"track\":1,") })
    let failed = try #require(
      events.firstIndex { $0.hasPrefix("{\"event\":\"error\",\"track\":2,\"path\":\"\(memo)\"") })
    #expect(started < failed)
    #expect(events[failed].contains("stored file \(memoFile.fileID) is missing from the backup"))
    #expect(played.stdout.contains("\"played\":1,\"failed\":1"))

    let locked = try copy.run(["play", "--json", "-D", "null", voicemail, memo], password: "wrong")
    #expect(locked.status == 77)
    #expect(!locked.stdout.contains("\"event\":\"start\""))
  }
}
