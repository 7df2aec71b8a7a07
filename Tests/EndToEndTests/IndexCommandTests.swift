import Foundation
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A copy of SampleMedia indexed into a throwaway catalogue, for the catalogue commands' tests.
final class IndexedSample {
  let scratch: TemporaryDirectory
  let root: String
  let database: String
  let indexResult: ShelfResult

  /// SampleMedia (without its backups) indexed into a new catalogue in `store`.
  init(_ store: CatalogueStoreKind = .sqlite) throws {
    scratch = try TemporaryDirectory()
    root = try scratch.copy(fromRepository: "SampleMedia")
    // The sample backups have facts and tests of their own (Tests/Fixtures/sample-backups.json).
    try FileManager.default.removeItem(atPath: root + "/Backups")
    database = try TestCatalogues.location(store, in: scratch.path)
    indexResult = try ShelfProcess.run(
      ["--db", database, "index", root], environment: ["SHELF_TRUST_WINDOW": "0"])
  }

  /// Runs shelf with `--db` pointing at this catalogue.
  func run(_ arguments: [String], environment: [String: String] = [:]) throws -> ShelfResult {
    try ShelfProcess.run(
      ["--db", database] + arguments, environment: ["SHELF_TRUST_WINDOW": "0"].merging(environment) { $1 })
  }

  /// `ls --json` records by path relative to the root.
  func records(_ query: [String] = []) throws -> [String: [String: Any]] {
    let result = try run(["ls", "--json"] + query)
    let array = try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [[String: Any]] ?? []
    var byPath: [String: [String: Any]] = [:]
    for record in array {
      let path = record["path"] as? String ?? ""
      byPath[String(path.dropFirst(root.count + 1))] = record
    }
    return byPath
  }
}

/// Compares every fact the generator wrote with what shelf reports, returning the mismatches.
func factMismatches(_ entry: SampleMediaManifest.Entry, _ record: [String: Any]) -> [String] {
  var problems: [String] = []
  func same(_ a: Any?, _ b: Any?) -> Bool {
    guard let a = a as? NSObject, let b = b as? NSObject else { return a == nil && b == nil }
    return a.isEqual(b)
  }
  for (key, expected) in [("kind", entry.kind as Any), ("mime", entry.mime), ("size", entry.size)] {
    if !same(record[key], expected) { problems.append("\(key): \(record[key] ?? "nil") != \(expected)") }
  }
  let facts = record[entry.kind] as? [String: Any] ?? [:]
  for (key, expected) in entry.facts {
    var actual = facts[key]
    if key == "keys", let keys = actual as? [String] { actual = keys.sorted() }
    if !same(actual, expected) { problems.append("\(entry.kind).\(key): \(actual ?? "nil") != \(expected)") }
  }
  return problems
}

