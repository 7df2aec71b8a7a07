import Foundation
import ShelfPNG
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `shelf crush`: outputs are smaller and pixel-identical, bad input is reported per file with
/// the right exit code, in-place writes are atomic even when the process is killed.
@Suite struct CrushCommandTests {
  static func fixture(_ name: String) -> String { "Tests/Fixtures/pngsuite/" + name }

  static func bytes(_ path: String) -> [UInt8] {
    [UInt8](FileManager.default.contents(atPath: path) ?? Data())
  }

  static func pixels(_ path: String) throws -> PNGImage {
    try PNGDecoder().decode(bytes: bytes(path)).image
  }

  @Test func outDirWritesSmallerIdenticalFiles() throws {
    let dir = try TemporaryDirectory()
    let names = ["basn2c08.png", "basi3p04.png", "basn6a16.png", "tbbn3p08.png", "basn0g01.png"]
    for name in names { try dir.copy(fromRepository: Self.fixture(name)) }
    let originals = names.map { Self.bytes(dir.path + "/" + $0) }
    let result = try ShelfProcess.run(["crush", "-o", dir.path + "/out"] + names.map { dir.path + "/" + $0 })
    #expect(result.status == 0)
    #expect(result.stderr.isEmpty)
    #expect(result.stdout.hasPrefix("Crushed "))
    #expect(result.stdout.contains(" of 5 files: "))
    for (index, name) in names.enumerated() {
      let output = dir.path + "/out/" + name
      #expect(Self.bytes(dir.path + "/" + name) == originals[index], "input untouched")
      #expect(Self.bytes(output).count <= originals[index].count)
      #expect(try Self.pixels(output).hasSamePixels(as: Self.pixels(dir.path + "/" + name)), "\(name)")
    }
  }

