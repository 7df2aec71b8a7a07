import Foundation
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Nothing shelf writes leaves `-o DIR`, even while a folder inside DIR is swapped for a
/// symbolic link to a folder outside it by a real racing renamer (`renameat2(RENAME_EXCHANGE)`
/// in a loop), run as an ordinary user who may write in both folders.
@Suite(.serialized) struct WriteContainmentTests {
  /// An ordinary user's command line: root would be the same race, but an ordinary user is who
  /// shares a machine with an attacker.
  static let asUser = getuid() == 0 ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []

  /// The racer: swaps `a` and `b` (`renameat2(RENAME_EXCHANGE)`) until `stop` exists or two
  /// minutes pass, creates `ready` after its first swap, and prints how many swaps it made.
  static let racer = """
    import ctypes, os, sys, time
    libc = ctypes.CDLL(None, use_errno=True)
    a, b, ready, stop = (arg.encode() for arg in sys.argv[1:5])
    swaps, deadline = 0, time.monotonic() + 120
    while not os.path.exists(stop) and time.monotonic() < deadline:
        if libc.renameat2(-100, a, -100, b, 2) != 0:
            sys.exit("renameat2: " + os.strerror(ctypes.get_errno()))
        swaps += 1
        if swaps == 1:
            open(ready, "w").close()
    print(swaps)
    """

  /// Runs `arguments` as the ordinary user; waits for it to exit.
  static func runAsUser(_ arguments: [String]) throws -> ShelfResult {
    try ShelfProcess.run(arguments, launcher: asUser)
  }

  /// Every path below `folder` (relative), hidden files included.
  static func contents(_ folder: String) -> [String] {
    ((try? FileManager.default.subpathsOfDirectory(atPath: folder)) ?? []).sorted()
  }

  @Test func extractWritesNothingOutsideItsFolderWhileAFolderInsideIsSwappedForALink() throws {
    let scratch = try TemporaryDirectory()
    #expect(chmod(scratch.path, 0o777) == 0)
    let root = scratch.file("root")
    // 600 notes in D and ten folders below it, so that folders are made inside the one swapped.
    var notes: [String: [UInt8]] = [:]
    for index in 0..<600 {
      let relative = index % 2 == 0 ? "D/n\(index).txt" : "D/s\(index % 10)/n\(index).txt"
      notes[relative] = Array("note \(index)\n".utf8)
    }
    for (relative, bytes) in notes { try scratch.write("root/" + relative, bytes) }
    let out = scratch.file("out")
    let outside = scratch.file("outside")
    try scratch.makeDirectory("out/D")
    try scratch.makeDirectory("outside")
    #expect(symlink(outside, out + "/L") == 0)
    for path in [scratch.path, root, out, out + "/D", outside] {
      #expect(chmod(path, 0o777) == 0)
    }
    for relative in Self.contents(root) { #expect(chmod(root + "/" + relative, 0o777) == 0) }
    let database = scratch.file("catalog.sqlite")
    let indexed = try Self.runAsUser(["--db", database, "index", root])
    #expect(indexed.status == 0, "\(indexed.stderr)")

    let script = try scratch.write("racer.py", Array(Self.racer.utf8))
    #expect(chmod(script, 0o644) == 0)
    let ready = scratch.file("racer-ready")
    let stop = scratch.file("racer-stop")
    let racerOut = scratch.file("racer-out")
    let racer = try ShelfProcess.spawn(
      "/usr/bin/env",
      (["env"] + Self.asUser + ["/usr/bin/python3", script, out + "/D", out + "/L", ready, stop]).map {
        Array($0.utf8)
      }, environment: [:], stdinPath: nil, stdoutPath: racerOut, stderrPath: scratch.file("racer-err"))
    #expect(ObservableWait.until { FileManager.default.fileExists(atPath: ready) }, "the racer started")

    let result = try Self.runAsUser(["--db", database, "extract", "-j", "4", "path:*/D/*", "-o", out])
    _ = try scratch.write("racer-stop", [])
    #expect(ShelfProcess.wait(for: racer, timeout: 60) == 0)
    let swaps = Int(String(decoding: ObservableWait.line(in: racerOut), as: UTF8.self).dropLast()) ?? 0
    #expect(swaps > 0)

    #expect(Self.contents(outside).isEmpty, "nothing outside -o: \(Self.contents(outside).prefix(5))")
    // The real folder is whichever of D and L is not the link now.
    let real = (try? FileManager.default.destinationOfSymbolicLink(atPath: out + "/D")) == nil ? "D" : "L"
    let inside = Self.contents(out + "/" + real)
    #expect(!inside.contains { $0.contains(".shelf-") }, "no temporary file left")
    let written = inside.filter { $0.hasSuffix(".txt") }
    for relative in written {
      #expect(
        ExtractCommandTests.bytes(out + "/" + real + "/" + relative) == notes["D/" + relative],
        "\(relative)")
    }
    // Each file is extracted whole, or refused with one line naming it and the link.
    let refusals = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
    for line in refusals {
      #expect(line.hasPrefix("error: \(root)/D/"), "\(line)")
      // Or, should every one of 64 looks find a folder swapped again, that it kept changing.
      #expect(
        line.hasSuffix(": unsafe path (\(out)/D is a symbolic link); not extracted")
          || line.hasSuffix(": unsafe path (\(out)/D keeps being replaced); not extracted"), "\(line)")
    }
    #expect(written.count + refusals.count == 600, "\(written.count) + \(refusals.count)")
    #expect(result.stdout.hasPrefix("Extracted \(written.count) of 600 files ("), "\(result.stdout)")
    #expect([0, 1, 65].contains(result.status))
  }

  @Test func crushIntoAFolderNeverWritesThroughALinkedFolderInsideIt() throws {
    let dir = try TemporaryDirectory()
    try dir.makeDirectory("in/sub")
    try dir.makeDirectory("outside")
    try dir.makeDirectory("out")
    try dir.copy(fromRepository: CrushCommandTests.fixture("basn2c08.png"), as: "in/a.png")
    try dir.copy(fromRepository: CrushCommandTests.fixture("basi6a08.png"), as: "in/sub/b.png")
    #expect(symlink(dir.file("outside"), dir.file("out/sub")) == 0)
    let result = try ShelfProcess.run(["crush", "-r", "-o", dir.file("out"), dir.file("in")])
    #expect(result.status == 1)
    #expect(
      result.stderr
        == "error: \(dir.file("out/sub/b.png")): unsafe path (\(dir.file("out/sub")) is a symbolic link, not a folder)\n"
    )
    #expect(Self.contents(dir.file("outside")).isEmpty)
    #expect(Self.contents(dir.file("out")) == ["a.png", "sub"])
  }
}