@Suite struct IndexCommandTests {
  @Test(arguments: TestCatalogues.kinds) func indexesEverySampleFileWithTheGeneratorsFacts(
    store: CatalogueStoreKind
  ) throws {
    let sample = try IndexedSample(store)
    #expect(sample.indexResult.status == 0)
    #expect(sample.indexResult.stderr == "")
    #expect(
      sample.indexResult.stdout == """
        \(sample.root): 47 files
          47 new, 0 updated, 0 unchanged, 0 moved, 0 removed
          sandbox: Demo.app (com.example.shelfdemo, Shelf Demo, version 1.0)

        """)
    let records = try sample.records()
    #expect(records.count == SampleMediaManifest.entries.count)
    for entry in SampleMediaManifest.entries {
      let record = try #require(records[entry.path], "\(entry.path) not catalogued")
      #expect(factMismatches(entry, record) == [], "\(entry.path)")
      #expect(record["area"] as? String == entry.area, "\(entry.path)")
      #expect(record["root"] as? String == sample.root)
    }
    #expect(records["Documents/holiday.jpg"]?["extension_mismatch"] as? Bool == true)
    #expect(records["Documents/holiday.jpg"]?["detected_by"] as? String == "content")
    #expect(records["Documents/tone-440-mono.wav"]?["detected_by"] as? String == "content+extension")
  }

  @Test(arguments: TestCatalogues.kinds) func rescansAreIncrementalAndDetectMoves(store: CatalogueStoreKind)
    throws
  {
    let sample = try IndexedSample(store)
    var result = try sample.run(["index"])
    #expect(result.status == 0)
    #expect(
      result.stdout.hasPrefix(
        "\(sample.root): 47 files\n  0 new, 0 updated, 47 unchanged, 0 moved, 0 removed\n"))

    let documents = sample.root + "/Documents"
    #expect(rename(documents + "/holiday.jpg", documents + "/holiday-moved.jpg") == 0)
    #expect(unlink(sample.root + "/tmp/upload.part.txt") == 0)
    try Data("changed text\n".utf8).write(to: URL(fileURLWithPath: documents + "/Notes/welcome-utf8.txt"))
    try Data("brand new\n".utf8).write(to: URL(fileURLWithPath: documents + "/new.txt"))
    result = try sample.run(["index", sample.root])
    #expect(
      result.stdout.hasPrefix(
        "\(sample.root): 47 files\n  1 new, 1 updated, 44 unchanged, 1 moved, 1 removed\n"))
    let records = try sample.records()
    #expect(records["Documents/holiday-moved.jpg"]?["kind"] as? String == "image")
    #expect(records["Documents/holiday.jpg"] == nil)
    #expect(records["tmp/upload.part.txt"] == nil)
    #expect((records["Documents/Notes/welcome-utf8.txt"]?["text"] as? [String: Any])?["words"] as? Int == 2)

    result = try sample.run(["index", "--full"])
    #expect(
      result.stdout.hasPrefix(
        "\(sample.root): 47 files\n  0 new, 47 updated, 0 unchanged, 0 moved, 0 removed\n"))
  }

  @Test func catalogueOptionBeforeOrAfterTheCommandAndFromTheEnvironment() throws {
    let scratch = try TemporaryDirectory()
    let root = try scratch.copy(fromRepository: "SampleMedia/Library", as: "Library")
    let first = scratch.path + "/one.sqlite"
    #expect(try ShelfProcess.run(["index", "--db", first, root]).status == 0)
    #expect(try ShelfProcess.run(["--db", first, "ls", "--limit", "1"]).status == 0)
    let second = scratch.path + "/two.sqlite"
    #expect(try ShelfProcess.run(["index", root], environment: ["SHELF_DB": second]).status == 0)
    #expect(FileManager.default.fileExists(atPath: second))
    let third = scratch.path + "/xdg"
    #expect(
      try ShelfProcess.run(["index", root], environment: ["XDG_DATA_HOME": third, "SHELF_DB": ""]).status == 0
    )
    #expect(FileManager.default.fileExists(atPath: third + "/shelf/catalog.sqlite"))
  }

  @Test(arguments: TestCatalogues.kinds) func interruptedScanLosesNothingCommittedAndTheNextScanCompletes(
    store: CatalogueStoreKind
  ) throws {
    let scratch = try TemporaryDirectory()
    let root = scratch.path + "/many"
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    for index in 0..<400 {
      _ = try scratch.write("many/note\(index).txt", Array("note number \(index)\n".utf8))
    }
    let database = try TestCatalogues.location(store, in: scratch.path)
    let slow = try BackgroundShelf(
      ["--db", database, "index", root],
      environment: ["SHELF_INDEX_BATCH": "20", "SHELF_INDEX_PAUSE": "0.2", "SHELF_TRUST_WINDOW": "0"])
    // Wait until some batches are committed (readers work while the index runs), then kill -9.
    #expect(
      try ObservableWait.until {
        try ShelfProcess.run(["--db", database, "ls", "-0"]).stdoutBytes.filter { $0 == 0 }.count >= 40
      })
    slow.kill(SIGKILL)
    #expect(slow.wait() == 128 + SIGKILL)
    let afterKill = try ShelfProcess.run(["--db", database, "ls", "-0"]).stdoutBytes.filter { $0 == 0 }.count
    #expect(afterKill >= 40 && afterKill < 400 && afterKill % 20 == 0)

    let rescan = try ShelfProcess.run(["--db", database, "index"], environment: ["SHELF_TRUST_WINDOW": "0"])
    #expect(rescan.status == 0)
    #expect(
      rescan.stdout.hasPrefix(
        "\(root): 400 files\n  \(400 - afterKill) new, 0 updated, \(afterKill) unchanged")
    )
    #expect(try ShelfProcess.run(["--db", database, "ls", "-0"]).stdoutBytes.filter { $0 == 0 }.count == 400)
  }

  @Test(arguments: TestCatalogues.kinds) func ctrlCStopsAfterTheCurrentBatchWithStatus130(
    store: CatalogueStoreKind
  ) throws {
    let scratch = try TemporaryDirectory()
    let root = scratch.path + "/many"
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    for index in 0..<300 { _ = try scratch.write("many/n\(index).txt", Array("n \(index)\n".utf8)) }
    let database = try TestCatalogues.location(store, in: scratch.path)
    let errors = scratch.path + "/stderr"
    let slow = try BackgroundShelf(
      ["--db", database, "index", root],
      environment: ["SHELF_INDEX_BATCH": "20", "SHELF_INDEX_PAUSE": "0.2", "SHELF_TRUST_WINDOW": "0"],
      stderrPath: errors)
    #expect(
      try ObservableWait.until { try ShelfProcess.run(["--db", database, "ls", "--limit", "1"]).status == 0 })
    slow.kill(SIGINT)
    #expect(slow.wait() == 130)
    #expect(
      (try? String(contentsOfFile: errors, encoding: .utf8))
        == "error: \(root): interrupted; what was scanned so far is kept (run shelf index again to finish)\n")
    let kept = try ShelfProcess.run(["--db", database, "ls", "-0"]).stdoutBytes.filter { $0 == 0 }.count
    #expect(kept >= 20 && kept < 300 && kept % 20 == 0)
    let rescan = try ShelfProcess.run(["--db", database, "index"], environment: ["SHELF_TRUST_WINDOW": "0"])
    #expect(rescan.stdout.hasPrefix("\(root): 300 files\n  \(300 - kept) new, 0 updated, \(kept) unchanged"))
  }

  @Test func aSecondWriterWaitsThenExits75WhileReadersKeepWorking() throws {
    let scratch = try TemporaryDirectory()
    let root = scratch.path + "/many"
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    for index in 0..<200 { _ = try scratch.write("many/n\(index).txt", Array("n \(index)\n".utf8)) }
    let database = scratch.path + "/catalog.sqlite"
    let first = try BackgroundShelf(
      ["--db", database, "index", root], environment: ["SHELF_INDEX_BATCH": "10", "SHELF_INDEX_PAUSE": "0.3"])
    defer {
      first.kill(SIGKILL)
      _ = first.wait()
    }
    #expect(
      try ObservableWait.until { try ShelfProcess.run(["--db", database, "ls", "--limit", "1"]).status == 0 })
    let started = Date()
    let second = try ShelfProcess.run(
      ["--db", database, "index", root], environment: ["SHELF_LOCK_WAIT": "0.5"])
    #expect(second.status == 75)
    #expect(Date().timeIntervalSince(started) >= 0.5)
    #expect(
      second.stderr
        == "error: \(database): catalogue is busy: another `shelf index` or `shelf forget` is writing it (try again when it has finished)\n"
    )
    #expect(second.stdout.isEmpty)
  }

  @Test(arguments: TestCatalogues.kinds) func hostileTreeIsWalkedSafely(store: CatalogueStoreKind) throws {
    let scratch = try TemporaryDirectory()
    let root = scratch.path + "/tree"
    try FileManager.default.createDirectory(atPath: root + "/inner", withIntermediateDirectories: true)
    _ = try scratch.write("outside.txt", Array("outside\n".utf8))
    _ = try scratch.write("tree/inner/a.txt", Array("inside\n".utf8))
    #expect(symlink(scratch.path + "/outside.txt", root + "/escape.txt") == 0)
    #expect(symlink(scratch.path, root + "/escape-dir") == 0)
    #expect(symlink(root, root + "/inner/loop") == 0)
    #expect(mkfifo(root + "/pipe", 0o644) == 0)
    let badName: [UInt8] = Array((root + "/bad").utf8) + [0xFF, 0x1B] + Array("name.txt".utf8)
    let fd = open(badName.map { CChar(bitPattern: $0) } + [0], O_WRONLY | O_CREAT, 0o644)
    _ = write(fd, "raw name\n", 9)
    close(fd)
    // Headers that lie.
    var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
    png +=
      [0, 1, 0x86, 0xA0, 0, 1, 0x86, 0xA0, 8, 6, 0, 0, 0, 0, 0, 0, 0] + [0x7F, 0, 0, 0] + Array("IDAT".utf8)
    _ = try scratch.write("tree/huge.png", png)
    _ = try scratch.write(
      "tree/lying.wav",
      Array("RIFF".utf8) + [0xFF, 0xFF, 0xFF, 0x7F] + Array("WAVEdata".utf8) + [0xFF, 0xFF, 0xFF, 0x7F])

    let database = try TestCatalogues.location(store, in: scratch.path)
    let result = try ShelfProcess.run(
      ["--db", database, "-v", "index", root], environment: ["SHELF_TRUST_WINDOW": "0"], timeout: 60)
    // Two files whose facts failed: the run went on without them, and says so (status 1).
    #expect(result.status == 1)
    #expect(
      result.stdout
        == "\(root): 4 files\n  4 new, 0 updated, 0 unchanged, 0 moved, 0 removed\n  2 with errors, 3 links not followed, 1 special files skipped\n"
    )
    #expect(result.stderr.contains("warning: \(root)/huge.png: truncated PNG"))
    #expect(result.stderr.contains("warning: \(root)/lying.wav: "))
    let listed = try ShelfProcess.run(["--db", database, "ls", "-0"])
    let paths = listed.stdoutBytes.split(separator: 0).map(Array.init)
    #expect(
      paths == [
        badName, Array((root + "/huge.png").utf8), Array((root + "/inner/a.txt").utf8),
        Array((root + "/lying.wav").utf8),
      ])
    let table = try ShelfProcess.run(["--db", database, "ls", "kind:text"])
    #expect(table.stdout.contains("\(root)/bad\\xff\\x1bname.txt"))
    let json = try ShelfProcess.run(["--db", database, "ls", "--jsonl", "name:bad*"])
    let record = try JSONSerialization.jsonObject(with: Data(json.stdoutBytes)) as? [String: Any]
    #expect((record?["path_b64"] as? String).flatMap { Data(base64Encoded: $0) }.map(Array.init) == badName)

    // Following links reaches only what lies inside the root, and the loop only once.
    let followed = try ShelfProcess.run(
      ["--db", database, "index", "--follow-links", root], environment: ["SHELF_TRUST_WINDOW": "0"])
    #expect(
      followed.stdout
        == "\(root): 4 files\n  0 new, 0 updated, 4 unchanged, 0 moved, 0 removed\n  2 links not followed, 1 link loop, 1 special files skipped\n"
    )
  }

  @Test func audioFilesAreReadThroughTheirOpenDescriptorAndNoneIsLeaked() throws {
    // 150 good and 150 damaged WAV files under a limit of 64 open descriptors: a descriptor
    // kept after a file is read (or fails to open in libsndfile) would exhaust the limit.
    let scratch = try TemporaryDirectory()
    let root = scratch.path + "/tree"
    var wave = Array("RIFF".utf8) + [44, 0, 0, 0] + Array("WAVEfmt ".utf8) + [16, 0, 0, 0, 1, 0, 1, 0]
    wave += [0x40, 0x1F, 0, 0, 0x80, 0x3E, 0, 0, 2, 0, 16, 0] + Array("data".utf8) + [8, 0, 0, 0]
    wave += [1, 0, 2, 0, 3, 0, 4, 0]
    let damaged =
      Array("RIFF".utf8) + [0xFF, 0xFF, 0xFF, 0x7F] + Array("WAVEdata".utf8) + [0xFF, 0xFF, 0xFF, 0x7F]
    for n in 0..<150 {
      _ = try scratch.write("tree/good-\(n).wav", wave)
      _ = try scratch.write("tree/bad-\(n).wav", damaged)
    }
    let database = scratch.path + "/catalog.sqlite"
    let result = try ShelfProcess.run(
      ["--db", database, "index", root], environment: ["SHELF_TRUST_WINDOW": "0"],
      launcher: ["prlimit", "--nofile=64:64"], timeout: 60)
    // The damaged ones are bad input: the run goes on and says so with status 1.
    #expect(result.status == 1)
    #expect(
      result.stdout
        == "\(root): 300 files\n  300 new, 0 updated, 0 unchanged, 0 moved, 0 removed\n  150 with errors\n")
    #expect(!result.stderr.contains("open files"))
    let good = try ShelfProcess.run(["--db", database, "ls", "--json", "name:good-7.wav"])
    #expect(good.stdout.contains("\"frames\":4"))
  }

  @Test(arguments: TestCatalogues.kinds) func unreadableFoldersAndFilesAreCountedAndTheScanGoesOn(
    store: CatalogueStoreKind
  ) throws {
    let scratch = try TemporaryDirectory()
    #expect(chmod(scratch.path, 0o777) == 0)
    let root = scratch.path + "/tree"
    try FileManager.default.createDirectory(atPath: root + "/locked", withIntermediateDirectories: true)
    _ = try scratch.write("tree/ok.txt", Array("fine\n".utf8))
    _ = try scratch.write("tree/secret.txt", Array("secret\n".utf8))
    _ = try scratch.write("tree/locked/hidden.txt", Array("hidden\n".utf8))
    #expect(chmod(root + "/secret.txt", 0) == 0)
    #expect(chmod(root + "/locked", 0) == 0)
    let database = try TestCatalogues.location(store, in: scratch.path)
    // Root reads everything: drop to an unprivileged user for this check.
    let prefix = getuid() == 0 ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = prefix + [ShelfProcess.binary, "--db", database, "-v", "index", root]
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    process.waitUntilExit()
    let stdout = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    #expect(process.terminationStatus == 1)
    #expect(
      stdout == "\(root): 2 files\n  2 new, 0 updated, 0 unchanged, 0 moved, 0 removed\n  2 unreadable\n",
      "\(stderr)")
    #expect(
      stderr.contains(
        "warning: \(root)/locked: cannot read the folder: permission denied; its entries are kept as they were\n"
      ))
    #expect(stderr.contains("warning: \(root)/secret.txt: permission denied\n"))
    #expect(chmod(root + "/locked", 0o755) == 0)
  }

  @Test func damagedShelfCatalogueIsMovedAsideByIndexOnly() throws {
    let scratch = try TemporaryDirectory()
    let root = try scratch.copy(fromRepository: "SampleMedia/Library", as: "Library")
    let database = scratch.path + "/catalog.sqlite"
    #expect(try ShelfProcess.run(["--db", database, "index", root]).status == 0)
    // Keep shelf's header, damage every page after it.
    var damaged = try CatalogueFiles.bytes(database)
    for index in 100..<damaged.count { damaged[index] = 0xEE }
    try Data(damaged).write(to: URL(fileURLWithPath: database))
    let files = try CatalogueFiles.names(scratch.path)
    let reader = try ShelfProcess.run(["--db", database, "ls"])
    #expect(reader.status == 65)
    #expect(try CatalogueFiles.bytes(database) == damaged)
    #expect(try CatalogueFiles.names(scratch.path) == files)
    let result = try ShelfProcess.run(["--db", database, "index", root])
    #expect(result.status == 0)
    #expect(
      result.stderr
        == "warning: \(database): the catalogue was damaged; moved it to \(database).corrupt and rebuilt it\n"
    )
    #expect(try CatalogueFiles.bytes(database + ".corrupt") == damaged)
    #expect(try ShelfProcess.run(["--db", database, "ls", "-0"]).stdoutBytes.filter { $0 == 0 }.count == 6)
  }

  @Test(arguments: TestCatalogues.kinds) func missingRootIsAnErrorAndOthersAreStillScanned(
    store: CatalogueStoreKind
  ) throws {
    let scratch = try TemporaryDirectory()
    let root = try scratch.copy(fromRepository: "SampleMedia/tmp", as: "tmp")
    let database = try TestCatalogues.location(store, in: scratch.path)
    let result = try ShelfProcess.run(["--db", database, "index", scratch.path + "/nope", root])
    #expect(result.status == 1)
    #expect(result.stderr == "error: \(scratch.path)/nope: no such file or directory\n")
    #expect(result.stdout.hasPrefix("\(root): 1 file\n  1 new"))
  }

  @Test func progressAlwaysReportsRateWhenPiped() throws {
    let scratch = try TemporaryDirectory()
    let root = try scratch.copy(fromRepository: "SampleMedia")
    try FileManager.default.removeItem(atPath: root + "/Backups")
    let result = try ShelfProcess.run([
      "--db", scratch.path + "/c.sqlite", "index", "--progress", "always", root,
    ])
    #expect(result.status == 0)
    #expect(result.stderr.contains("SampleMedia "))
    #expect(result.stderr.contains("47/47 files"))
    #expect(result.stderr.contains(" files/s"))
    let quiet = try ShelfProcess.run(["--db", scratch.path + "/c.sqlite", "index", root])
    #expect(quiet.stderr.isEmpty)
  }

  @Test func aFileIsNotARoot() throws {
    let scratch = try TemporaryDirectory()
    let file = try scratch.write("plain.txt", Array("x\n".utf8))
    let result = try ShelfProcess.run(["--db", scratch.path + "/c.sqlite", "index", file])
    #expect(result.status == 66)
    #expect(result.stderr == "error: \(file): is not a directory\n")
  }

  @Test func noRootsYetIsAUsageError() throws {
    let scratch = try TemporaryDirectory()
    let result = try ShelfProcess.run(["--db", scratch.path + "/c.sqlite", "index"])
    #expect(result.status == 64)
    #expect(result.stderr.hasPrefix("error: no roots in the catalogue yet: give a folder to index\n"))
  }
}