  @Test func unchangedFilesAreCopiedToTheOutDir() throws {
    let dir = try TemporaryDirectory()
    try dir.copy(fromRepository: Self.fixture("basn2c08.png"))
    _ = try ShelfProcess.run(["crush", "-o", dir.path + "/a", dir.path + "/basn2c08.png"])
    let once = Self.bytes(dir.path + "/a/basn2c08.png")
    let result = try ShelfProcess.run([
      "crush", "--json", "-o", dir.path + "/b", dir.path + "/a/basn2c08.png",
    ])
    #expect(result.status == 0)
    #expect(Self.bytes(dir.path + "/b/basn2c08.png") == once)
    let object = try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any]
    let files = object?["files"] as? [[String: Any]]
    #expect(files?.first?["status"] as? String == "unchanged")
    #expect((object?["summary"] as? [String: Any])?["unchanged"] as? Int == 1)
  }

  @Test func recursiveKeepsRelativePaths() throws {
    let dir = try TemporaryDirectory()
    try FileManager.default.createDirectory(
      atPath: dir.path + "/in/sub/deeper", withIntermediateDirectories: true)
    try dir.copy(fromRepository: Self.fixture("basn2c08.png"), as: "in/a.png")
    try dir.copy(fromRepository: Self.fixture("basi0g08.png"), as: "in/sub/b.png")
    try dir.copy(fromRepository: Self.fixture("tbbn3p08.png"), as: "in/sub/deeper/c.PNG")
    try dir.write("in/notes.txt", Array("not a png".utf8))
    let result = try ShelfProcess.run(["crush", "-r", "-o", dir.path + "/out", dir.path + "/in"])
    #expect(result.status == 0)
    for name in ["a.png", "sub/b.png", "sub/deeper/c.PNG"] {
      #expect(try Self.pixels(dir.path + "/out/" + name) == Self.pixels(dir.path + "/in/" + name))
    }
    #expect(!FileManager.default.fileExists(atPath: dir.path + "/out/notes.txt"))
    let noRecursion = try ShelfProcess.run(["crush", "-o", dir.path + "/out2", dir.path + "/in"])
    #expect(noRecursion.status == 66)
    #expect(noRecursion.stderr == "error: \(dir.path)/in: is a directory (use -r to crush the PNGs inside)\n")
  }

  @Test func inPlaceReplacesOnlyWhatShrinks() throws {
    let dir = try TemporaryDirectory()
    let big = try dir.copy(fromRepository: Self.fixture("basi6a08.png"))
    let before = try Self.pixels(big)
    let originalSize = Self.bytes(big).count
    var result = try ShelfProcess.run(["crush", "--in-place", big])
    #expect(result.status == 0)
    #expect(Self.bytes(big).count < originalSize)
    #expect(try Self.pixels(big) == before || Self.pixels(big).hasSamePixels(as: before))
    // Crushing again finds nothing smaller and leaves the file alone (same inode, same bytes).
    let crushed = Self.bytes(big)
    var first = stat()
    stat(big, &first)
    result = try ShelfProcess.run(["crush", "--in-place", big])
    #expect(result.status == 0)
    #expect(result.stdout.contains("1 already optimal"))
    var second = stat()
    stat(big, &second)
    #expect(first.st_ino == second.st_ino)
    #expect(Self.bytes(big) == crushed)
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".") }
    #expect(leftovers.isEmpty)
  }

  @Test func preserveKeepsModeAndModificationTime() throws {
    let dir = try TemporaryDirectory()
    let file = try dir.copy(fromRepository: Self.fixture("basn3p08.png"))
    chmod(file, 0o640)
    var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_000, tv_nsec: 0)]
    utimensat(AT_FDCWD, file, &times, 0)
    let result = try ShelfProcess.run(["crush", "--preserve", "-o", dir.path + "/out", file])
    #expect(result.status == 0)
    var status = stat()
    stat(dir.path + "/out/basn3p08.png", &status)
    #expect(status.st_mode & 0o7777 == 0o640)
    #expect(status.st_mtim.tv_sec == 1_000_000_000)
  }

  @Test func dryRunWritesNothing() throws {
    let dir = try TemporaryDirectory()
    let file = try dir.copy(fromRepository: Self.fixture("basi6a08.png"))
    let original = Self.bytes(file)
    let result = try ShelfProcess.run(["crush", "--dry-run", "-o", dir.path + "/out", file])
    #expect(result.status == 0)
    #expect(result.stdout.hasPrefix("Would crush 1 of 1 file: "))
    #expect(Self.bytes(file) == original)
    #expect(!FileManager.default.fileExists(atPath: dir.path + "/out"))
  }

  @Test func badInputGivesOneLineErrorsAndTheBatchGoesOn() throws {
    let dir = try TemporaryDirectory()
    let good = try dir.copy(fromRepository: Self.fixture("basn2c08.png"))
    let empty = try dir.write("empty.png", [])
    let text = try dir.write("text.png", Array("hello".utf8))
    let whole = Self.bytes(good)
    let truncated = try dir.write("truncated.png", Array(whole.prefix(whole.count / 2)))
    var broken = whole
    broken[60] ^= 0xFF
    let badCRC = try dir.write("badcrc.png", broken)
    let corrupt = try dir.copy(fromRepository: Self.fixture("xc9n2c08.png"))
    let inputs = [good, empty, text, truncated, badCRC, corrupt]
    let originals = inputs.map(Self.bytes)
    let result = try ShelfProcess.run(["crush", "--in-place"] + inputs)
    #expect(result.status == 1)
    let lines = result.stderr.split(separator: "\n").map(String.init)
    #expect(
      lines == [
        "error: \(empty): empty file (zero bytes), not a PNG",
        "error: \(text): not a PNG file (no PNG signature)",
        "error: \(truncated): truncated PNG: IDAT ends early",
        "error: \(badCRC): corrupt PNG: bad CRC in IDAT chunk",
        "error: \(corrupt): corrupt PNG: invalid colour type 9 with bit depth 8",
      ])
    for (index, input) in inputs.enumerated().dropFirst() { #expect(Self.bytes(input) == originals[index]) }
    #expect(Self.bytes(good).count < originals[0].count)
    #expect(result.stdout.hasPrefix("Crushed 1 of 6 files: "))
    #expect(result.stdout.hasSuffix("; 5 failed (bad input)\n"))
    // Only bad input: exit 65.
    let allBad = try ShelfProcess.run(["crush", "--in-place", text, badCRC])
    #expect(allBad.status == 65)
    let missing = try ShelfProcess.run(["crush", "--in-place", dir.path + "/nope.png"])
    #expect(missing.status == 66)
    #expect(missing.stdout == "Crushed 0 of 1 file; 1 failed (missing or unreadable)\n")
  }

  @Test func everyInputFailedSaysHowManyAndWhy() throws {
    let dir = try TemporaryDirectory()
    let text = try dir.write("text.png", Array("hello".utf8))
    let result = try ShelfProcess.run(["crush", "--in-place", text])
    #expect(result.status == 65)
    #expect(result.stdout == "Crushed 0 of 1 file; 1 failed (bad input)\n")
    #expect(result.stderr == "error: \(text): not a PNG file (no PNG signature)\n")
    #expect(Self.bytes(text) == Array("hello".utf8))
    // Failures of different kinds, nothing done: the most severe one's code (66 > 65), each
    // kind counted.
    let mixed = try ShelfProcess.run(["crush", "--dry-run", text, dir.path + "/nope.png"])
    #expect(mixed.status == 66)
    #expect(mixed.stdout == "Would crush 0 of 2 files; 2 failed (1 missing or unreadable, 1 bad input)\n")
  }

  @Test func growthReadsGrewAndKeepsTheOriginal() throws {
    let dir = try TemporaryDirectory()
    let file = try dir.copy(fromRepository: Self.fixture("basn0g01.png"))
    let original = Self.bytes(file)
    let result = try ShelfProcess.run(["-v", "crush", "--level", "0", "--in-place", file])
    #expect(result.status == 0)
    let grown = try #require(Self.growthLine(result.stdout, path: file))
    #expect(grown.hasSuffix("; kept the original"))
    #expect(result.stdout.contains("Crushed 0 of 1 file: "))
    #expect(!result.stdout.contains("saved -"))
    #expect(Self.bytes(file) == original)
  }

  /// The -v line of `path` when it reads `PATH: N bytes, grew P % (S B); kept the original`.
  private static func growthLine(_ stdout: String, path: String) -> String? {
    stdout.split(separator: "\n").map(String.init).first {
      $0.hasPrefix("\(path): ") && $0.contains(" bytes, grew ") && $0.contains(" % (")
    }
  }

  @Test func noInPlaceProgressWithNoColorOnATerminal() throws {
    let dir = try TemporaryDirectory()
    var names: [String] = []
    for index in 0..<3 {
      names.append(try dir.copy(fromRepository: Self.fixture("basi6a08.png"), as: "f\(index).png"))
    }
    // `script` gives the crush a terminal; its transcript is what the terminal showed.
    func transcript(_ environment: [String: String]) throws -> String {
      let command = ([ShelfProcess.binary, "crush", "--dry-run"] + names).map { "'\($0)'" }.joined(
        separator: " ")
      let log = dir.path + "/typescript"
      let pid = try ShelfProcess.spawn(
        "/usr/bin/script", ["script", "-qec", command, log].map { Array($0.utf8) },
        environment: environment, stdinPath: nil, stdoutPath: dir.path + "/out", stderrPath: dir.path + "/err"
      )
      #expect(ShelfProcess.wait(for: pid, timeout: 120) == 0)
      return String(decoding: Self.bytes(log), as: UTF8.self)
    }
    let plain = try transcript(["NO_COLOR": "1", "TERM": "xterm"])
    #expect(plain.contains("Would crush 3 of 3 files"))
    #expect(!plain.contains("crush level 2 ["))
    #expect(!plain.contains("\u{1B}"))
    // Without NO_COLOR the same terminal gets the in-place bar: the check above can fail.
    let drawn = try transcript(["NO_COLOR": "", "TERM": "xterm"])
    #expect(drawn.contains("\r\u{1B}[2Kcrush level 2 ["))
  }

  @Test func everyCorruptSuiteFileIsRefused() throws {
    let dir = try TemporaryDirectory()
    let names = try FileManager.default.contentsOfDirectory(
      atPath: ShelfProcess.repositoryRoot.appendingPathComponent("Tests/Fixtures/pngsuite").path
    ).filter { $0.hasPrefix("x") && $0.hasSuffix(".png") }.sorted()
    for name in names { try dir.copy(fromRepository: Self.fixture(name)) }
    let result = try ShelfProcess.run(["crush", "-o", dir.path + "/out"] + names.map { dir.path + "/" + $0 })
    #expect(result.status == 65)
    #expect(result.stderr.split(separator: "\n").count == names.count)
    #expect(!FileManager.default.fileExists(atPath: dir.path + "/out"))
  }

  @Test func hugeDimensionsRespectTheConfiguredLimit() throws {
    let dir = try TemporaryDirectory()
    let file = try dir.copy(fromRepository: Self.fixture("basn2c08.png"))
    let result = try ShelfProcess.run(["crush", "--max-pixels", "1000", "--in-place", file])
    #expect(result.status == 65)
    #expect(result.stderr == "error: \(file): image too large: 32x32 exceeds the limit of 1000 pixels\n")
  }

  @Test func usageErrors() throws {
    let file = ShelfProcess.repositoryRoot.appendingPathComponent(Self.fixture("basn2c08.png")).path
    var result = try ShelfProcess.run(["crush", file])
    #expect(result.status == 64)
    #expect(result.stderr.hasPrefix("error: say where results go"))
    result = try ShelfProcess.run(["crush", "--in-place", "-o", "/tmp/x", file])
    #expect(result.status == 64)
    result = try ShelfProcess.run(["crush", "--level", "9", "--dry-run", file])
    #expect(result.status == 64)
    result = try ShelfProcess.run(["crush", "--iphone", "--revert-iphone", "--dry-run", file])
    #expect(result.status == 64)
  }

  @Test func iphoneRoundTrip() throws {
    let dir = try TemporaryDirectory()
    let file = try dir.copy(fromRepository: Self.fixture("basn2c08.png"))
    var result = try ShelfProcess.run(["crush", "--iphone", "-o", dir.path + "/ios", file])
    #expect(result.status == 0)
    let cgbi = try PNGDecoder().decode(bytes: Self.bytes(dir.path + "/ios/basn2c08.png"))
    #expect(cgbi.isCgBI)
    #expect(
      try PNGHeaderInfo.read(bytes: Self.bytes(dir.path + "/ios/basn2c08.png")).chunkNames.first == "CgBI")
    // A plain crush keeps it CgBI.
    result = try ShelfProcess.run(["crush", "-o", dir.path + "/again", dir.path + "/ios/basn2c08.png"])
    #expect(result.status == 0)
    #expect(try PNGDecoder().decode(bytes: Self.bytes(dir.path + "/again/basn2c08.png")).isCgBI)
    result = try ShelfProcess.run([
      "crush", "--revert-iphone", "-o", dir.path + "/plain", dir.path + "/ios/basn2c08.png",
    ])
    #expect(result.status == 0)
    let plain = try PNGDecoder().decode(bytes: Self.bytes(dir.path + "/plain/basn2c08.png"))
    #expect(!plain.isCgBI)
    #expect(plain.image.rgba8() == (try Self.pixels(file)).rgba8())
  }

  @Test func sameNameFromTwoFoldersIsNotOverwritten() throws {
    let dir = try TemporaryDirectory()
    try FileManager.default.createDirectory(atPath: dir.path + "/a", withIntermediateDirectories: true)
    try FileManager.default.createDirectory(atPath: dir.path + "/b", withIntermediateDirectories: true)
    try dir.copy(fromRepository: Self.fixture("basn2c08.png"), as: "a/x.png")
    try dir.copy(fromRepository: Self.fixture("basn0g08.png"), as: "b/x.png")
    let result = try ShelfProcess.run([
      "crush", "-o", dir.path + "/out", dir.path + "/a/x.png", dir.path + "/b/x.png",
    ])
    #expect(result.status == 1)
    #expect(
      result.stderr
        == "error: \(dir.path)/b/x.png: its output \(dir.path)/out/x.png is also another input's output\n")
    #expect(try Self.pixels(dir.path + "/out/x.png") == Self.pixels(dir.path + "/a/x.png"))
  }

  @Test func inPlaceThroughASymbolicLinkKeepsTheLink() throws {
    let dir = try TemporaryDirectory()
    let target = try dir.copy(fromRepository: Self.fixture("basi6a08.png"))
    let link = dir.path + "/link.png"
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "basi6a08.png")
    let before = Self.bytes(target)
    let result = try ShelfProcess.run(["crush", "--in-place", link])
    #expect(result.status == 0)
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "basi6a08.png")
    #expect(Self.bytes(target).count < before.count)
  }

  /// Starts `shelf crush --in-place file` paused just before its rename (the test hook
  /// SHELF_TEST_PAUSE_BEFORE_RENAME) and returns once the crush says it is there: its
  /// temporary file written and synced, and `marker` created. The crush stays paused until
  /// the marker is removed.
  private static func crushPausedBeforeRename(
    _ file: String, in dir: TemporaryDirectory, marker: String, stderrPath: String? = nil
  ) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: ShelfProcess.binary)
    process.arguments = ["crush", "--in-place", file]
    var environment = ProcessInfo.processInfo.environment
    environment["SHELF_TEST_PAUSE_BEFORE_RENAME"] = marker
    process.environment = environment
    process.standardOutput = FileHandle.nullDevice
    if let stderrPath {
      let descriptor = open(stderrPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
      process.standardError = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    } else {
      process.standardError = FileHandle.nullDevice
    }
    try process.run()
    let paused = ObservableWait.until(timeout: 60) {
      FileManager.default.fileExists(atPath: marker) || !process.isRunning
    }
    #expect(paused && FileManager.default.fileExists(atPath: marker))
    let temporary = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter {
      $0.hasSuffix(".tmp")
    }
    #expect(temporary.count == 1)
    return process
  }

  @Test func killedMidWriteLeavesTheOriginalIntact() throws {
    let dir = try TemporaryDirectory()
    let file = try dir.copy(fromRepository: Self.fixture("basi6a08.png"))
    let original = Self.bytes(file)
    let marker = dir.path + ".paused"
    defer { try? FileManager.default.removeItem(atPath: marker) }
    let process = try Self.crushPausedBeforeRename(file, in: dir, marker: marker)
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    #expect(process.terminationReason == .uncaughtSignal)
    #expect(Self.bytes(file) == original)
    #expect(try Self.pixels(file) == PNGDecoder().decode(bytes: original).image)
  }

  @Test func interruptedCrushRemovesItsTemporaryFile() throws {
    let dir = try TemporaryDirectory()
    let file = try dir.copy(fromRepository: Self.fixture("basi6a08.png"))
    let original = Self.bytes(file)
    let marker = dir.path + ".paused"
    defer { try? FileManager.default.removeItem(atPath: marker) }
    let stderr = dir.path + ".stderr"
    defer { try? FileManager.default.removeItem(atPath: stderr) }
    let process = try Self.crushPausedBeforeRename(file, in: dir, marker: marker, stderrPath: stderr)
    kill(process.processIdentifier, SIGTERM)
    process.waitUntilExit()
    #expect(process.terminationStatus == 130)
    #expect(String(decoding: Self.bytes(stderr), as: UTF8.self) == "error: interrupted\n")
    #expect(Self.bytes(file) == original)
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["basi6a08.png"])
  }
}