/// What shelf replaces is what it read: a file put in its place meanwhile is the user's newer
/// work and survives; and the temporary files of a killed run do not outlive the next one.
@Suite struct ReplacedFileTests {
  /// Starts shelf with `arguments`, paused just before its first rename (the test hook
  /// SHELF_TEST_PAUSE_BEFORE_RENAME creates `marker` and waits until it is removed); returns
  /// its pid once it is there. Its stdout and stderr go to `output` and `output.err`.
  static func pausedBeforeRename(_ arguments: [String], marker: String, output: String) throws -> pid_t {
    let pid = try ShelfProcess.spawn(
      ShelfProcess.binary, ([ShelfProcess.binary] + arguments).map { Array($0.utf8) },
      environment: ["SHELF_TEST_PAUSE_BEFORE_RENAME": marker], stdinPath: nil, stdoutPath: output,
      stderrPath: output + ".err")
    #expect(ObservableWait.until(timeout: 60) { FileManager.default.fileExists(atPath: marker) })
    return pid
  }

  @Test func crushInPlaceKeepsAFileReplacedWhileItWasCrushed() throws {
    let dir = try TemporaryDirectory()
    let file = try dir.copy(fromRepository: CrushCommandTests.fixture("basi6a08.png"))
    let marker = dir.file("paused")
    let crush = try Self.pausedBeforeRename(
      ["crush", "--in-place", file], marker: marker, output: dir.file("out"))
    // The user saves a new version the usual way: a new file renamed over the old.
    let newer = try dir.write("newer.png", Array("the user's newer picture".utf8))
    #expect(rename(newer, file) == 0)
    try FileManager.default.removeItem(atPath: marker)
    #expect(ShelfProcess.wait(for: crush, timeout: 60) == 1)
    #expect(CrushCommandTests.bytes(file) == Array("the user's newer picture".utf8))
    #expect(
      String(decoding: CrushCommandTests.bytes(dir.file("out.err")), as: UTF8.self)
        == "warning: \(file): changed since it was read; not replaced\n")
    #expect(
      String(decoding: CrushCommandTests.bytes(dir.file("out")), as: UTF8.self)
        == "Crushed 0 of 1 file; 1 changed meanwhile, not replaced\n")
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == [
        "basi6a08.png", "out", "out.err",
      ])
  }

  @Test func aKilledExtractionsTemporaryFilesAreRemovedByTheNextRun() throws {
    let notes = try ExtractCommandTests.NotesRoot()
    let out = notes.scratch.file("out")
    let marker = notes.scratch.file("paused")
    let extract = try Self.pausedBeforeRename(
      ["--db", notes.database, "extract", "-j", "1", "ext:txt", "-o", out], marker: marker,
      output: notes.scratch.file("first"))
    #expect(kill(extract, SIGKILL) == 0)
    #expect(ShelfProcess.wait(for: extract, timeout: 60) == 128 + SIGKILL)
    let left = WriteContainmentTests.contents(out).filter { $0.hasSuffix(".tmp") }
    #expect(left.count == 1 && left[0].contains(".shelf-\(extract)-"), "\(left)")
    try FileManager.default.removeItem(atPath: marker)

    let again = try notes.run(["extract", "ext:txt", "-o", out])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(
      WriteContainmentTests.contents(out) == [
        "Documents", "Documents/a.txt", "Documents/sub", "Documents/sub/b.txt", "Library",
        "Library/Caches", "Library/Caches/a.txt",
      ])
  }
}