/// A `shelf` process running in the background, for interruption and locking tests.
final class BackgroundShelf {
  let process = Process()

  init(_ arguments: [String], environment: [String: String] = [:], stderrPath: String? = nil) throws {
    process.executableURL = URL(fileURLWithPath: ShelfProcess.binary)
    process.arguments = arguments
    var merged = ProcessInfo.processInfo.environment
    merged["NO_COLOR"] = "1"
    for (key, value) in environment { merged[key] = value }
    process.environment = merged
    process.standardOutput = FileHandle.nullDevice
    if let stderrPath {
      _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
      process.standardError = FileHandle(forWritingAtPath: stderrPath)
    } else {
      process.standardError = FileHandle.nullDevice
    }
    try process.run()
  }

  func kill(_ signal: Int32) {
    if process.isRunning { Glibc.kill(process.processIdentifier, signal) }
  }

  /// Waits for the process; returns its exit status, or 128 + the signal that ended it.
  func wait() -> Int32 {
    process.waitUntilExit()
    return process.terminationReason == .uncaughtSignal
      ? 128 + process.terminationStatus : process.terminationStatus
  }
}

/// Reading the files beside a catalogue, to show a command left them as they were.
enum CatalogueFiles {
  static func bytes(_ path: String) throws -> [UInt8] {
    Array(try Data(contentsOf: URL(fileURLWithPath: path)))
  }

