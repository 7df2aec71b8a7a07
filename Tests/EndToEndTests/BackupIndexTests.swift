import Foundation
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The generated sample backups (Tests/Fixtures/sample-backups.json): every era, plain and
/// encrypted, copied into a temporary folder.
final class SampleBackupCopy {
  struct File: Sendable {
    let era: String
    let domain: String
    let path: String
    let fileID: String
    let size: Int
    let source: String
    let protectionClass: Int?
  }

  /// The generator's facts file: the test password and every era's entries.
  private static func loadFacts() -> (password: String, backups: [String: [String: Any]]) {
    let url = ShelfProcess.repositoryRoot.appendingPathComponent("Tests/Fixtures/sample-backups.json")
    let data = (try? Data(contentsOf: url)) ?? Data()
    let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    return (root["password"] as? String ?? "", root["backups"] as? [String: [String: Any]] ?? [:])
  }

  static let password = loadFacts().password
  static let eras = [
    "manifest-db", "manifest-db-encrypted", "mbdb", "mbdb-encrypted", "mdinfo", "mdinfo-encrypted",
    "mdbackup",
  ]

  /// Every file entry the generator wrote, by era.
  static let files: [File] = {
    let backups = loadFacts().backups
    return eras.flatMap { era in
      let entries = backups[era]?["entries"] as? [[String: Any]] ?? []
      return entries.filter { $0["type"] as? String == "file" }.map { entry in
        File(
          era: era, domain: entry["domain"] as? String ?? "", path: entry["path"] as? String ?? "",
          fileID: entry["file_id"] as? String ?? "", size: entry["size"] as? Int ?? -1,
          source: entry["source"] as? String ?? "", protectionClass: entry["protection_class"] as? Int)
      }
    }
  }()

  let scratch: TemporaryDirectory
  /// The folder of backups (as MobileSync/Backup is).
  let folder: String
  let database: String

  /// The sample backups, copied, with a new catalogue in `store`.
  init(_ store: CatalogueStoreKind = .sqlite) throws {
    scratch = try TemporaryDirectory()
    folder = try scratch.copy(fromRepository: "SampleMedia/Backups")
    database = try TestCatalogues.location(store, in: scratch.path)
  }

  func backup(_ era: String) -> String { folder + "/" + era }

  func run(_ arguments: [String], password: String? = SampleBackupCopy.password) throws -> ShelfResult {
    var environment = ["SHELF_TRUST_WINDOW": "0"]
    if let password { environment["SHELF_BACKUP_PASSWORD"] = password }
    return try ShelfProcess.run(["--db", database] + arguments, environment: environment)
  }

  /// Every file below `path` with its bytes, by relative path.
  static func tree(_ path: String) -> [String: [UInt8]] {
    var found: [String: [UInt8]] = [:]
    for relative in (FileManager.default.subpaths(atPath: path) ?? []) {
      var isDirectory: ObjCBool = false
      let full = path + "/" + relative
      if FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue {
        found[relative] = [UInt8](FileManager.default.contents(atPath: full) ?? Data())
      }
    }
    return found
  }

  static func sampleBytes(_ source: String) -> [UInt8] {
    let url = ShelfProcess.repositoryRoot.appendingPathComponent("SampleMedia/" + source)
    return [UInt8]((try? Data(contentsOf: url)) ?? Data())
  }
}

/// `shelf index` of iPhone backups: every era catalogued by real names with its backup facts
/// and areas; passwords from a file or the environment, never shown; problems one line each.
@Suite struct BackupIndexTests {
  static let expectedArea = [
    "Media/DCIM/100APPLE/IMG_0001.PNG": "camera-roll", "Media/Recordings/20240501 093000.wav": "recordings",
    "Library/Voicemail/1.ogg": "voicemail", "Documents/welcome.txt": "documents",
    "Library/Preferences/com.example.notes.plist": "preferences",
  ]