/// A backup's manifest row with an empty path names no file: extracting it would make a file
/// named like its domain's folder, and the domain's every other file would then have no folder.
@Suite struct NamelessManifestRowTests {
  @Test func aRowWithAnEmptyPathIsSkippedWithAWarningAndTheDomainIsExtracted() throws {
    let scratch = try TemporaryDirectory()
    let backup = try scratch.copy(fromRepository: "SampleMedia/Backups/manifest-db")
    let domain = "AppDomain-com.example.notes"
    // The domain's folder row becomes a file row (welcome.txt's record and bytes) with no path.
    let welcome = "a2db74c0de9494ccc1eb74d644a9d2523e8240b3"
    let nameless = "ee" + welcome.dropFirst(2)
    let sql = """
      DELETE FROM Files WHERE domain = '\(domain)' AND relativePath = '';
      INSERT INTO Files SELECT '\(nameless)', domain, '', 1, file FROM Files WHERE fileID = '\(welcome)';
      """
    let sqlite = Process()
    sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    sqlite.arguments = [backup + "/Manifest.db", sql]
    try sqlite.run()
    sqlite.waitUntilExit()
    #expect(sqlite.terminationStatus == 0)
    try scratch.makeDirectory("manifest-db/ee")
    try FileManager.default.copyItem(
      atPath: backup + "/a2/" + welcome, toPath: backup + "/ee/" + nameless)
    let database = scratch.file("catalog.sqlite")
    #expect(try ShelfProcess.run(["--db", database, "index", backup]).status == 0)

    let out = scratch.file("out")
    let result = try ShelfProcess.run(["--db", database, "extract", "path:*notes*", "-o", out])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr == "warning: \(backup): a manifest row of \(domain) has an empty path; skipped\n")
    #expect(result.stdout.hasPrefix("Extracted 2 of 2 files ("))
    let folder = out + "/Shelf Test iPhone 2024-05-01/" + domain
    #expect(
      WriteContainmentTests.contents(folder) == [
        "Documents", "Documents/welcome.txt", "Library", "Library/Preferences",
        "Library/Preferences/com.example.notes.plist",
      ])
  }
}

extension ReplacedFileTests {
  @Test(arguments: [["--link", "hard"], ["--trash"]]) func dupesLeavesADuplicateReplacedAfterItWasCompared(
    action: [String]
  ) throws {
    let scratch = try TemporaryDirectory()
    let root = scratch.file("root")
    let same = Array(String(repeating: "the same bytes\n", count: 100).utf8)
    _ = try scratch.write("root/a/kept.txt", same)
    let copy = try scratch.write("root/b/copy.txt", same)
    let database = scratch.file("catalog.sqlite")
    #expect(try ShelfProcess.run(["--db", database, "index", root]).status == 0)
    let marker = scratch.file("paused")
    let dupes = try Self.pausedBeforeRename(
      ["--db", database, "dupes"] + action, marker: marker, output: scratch.file("out"))
    _ = try scratch.write("newer", Array("the user's edit\n".utf8))
    #expect(rename(scratch.file("newer"), copy) == 0)
    try FileManager.default.removeItem(atPath: marker)
    // Every duplicate skipped: dupes' own code for that (65, man shelf-dupes).
    #expect(ShelfProcess.wait(for: dupes, timeout: 60) == 65)
    let verb = action == ["--trash"] ? "trashed" : "linked"
    #expect(
      String(decoding: CrushCommandTests.bytes(scratch.file("out.err")), as: UTF8.self)
        == "warning: \(copy): changed since it was compared; skipped\n\(verb) 0 files (0 B), 1 skipped or failed\n"
    )
    #expect(CrushCommandTests.bytes(copy) == Array("the user's edit\n".utf8))
    #expect(WriteContainmentTests.contents(root + "/b") == ["copy.txt"])
  }
}