  static func names(_ folder: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
  }

  /// A valid, empty SQLite database of one page, as another program might leave it.
  static let emptySQLiteDatabase: [UInt8] = {
    var page = [UInt8](repeating: 0, count: 4096)
    let header: [UInt8] =
      Array("SQLite format 3".utf8) + [0, 0x10, 0x00, 1, 1, 0, 64, 32, 32]
      + [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4]
    page.replaceSubrange(0..<header.count, with: header)
    page[56 + 3] = 1  // UTF-8
    page[92 + 3] = 1  // version-valid-for
    page[100] = 0x0D  // an empty table leaf: no cells, content area at the page end
    page[105] = 0x10
    return page
  }()

  /// Replaces the big-endian 32-bit header field at `offset` (60: user_version, 68: application_id).
  static func patchHeader(_ path: String, offset: Int, value: UInt32) throws {
    var data = try bytes(path)
    for index in 0..<4 { data[offset + index] = UInt8(truncatingIfNeeded: value >> (24 - 8 * index)) }
    try Data(data).write(to: URL(fileURLWithPath: path))
  }
}

/// Readers never change a catalogue, and a file that is not one is never touched.
@Suite struct CatalogueSafetyTests {
  @Test func aFileThatIsNotACatalogueIsRefusedAndLeftUntouched() throws {
    let scratch = try TemporaryDirectory()
    let root = try scratch.copy(fromRepository: "SampleMedia/tmp", as: "tmp")
    let foreign = scratch.path + "/foreign.sqlite"
    #expect(try ShelfProcess.run(["--db", foreign, "index", root]).status == 0)
    // Another program's database: tables of its own and its own application_id.
    try CatalogueFiles.patchHeader(foreign, offset: 68, value: 0x4142_4344)
    let candidates = [
      try scratch.write("notes.txt", Array("shopping: milk, eggs\n".utf8)),
      try scratch.write("empty.sqlite", []),
      try scratch.write("garbage.sqlite", Array(repeating: 0x5A, count: 8192)),
      try scratch.write("blank.sqlite", CatalogueFiles.emptySQLiteDatabase),
      foreign,
    ]
    for file in candidates {
      let before = try CatalogueFiles.bytes(file)
      let files = try CatalogueFiles.names(scratch.path)
      for command in [["ls"], ["stats"], ["roots"], ["index", root], ["index"], ["forget", root]] {
        let result = try ShelfProcess.run(["--db", file] + command)
        #expect(result.status == 65, "\(file) \(command)")
        #expect(result.stderr == "error: \(file): not a shelf catalogue\n", "\(file) \(command)")
      }
      #expect(try CatalogueFiles.bytes(file) == before, "\(file)")
      #expect(try CatalogueFiles.names(scratch.path) == files, "\(file)")
    }
  }