  @Test(arguments: TestCatalogues.kinds) func aFolderOfBackupsIsCataloguedByRealNamesAndNothingInItIsWritten(
    store: CatalogueStoreKind
  ) throws {
    let copy = try SampleBackupCopy(store)
    let before = SampleBackupCopy.tree(copy.folder)
    #expect(SampleBackupCopy.files.count == 35)
    let indexed = try copy.run(["index", copy.folder])
    #expect(indexed.status == 0, "\(indexed.stderr)")
    #expect(indexed.stderr.isEmpty)
    for era in SampleBackupCopy.eras {
      #expect(indexed.stdout.contains("\(copy.backup(era)): 5 files\n  5 new, "), "\(era)")
    }
    #expect(SampleBackupCopy.tree(copy.folder) == before, "the backups are only read")

    let listing = try copy.run(["ls", "--json"])
    let records = try JSONSerialization.jsonObject(with: Data(listing.stdoutBytes)) as? [[String: Any]] ?? []
    var byPath: [String: [String: Any]] = [:]
    for record in records { byPath[record["path"] as? String ?? ""] = record }
    #expect(byPath.count == 35)
    for file in SampleBackupCopy.files {
      let path = copy.backup(file.era) + "/" + file.domain + "/" + file.path
      let record = byPath[path] ?? [:]
      #expect(record["root"] as? String == copy.backup(file.era), "\(path)")
      #expect(record["size"] as? Int == file.size, "\(path)")
      #expect(record["area"] as? String == Self.expectedArea[file.path], "\(path)")
      let backup = record["backup"] as? [String: Any] ?? [:]
      #expect(backup["domain"] as? String == file.domain, "\(path)")
      #expect(backup["file_id"] as? String == file.fileID, "\(path)")
      #expect(backup["protection_class"] as? Int == file.protectionClass, "\(path)")
      #expect(backup["app"] as? String == (file.domain.hasPrefix("AppDomain-") ? "com.example.notes" : nil))
    }
    let wav = byPath[copy.backup("mbdb-encrypted") + "/MediaDomain/Media/Recordings/20240501 093000.wav"]
    #expect(
      (wav?["audio"] as? [String: Any])?["sample_rate"] as? Int == 44100, "facts from decrypted content")
    let png = byPath[
      copy.backup("manifest-db-encrypted") + "/CameraRollDomain/Media/DCIM/100APPLE/IMG_0001.PNG"]
    #expect((png?["image"] as? [String: Any])?["width"] as? Int == 64)