  @Test func readersLeaveTheCatalogueAndItsFolderAsTheyWere() throws {
    let scratch = try TemporaryDirectory()
    let root = try scratch.copy(fromRepository: "SampleMedia/Library", as: "Library")
    try FileManager.default.createDirectory(atPath: scratch.path + "/db", withIntermediateDirectories: false)
    let database = scratch.path + "/db/catalog.sqlite"
    #expect(try ShelfProcess.run(["--db", database, "index", root]).status == 0)
    let before = try CatalogueFiles.bytes(database)
    let files = try CatalogueFiles.names(scratch.path + "/db")
    #expect(files == ["catalog.sqlite", "catalog.sqlite.lock"])
    for command in [
      ["ls"], ["ls", "--json"], ["stats"], ["roots"],
      ["info", root + "/Preferences/com.example.shelfdemo.plist"],
    ] {
      let result = try ShelfProcess.run(["--db", database] + command)
      #expect(result.status == 0, "\(command): \(result.stderr)")
      #expect(try CatalogueFiles.bytes(database) == before, "\(command)")
      #expect(try CatalogueFiles.names(scratch.path + "/db") == files, "\(command)")
    }
  }

  @Test func anOlderSchemaIsUpgradedOnlyByIndex() throws {
    let scratch = try TemporaryDirectory()
    let root = try scratch.copy(fromRepository: "SampleMedia/tmp", as: "tmp")
    let database = scratch.path + "/catalog.sqlite"
    #expect(try ShelfProcess.run(["--db", database, "index", root]).status == 0)
    // As schema 4 catalogues were stamped: no application_id.
    try CatalogueFiles.patchHeader(database, offset: 60, value: 4)
    try CatalogueFiles.patchHeader(database, offset: 68, value: 0)
    let before = try CatalogueFiles.bytes(database)
    for command in [["ls"], ["stats"], ["roots"]] {
      let result = try ShelfProcess.run(["--db", database] + command)
      #expect(result.status == 65)
      #expect(
        result.stderr
          == "error: \(database): the catalogue has schema 4, older than this shelf's schema 17: run 'shelf index' to upgrade the catalogue\n"
      )
    }
    #expect(try CatalogueFiles.bytes(database) == before)
  }

  @Test func aNewerSchemaNamesTheShelfThatWroteIt() throws {
    let scratch = try TemporaryDirectory()
    let root = try scratch.copy(fromRepository: "SampleMedia/tmp", as: "tmp")
    let database = scratch.path + "/catalog.sqlite"
    #expect(try ShelfProcess.run(["--db", database, "index", root]).status == 0)
    let version = String(try ShelfProcess.run(["--version"]).stdout.dropFirst("shelf ".count).dropLast())
    #expect(!version.isEmpty)
    let later = String(version.map { $0.isNumber ? "9" : $0 })
    // Made by a later shelf: schema 18, its version in the meta table.
    var bytes = try CatalogueFiles.bytes(database)
    let recorded = Array(("shelf_version" + version).utf8)
    let replacement = Array(("shelf_version" + later).utf8)
    var found = 0
    for at in 0...(bytes.count - recorded.count) where bytes[at..<at + recorded.count].elementsEqual(recorded)
    {
      bytes.replaceSubrange(at..<at + recorded.count, with: replacement)
      found += 1
    }
    #expect(found > 0)
    try Data(bytes).write(to: URL(fileURLWithPath: database))
    try CatalogueFiles.patchHeader(database, offset: 60, value: 18)
    let before = try CatalogueFiles.bytes(database)
    for command in [["ls"], ["index"]] {
      let result = try ShelfProcess.run(["--db", database] + command)
      #expect(result.status == 65)
      #expect(
        result.stderr
          == "error: \(database): catalogue was written by shelf \(later) (schema 18); this is shelf \(version) (schema 17)\n"
      )
    }
    #expect(try CatalogueFiles.bytes(database) == before)
  }

  @Test func aNamedCatalogueNeedsItsFolderTheDefaultOneGetsIt() throws {
    let scratch = try TemporaryDirectory()
    let root = try scratch.copy(fromRepository: "SampleMedia/tmp", as: "tmp")
    let result = try ShelfProcess.run(["--db", scratch.path + "/nope/dir/x.sqlite", "index", root])
    #expect(result.status == 73)
    #expect(result.stderr == "error: \(scratch.path)/nope/dir: no such folder for the catalogue\n")
    #expect(!FileManager.default.fileExists(atPath: scratch.path + "/nope"))
    let fromEnvironment = try ShelfProcess.run(
      ["index", root], environment: ["SHELF_DB": scratch.path + "/nope/y.sqlite"])
    #expect(fromEnvironment.status == 73)
    #expect(!FileManager.default.fileExists(atPath: scratch.path + "/nope"))
    let byDefault = try ShelfProcess.run(
      ["index", root], environment: ["XDG_DATA_HOME": scratch.path + "/data", "SHELF_DB": ""])
    #expect(byDefault.status == 0)
    #expect(FileManager.default.fileExists(atPath: scratch.path + "/data/shelf/catalog.sqlite"))
  }

  @Test func aReaderReadsACatalogueInAFolderItCannotWrite() throws {
    let scratch = try TemporaryDirectory()
    let root = try scratch.copy(fromRepository: "SampleMedia/tmp", as: "tmp")
    try FileManager.default.createDirectory(atPath: scratch.path + "/db", withIntermediateDirectories: false)
    let database = scratch.path + "/db/catalog.sqlite"
    #expect(try ShelfProcess.run(["--db", database, "index", root]).status == 0)
    let expected = try ShelfProcess.run(["--db", database, "ls", "-0"]).stdoutBytes
    // As left in WAL mode (header bytes 18 and 19 are 2) with no -wal or -shm beside it: a
    // read-only connection cannot create the -shm in a folder it may not write.
    var bytes = try CatalogueFiles.bytes(database)
    bytes[18] = 2
    bytes[19] = 2
    try Data(bytes).write(to: URL(fileURLWithPath: database))
    #expect(chmod(scratch.path, 0o755) == 0 && chmod(scratch.path + "/db", 0o555) == 0)
    defer { _ = chmod(scratch.path + "/db", 0o755) }
    // Root may write anywhere: run as nobody then.
    let launcher = getuid() == 0 ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []
    let files = try CatalogueFiles.names(scratch.path + "/db")
    let result = try ShelfProcess.run(["--db", database, "ls", "-0"], launcher: launcher)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdoutBytes == expected)
    #expect(try CatalogueFiles.bytes(database) == bytes)
    #expect(try CatalogueFiles.names(scratch.path + "/db") == files)
  }
}