    let rescan = try copy.run(["index", copy.folder])
    #expect(rescan.status == 0)
    #expect(
      rescan.stdout.contains(
        "\(copy.backup("manifest-db-encrypted")): 5 files\n  0 new, 0 updated, 5 unchanged"))
  }

  @Test(arguments: TestCatalogues.kinds) func queriesFindEntriesByDomainAppAndArea(store: CatalogueStoreKind)
    throws
  {
    let copy = try SampleBackupCopy(store)
    #expect(try copy.run(["index", copy.folder]).status == 0)
    func count(_ query: [String]) throws -> Int {
      let result = try copy.run(["ls", "-0"] + query)
      return result.stdoutBytes.filter { $0 == 0 }.count
    }
    #expect(try count(["domain:CameraRollDomain"]) == 7)
    #expect(try count(["app:com.example.notes"]) == 14)
    #expect(try count(["area:recordings"]) == 7)
    #expect(try count(["area:voicemail", "root:*/mbdb-encrypted"]) == 1)
    #expect(try count(["file_id:c8ada38b9acf7368c6647be1c353dc68ed2c7741"]) == 7)

    let roots = try copy.run(["roots", "--json"])
    let list = try JSONSerialization.jsonObject(with: Data(roots.stdoutBytes)) as? [[String: Any]] ?? []
    // The folder of backups is a root, each backup one of its own listed under it.
    let nested = list.flatMap { $0["nested"] as? [[String: Any]] ?? [] }
    let encrypted = nested.first { $0["path"] as? String == copy.backup("manifest-db-encrypted") }
    let backup = encrypted?["backup"] as? [String: Any] ?? [:]
    #expect(backup["device"] as? String == "Shelf Test iPhone")
    #expect(backup["ios_version"] as? String == "17.5")
    #expect(backup["date"] as? String == "2024-05-01T09:30:00Z")
    #expect(backup["encrypted"] as? Bool == true)
    let stats = try copy.run(["stats"])
    #expect(
      stats.stdout.contains(
        "\(copy.backup("mbdb"))  (backup: Shelf Test iPhone (iPhone8,1), iOS 9.3.5, 2024-05-01T09:30:00Z, not encrypted, mbdb)"
      ))
  }

  @Test func aWrongOrMissingPasswordExits77BeforeAnythingIsCatalogued() throws {
    let copy = try SampleBackupCopy()
    let encrypted = copy.backup("manifest-db-encrypted")
    let missing = try copy.run(["index", encrypted], password: nil)
    #expect(missing.status == 77)
    #expect(
      missing.stderr
        == "error: \(encrypted): encrypted backup: a password is needed (give --password-file FILE, set SHELF_BACKUP_PASSWORD, or run on a terminal to be asked)\n"
    )
    let wrong = try copy.run(["index", encrypted], password: "not the password")
    #expect(wrong.status == 77)
    #expect(wrong.stderr == "error: \(encrypted): wrong password for this encrypted backup\n")
    let listing = try copy.run(["ls", "-0"])
    #expect(listing.stdoutBytes.isEmpty, "nothing catalogued")
  }

  @Test func thePasswordComesFromAFileAndNeverShows() throws {
    let copy = try SampleBackupCopy()
    let password = SampleBackupCopy.password
    let file = try copy.scratch.write("password.txt", Array((password + "\n").utf8))
    let arguments = ["--db", copy.database, "--password-file", file, "index", copy.backup("mbdb-encrypted")]
    let out = copy.scratch.file("out.log")
    let err = copy.scratch.file("err.log")
    // Slowed down (one file a batch, a pause after each) so its command line can be read.
    let pid = try ShelfProcess.spawn(
      ShelfProcess.binary, ([ShelfProcess.binary] + arguments).map { Array($0.utf8) },
      environment: ["SHELF_INDEX_BATCH": "1", "SHELF_INDEX_PAUSE": "0.05", "SHELF_BACKUP_PASSWORD": ""],
      stdinPath: nil, stdoutPath: out, stderrPath: err)
    // Read once the new program runs (the line is empty until then), while it works.
    var commandLine: [UInt8] = []
    let deadline = Date().addingTimeInterval(10)
    while commandLine.isEmpty && Date() < deadline {
      commandLine = Self.procFile("/proc/\(pid)/cmdline")
      if commandLine.isEmpty { usleep(1000) }
    }
    let status = ShelfProcess.wait(for: pid, timeout: 60)
    #expect(
      status == 0, "\(String(decoding: FileManager.default.contents(atPath: err) ?? Data(), as: UTF8.self))")
    #expect(!commandLine.isEmpty)
    let secret = Array(password.utf8)
    func holdsSecret(_ bytes: [UInt8]) -> Bool {
      bytes.count >= secret.count
        && (0...(bytes.count - secret.count)).contains { bytes[$0..<$0 + secret.count].elementsEqual(secret) }
    }
    #expect(!holdsSecret(commandLine), "not in /proc/PID/cmdline")
    for path in [out, err, copy.database] {
      #expect(!holdsSecret([UInt8](FileManager.default.contents(atPath: path) ?? Data())), "\(path)")
    }
    let listing = try copy.run(["ls", "--json", "root:*/mbdb-encrypted"], password: nil)
    #expect(!holdsSecret(listing.stdoutBytes) && !holdsSecret(listing.stderrBytes))
    #expect(listing.stdout.contains("\"file_id\":\"c8ada38b9acf7368c6647be1c353dc68ed2c7741\""))
  }

  @Test func onATerminalThePasswordIsAskedWithoutEcho() throws {
    let copy = try SampleBackupCopy()
    let terminal = try TerminalSession(
      "env -u SHELF_BACKUP_PASSWORD \(ShelfProcess.binary) --db \(copy.database) index \(copy.backup("manifest-db-encrypted"))",
      log: copy.scratch.file("typescript"))
    #expect(terminal.type(SampleBackupCopy.password, after: "Password for the encrypted backup "))
    let status = try terminal.finish()
    let text = terminal.screen
    #expect(status == 0, "\(text)")
    #expect(text.contains("Password for the encrypted backup \(copy.backup("manifest-db-encrypted")): "))
    #expect(text.contains("\(copy.backup("manifest-db-encrypted")): 5 files\n  5 new, "), "\(text)")
    #expect(!text.contains(SampleBackupCopy.password), "the typed password is not echoed")
  }

  /// A /proc file's bytes (its reported size is 0, so it is read until the end).
  static func procFile(_ path: String) -> [UInt8] {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { return [] }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
      if count <= 0 { break }
      bytes += buffer[..<count]
    }
    return bytes
  }

  @Test func aMissingStoredFileIsOneLineAndTheRestIsCatalogued() throws {
    let copy = try SampleBackupCopy()
    let backup = copy.backup("manifest-db")
    let image = SampleBackupCopy.files.first { $0.era == "manifest-db" && $0.path.hasSuffix("IMG_0001.PNG") }!
    try FileManager.default.removeItem(
      atPath: backup + "/" + String(image.fileID.prefix(2)) + "/" + image.fileID)
    let result = try copy.run(["index", backup])
    #expect(result.status == 1)
    #expect(
      result.stderr
        == "error: \(backup)/CameraRollDomain/Media/DCIM/100APPLE/IMG_0001.PNG: stored file \(image.fileID) is missing from the backup\n"
    )
    let listing = try copy.run(["ls", "-0", "root:*/manifest-db", "-error:"])
    #expect(listing.stdoutBytes.filter { $0 == 0 }.count == 4)
  }

  @Test func anUnfinishedBackupIsOneLineAndStillCatalogued() throws {
    let copy = try SampleBackupCopy()
    let backup = copy.backup("manifest-db")
    let status = URL(fileURLWithPath: backup + "/Status.plist")
    var plist =
      try PropertyListSerialization.propertyList(from: Data(contentsOf: status), format: nil)
      as? [String: Any] ?? [:]
    plist["SnapshotState"] = "uploading"
    try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0).write(to: status)
    let result = try copy.run(["index", backup])
    #expect(result.status == 1)
    #expect(
      result.stderr
        == "error: \(backup): backup is unfinished (Status.plist says it is still being written)\n")
    #expect(result.stdout.hasPrefix("\(backup): 5 files\n  5 new, "))
  }

  @Test func escapingNamesAreProblemsAndNeverExtractedOutside() throws {
    let copy = try SampleBackupCopy()
    let hostile = copy.scratch.file("hostile/backup")
    let generator = Process()
    generator.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    generator.arguments = [
      ShelfProcess.repositoryRoot.appendingPathComponent("scripts/make-backups.py").path, "--era",
      "manifest-db",
      "--out", hostile, "--hostile", "unsafe-paths",
    ]
    try generator.run()
    generator.waitUntilExit()
    try #require(generator.terminationStatus == 0)
    let indexed = try copy.run(["index", hostile])
    #expect(indexed.status == 1)
    let problems = indexed.stderr.split(separator: "\n")
    #expect(problems.count == 5, "\(indexed.stderr)")
    #expect(problems.allSatisfy { $0.hasPrefix("error: ") })
    #expect(problems.filter { $0.contains(": manifest path escapes its domain: ") }.count == 4)
    #expect(
      problems.contains(
        "error: \(hostile)/HomeDomain/Library/Voicemail/2.ogg: manifest row has no file record"))
    #expect(indexed.stdout.contains("5 files\n  5 new, "))

    let out = copy.scratch.file("hostile/out")
    let extracted = try copy.run(["extract", "root:\(hostile)", "-o", out])
    #expect(extracted.status == 0, "\(extracted.stderr)")
    let outside = try FileManager.default.contentsOfDirectory(atPath: copy.scratch.file("hostile")).sorted()
    #expect(outside == ["backup", "out"], "nothing written beside the output folder")
    #expect(!FileManager.default.fileExists(atPath: "/tmp/absolute.txt"))
    let written = SampleBackupCopy.tree(out).keys.sorted()
    #expect(written.count == 5)
    #expect(
      written.allSatisfy { !$0.contains("passwd") && !$0.contains("escape") && !$0.contains("outside") })
  }
}
