import Foundation
import ShelfBackup
import ShelfCore
import ShelfTestSupport
import Testing

/// Damaged and hostile backups: each problem is one typed error naming the file, the rest of
/// the backup stays readable, nothing escapes its domain, and nothing in the backup is written.
@Suite struct HostileBackupTests {
  // MARK: Names that try to escape

  @Test(arguments: ["manifest-db", "mbdb"])
  func escapingPathsAreRefusedAndTheRestRead(_ era: String) throws {
    let scratch = try TemporaryDirectory()
    let folder = try SampleBackups.generate(era, hostile: "unsafe-paths", into: scratch)
    let backup = try Backup(folder: RawPath(folder), password: nil)
    let (entries, problems) = try backup.entries()
    let refused = problems.compactMap { problem -> RawPath? in
      if case .unsafePath(let path) = problem.reason { return path }
      return nil
    }
    #expect(
      Set(refused)
        == [
          RawPath("HomeDomain/../../escape.txt"), RawPath("HomeDomain//tmp/absolute.txt"),
          RawPath(bytes: Array("HomeDomain/Library/nul".utf8) + [0] + Array("name.txt".utf8)),
          RawPath("../Outside/Documents/outside.txt"),
        ])
    // Manifest.db also has a row without its MBFile record.
    let bare = problems.filter { if case .unsafePath = $0.reason { false } else { true } }
    if era == "manifest-db" {
      #expect(
        bare == [
          BackupError(
            path: RawPath(folder + "/HomeDomain/Library/Voicemail/2.ogg"),
            reason: .corruptManifest("manifest row has no file record"))
        ])
    } else {
      #expect(bare.isEmpty)
    }
    #expect(problems.count == refused.count + bare.count)
    #expect(problems.allSatisfy { $0.failure == .badInput })
    // The five real files are still there and readable.
    let files = entries.filter { $0.type == .file }
    #expect(files.count == 5)
    for entry in files { #expect(try backup.contents(of: entry).count == Int(entry.size)) }
    for entry in entries {
      #expect(!entry.relativePath.bytes.contains(0))
      #expect(entry.relativePath.bytes.first != UInt8(ascii: "/"))
      #expect(!entry.domain.contains("/"))
    }
  }

  @Test(arguments: ["manifest-db", "mbdb"])
  func linksPointingOutAreReportedNotFollowed(_ era: String) throws {
    let scratch = try TemporaryDirectory()
    let folder = try SampleBackups.generate(era, hostile: "unsafe-paths", into: scratch)
    let backup = try Backup(folder: RawPath(folder), password: nil)
    let links = try backup.entries().entries.filter { $0.type == .symlink }
    let targets = Dictionary(uniqueKeysWithValues: links.map { ($0.relativePath, $0.linkTarget) })
    #expect(targets[RawPath("Library/Voicemail/passwd")] == RawPath("/etc/passwd"))
    #expect(targets[RawPath("Library/Voicemail/up")] == RawPath("../../../../../etc"))
    let outward = try #require(links.first { $0.relativePath == RawPath("Library/Voicemail/passwd") })
    #expect(
      throws: BackupError(path: outward.cataloguePath(in: RawPath(folder)), reason: .notAFile(.symlink))
    ) {
      try backup.contents(of: outward)
    }
    // A caller that forges the type still gets no content: the manifest's own record decides.
    var forged = outward
    forged.type = .file
    #expect(throws: BackupError(path: forged.cataloguePath(in: RawPath(folder)), reason: .notAFile(.symlink)))
    {
      try backup.contents(of: forged)
    }
  }

  @Test func storedFileThatIsALinkIsNotFollowed() throws {
    let scratch = try TemporaryDirectory()
    let folder = try SampleBackups.copy("manifest-db", into: scratch)
    let backup = try SampleBackupsOpen.plain(folder)
    let entry = try #require(
      try backup.entries().entries.first { $0.relativePath.escaped.hasSuffix("welcome.txt") })
    let stored = folder + "/" + entry.fileID.prefix(2) + "/" + entry.fileID
    let secret = try scratch.write("secret.txt", Array("outside the backup".utf8))
    try FileManager.default.removeItem(atPath: stored)
    try FileManager.default.createSymbolicLink(atPath: stored, withDestinationPath: secret)
    #expect(throws: BackupError.self) { try backup.contents(of: entry) }
    let error = try #require(throws: BackupError.self) { try backup.contents(of: entry) }
    #expect(error.path == entry.cataloguePath(in: RawPath(folder)))
    #expect(error.description.contains("symbolic link"))
  }

  // MARK: Missing and damaged files

  @Test(arguments: ["manifest-db", "mbdb", "manifest-db-encrypted", "mbdb-encrypted"])
  func missingStoredFileIsOneErrorAndTheRestRead(_ era: String) throws {
    let scratch = try TemporaryDirectory()
    let folder = try SampleBackups.copy(era, into: scratch)
    let backup = try Backup(folder: RawPath(folder), password: SampleBackups.password(for: era))
    let files = try backup.entries().entries.filter { $0.type == .file }
    let victim = try #require(files.first { $0.relativePath.escaped.hasSuffix(".wav") })
    let stored = era.hasPrefix("manifest-db") ? "\(victim.fileID.prefix(2))/\(victim.fileID)" : victim.fileID
    try FileManager.default.removeItem(atPath: folder + "/" + stored)
    #expect(
      throws: BackupError(
        path: victim.cataloguePath(in: RawPath(folder)), reason: .missingStoredFile(name: victim.fileID))
    ) { try backup.contents(of: victim) }
    for entry in files where entry != victim {
      #expect(try backup.contents(of: entry).count == Int(entry.size))
    }
  }

  @Test(arguments: ["mdinfo", "mdinfo-encrypted", "mdbackup"])
  func missingLegacyDataIsOneErrorAndTheRestRead(_ era: String) throws {
    let scratch = try TemporaryDirectory()
    let folder = try SampleBackups.copy(era, into: scratch)
    let backup = try Backup(folder: RawPath(folder), password: SampleBackups.password(for: era))
    let files = try backup.entries().entries
    let victim = try #require(files.first { $0.relativePath.escaped.hasSuffix(".wav") })
    let stored = victim.fileID + (era.hasPrefix("mdinfo") ? ".mddata" : ".mdbackup")
    try FileManager.default.removeItem(atPath: folder + "/" + stored)
    #expect(
      throws: BackupError(
        path: victim.cataloguePath(in: RawPath(folder)), reason: .missingStoredFile(name: stored))
    ) { try backup.contents(of: victim) }
    for entry in files where entry != victim {
      #expect(try backup.contents(of: entry).count == Int(entry.size))
    }
  }

  @Test func truncatedManifestDatabaseKeepsTheRowsBeforeTheBreak() throws {
    let scratch = try TemporaryDirectory()
    let folder = try SampleBackups.copy("manifest-db", into: scratch)
    let path = folder + "/Manifest.db"
    let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    try bytes.prefix(bytes.count - 4096).write(to: URL(fileURLWithPath: path))
    // The schema page survives, so the backup opens; the scan breaks off at the first lost page.
    let (entries, problems) = try Backup(folder: RawPath(folder), password: nil).entries()
    #expect(entries.count > 0)
    #expect(entries.count < SampleBackups.facts("manifest-db")!.entries.count)
    #expect(problems.count == 1)
    #expect(problems.first?.path == RawPath(path))
    #expect(problems.first?.failure == .badInput)
    #expect(
      problems.first?.description.contains("Manifest.db breaks off after \(entries.count) rows") == true)
  }

  @Test func garbageManifestDatabaseIsACorruptManifest() throws {
    let scratch = try TemporaryDirectory()
    let folder = try SampleBackups.copy("manifest-db", into: scratch)
    try scratch.write("manifest-db/Manifest.db", Array(repeating: 0x41, count: 8192))
    let error = try #require(throws: BackupError.self) { try Backup(folder: RawPath(folder), password: nil) }
    #expect(error.path == RawPath(folder + "/Manifest.db"))
    #expect(error.failure == .badInput)
    #expect(error.description.contains("Manifest.db is not a backup manifest"))
  }

  @Test func truncatedMBDBKeepsTheRecordsBeforeTheCut() throws {
    let scratch = try TemporaryDirectory()
    let folder = try SampleBackups.copy("mbdb", into: scratch)
    let path = folder + "/Manifest.mbdb"
    let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    try bytes.prefix(bytes.count - 10).write(to: URL(fileURLWithPath: path))
    let (entries, problems) = try Backup(folder: RawPath(folder), password: nil).entries()
    let total = SampleBackups.facts("mbdb")!.entries.count
    #expect(entries.count == total - 1)
    #expect(
      problems == [
        BackupError(
          path: RawPath(path),
          reason: .corruptManifest("Manifest.mbdb is truncated after \(total - 1) records"))
      ])
  }

  @Test func plainFileOfTheWrongSizeIsRefusedBeforeReading() throws {
    let scratch = try TemporaryDirectory()
    let folder = try SampleBackups.copy("manifest-db", into: scratch)
    let backup = try SampleBackupsOpen.plain(folder)
    let entry = try #require(try backup.entries().entries.first { $0.relativePath.escaped.hasSuffix(".PNG") })
    let stored = URL(fileURLWithPath: folder + "/" + entry.fileID.prefix(2) + "/" + entry.fileID)
    try (Data(contentsOf: stored) + Data([0])).write(to: stored)
    var delivered = 0
    #expect(
      throws: BackupError(
        path: entry.cataloguePath(in: RawPath(folder)),
        reason: .sizeMismatch(expected: entry.size, actual: entry.size + 1))
    ) { try backup.read(entry) { delivered += $0.count } }
    #expect(delivered == 0)
  }

  // MARK: Records whose numbers would trap

  /// A binary plist whose array holds an object reference of 2^63, which `Int(UInt64)` traps on.
  static let hostilePlist = HostileFiles.plistArrayReference()
  static let hostilePlistReason =
    "corrupt binary plist: reference 9223372036854775808 past the object table"

  @Test func mdbackupThatIsAHostilePlistIsOneProblemAndTheRestRead() throws {
    let scratch = try TemporaryDirectory()
    let folder = try SampleBackups.copy("mdbackup", into: scratch)
    let total = try SampleBackupsOpen.plain(folder).entries().entries
    let victim = try #require(total.first { $0.relativePath.escaped.hasSuffix(".wav") })
    let stored = folder + "/" + victim.fileID + ".mdbackup"
    try Data(Self.hostilePlist).write(to: URL(fileURLWithPath: stored))
    let (entries, problems) = try SampleBackupsOpen.plain(folder).entries()
    #expect(
      problems == [
        BackupError(
          path: RawPath(stored), reason: .corruptManifest("not a property list: \(Self.hostilePlistReason)"))
      ])
    #expect(entries.count == total.count - 1)
    #expect(!entries.contains(victim))
  }

  @Test func manifestRowWhoseFileRecordIsAHostilePlistIsOneProblemAndTheRestRead() throws {
    let scratch = try TemporaryDirectory()
    let folder = try SampleBackups.copy("manifest-db", into: scratch)
    let total = try SampleBackupsOpen.plain(folder).entries().entries
    let victim = try #require(total.first { $0.relativePath.escaped.hasSuffix(".wav") })
    let hex = Self.hostilePlist.map { String(format: "%02X", $0) }.joined()
    try ExternalTool.make([
      "sqlite3", folder + "/Manifest.db",
      "UPDATE Files SET file = X'\(hex)' WHERE fileID = '\(victim.fileID)'",
    ])
    let (entries, problems) = try SampleBackupsOpen.plain(folder).entries()
    #expect(
      problems == [
        BackupError(
          path: victim.cataloguePath(in: RawPath(folder)),
          reason: .corruptManifest("file record is not a property list: \(Self.hostilePlistReason)"))
      ])
    #expect(entries.count == total.count - 1)
  }

  @Test func mbdbRecordWithASizeOf2To63IsOneProblemAndTheRestRead() throws {
    let scratch = try TemporaryDirectory()
    let folder = try SampleBackups.copy("mbdb", into: scratch)
    let total = try SampleBackupsOpen.plain(folder).entries().entries
    // One more record at the end: domain, path, no link, hash or key, a file's mode, inode,
    // uid, gid, three times, a size of 2^63, protection class, no properties.
    func string(_ text: String) -> [UInt8] {
      HostileFiles.bigEndian(UInt64(text.utf8.count), count: 2) + Array(text.utf8)
    }
    var record = string("HomeDomain") + string("Library/huge.bin") + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
    record += HostileFiles.bigEndian(0o100644, count: 2) + HostileFiles.bigEndian(7, count: 8)
    record += [UInt8](repeating: 0, count: 20) + HostileFiles.bigEndian(1 << 63, count: 8) + [0, 0]
    let manifest = URL(fileURLWithPath: folder + "/Manifest.mbdb")
    try (Data(contentsOf: manifest) + Data(record)).write(to: manifest)
    let (entries, problems) = try SampleBackupsOpen.plain(folder).entries()
    #expect(
      problems == [
        BackupError(
          path: RawPath(folder + "/HomeDomain/Library/huge.bin"),
          reason: .corruptManifest("manifest record has a bad size 9223372036854775808"))
      ])
    #expect(entries == total)
  }

  // MARK: Encryption

  @Test(arguments: ["manifest-db-encrypted", "mbdb-encrypted"])
  func wrongPasswordIsDetectedAtKeyUnwrapBeforeAnyFileIsRead(_ era: String) throws {
    let scratch = try TemporaryDirectory()
    let folder = try SampleBackups.copy(era, into: scratch)
    // Replace the manifest and every stored file by garbage: a wrong password must be found
    // from the keybag alone, before any of them is read.
    let manifest = era.hasPrefix("manifest-db") ? "Manifest.db" : "Manifest.mbdb"
    for name in try FileManager.default.contentsOfDirectory(atPath: folder)
    where !name.hasSuffix(".plist") && name != manifest {
      try FileManager.default.removeItem(atPath: folder + "/" + name)
    }
    try scratch.write("\(era)/\(manifest)", Array(repeating: 0x5A, count: 4096))
    let wrong = BackupPassword(bytes: Array("not-the-password".utf8))
    #expect(throws: BackupError(path: RawPath(folder), reason: .wrongPassword)) {
      try Backup(folder: RawPath(folder), password: wrong)
    }
    let error = try #require(throws: BackupError.self) {
      try Backup(folder: RawPath(folder), password: wrong)
    }
    #expect(error.failure == .noPermission)
    #expect(error.description == "\(folder): wrong password for this encrypted backup")
    #expect(throws: BackupError(path: RawPath(folder), reason: .passwordRequired)) {
      try Backup(folder: RawPath(folder), password: nil)
    }
    // The right password gets past the keybag and only then meets the damaged manifest.
    let right = try #require(throws: BackupError.self) {
      try Backup(folder: RawPath(folder), password: BackupPassword(bytes: Array(SampleBackups.password.utf8)))
    }
    #expect(right.reason != .wrongPassword)
    #expect(right.failure == .badInput)
  }

  /// iPhone OS 3 backups (iTunes 8.2 to 9) have no keybag: the password is checked against the
  /// SHA-1 in Manifest.plist's AuthData, before any mdinfo or mddata is read.
  @Test func wrongPasswordOfAnMdinfoBackupIsFoundFromAuthDataAlone() throws {
    let scratch = try TemporaryDirectory()
    let folder = try SampleBackups.copy("mdinfo-encrypted", into: scratch)
    let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter {
      $0.hasSuffix(".mdinfo") || $0.hasSuffix(".mddata")
    }
    #expect(names.count == 10)
    for name in names { try scratch.write("mdinfo-encrypted/\(name)", Array(repeating: 0x5A, count: 4096)) }
    let wrong = BackupPassword(bytes: Array("not-the-password".utf8))
    let error = try #require(throws: BackupError.self) {
      try Backup(folder: RawPath(folder), password: wrong)
    }
    #expect(error == BackupError(path: RawPath(folder), reason: .wrongPassword))
    #expect(error.failure == .noPermission)
    #expect(throws: BackupError(path: RawPath(folder), reason: .passwordRequired)) {
      try Backup(folder: RawPath(folder), password: nil)
    }
    // The right password opens it; each damaged mdinfo is then one problem.
    let backup = try Backup(
      folder: RawPath(folder), password: SampleBackups.password(for: "mdinfo-encrypted"))
    let (entries, problems) = try backup.entries()
    #expect(entries.isEmpty)
    #expect(problems.count == 5)
    #expect(problems.allSatisfy { $0.failure == .badInput })
  }

  @Test func encryptedMdinfoWithoutAuthDataIsACorruptKeybag() throws {
    let scratch = try TemporaryDirectory()
    let folder = try SampleBackups.copy("mdinfo-encrypted", into: scratch)
    try scratch.write(
      "mdinfo-encrypted/Manifest.plist",
      Array(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>IsEncrypted</key><true/></dict></plist>
        """.utf8))
    let error = try #require(throws: BackupError.self) {
      try Backup(folder: RawPath(folder), password: SampleBackups.password(for: "mdinfo-encrypted"))
    }
    #expect(
      error.description == "\(folder): corrupt keybag in Manifest.plist: Manifest.plist has no AuthData")
  }

  @Test func absurdIterationCountIsRefusedWithoutDerivingAKey() throws {
    let scratch = try TemporaryDirectory()
    let folder = try SampleBackups.generate(
      "manifest-db-encrypted", hostile: "absurd-iterations", into: scratch)
    let password = BackupPassword(bytes: Array(SampleBackups.password.utf8))
    #expect(
      throws: BackupError(
        path: RawPath(folder), reason: .absurdIterationCount(field: "ITER", count: 4_000_000_000))
    ) { try Backup(folder: RawPath(folder), password: password) }
    let error = try #require(throws: BackupError.self) {
      try Backup(folder: RawPath(folder), password: password)
    }
    #expect(error.failure == .badInput)
    #expect(
      error.description
        == "\(folder): keybag asks for 4000000000 ITER key-derivation rounds, outside the accepted 1 to 20000000"
    )
  }

  @Test func ciphertextNotAMultipleOf16IsRefused() throws {
    let scratch = try TemporaryDirectory()
    let folder = try SampleBackups.copy("manifest-db-encrypted", into: scratch)
    let backup = try SampleBackupsOpen.encrypted(folder)
    let entry = try #require(try backup.entries().entries.first { $0.relativePath.escaped.hasSuffix(".PNG") })
    let stored = URL(fileURLWithPath: folder + "/" + entry.fileID.prefix(2) + "/" + entry.fileID)
    let original = try Data(contentsOf: stored)
    try (original + Data([0x01])).write(to: stored)
    #expect(
      throws: BackupError(
        path: entry.cataloguePath(in: RawPath(folder)),
        reason: .badCiphertext(
          "encrypted content is \(original.count + 1) bytes, not a positive multiple of 16"))
    ) { try backup.contents(of: entry) }
  }

  @Test(arguments: ["manifest-db-encrypted", "mbdb-encrypted", "mdinfo-encrypted"])
  func badPaddingIsRefused(_ era: String) throws {
    let scratch = try TemporaryDirectory()
    let folder = try SampleBackups.copy(era, into: scratch)
    let backup = try Backup(folder: RawPath(folder), password: SampleBackups.password(for: era))
    let entry = try #require(try backup.entries().entries.first { $0.relativePath.escaped.hasSuffix(".txt") })
    let stored: URL
    switch era {
    case "manifest-db-encrypted":
      stored = URL(fileURLWithPath: "\(folder)/\(entry.fileID.prefix(2))/\(entry.fileID)")
    case "mbdb-encrypted": stored = URL(fileURLWithPath: "\(folder)/\(entry.fileID)")
    default: stored = URL(fileURLWithPath: "\(folder)/\(entry.fileID).mddata")
    }
    var bytes = Array(try Data(contentsOf: stored))
    // In CBC, flipping the last byte of the second-to-last block flips the last plaintext byte:
    // a padding length of 1…16 becomes 129…144, which no padding can be.
    bytes[bytes.count - 17] ^= 0x80
    try Data(bytes).write(to: stored)
    #expect(
      throws: BackupError(
        path: entry.cataloguePath(in: RawPath(folder)),
        reason: .badCiphertext("bad padding after decryption (damaged file or key)"))
    ) { try backup.contents(of: entry) }
  }

  // MARK: Unfinished backups and read-only access

  @Test func unfinishedBackupIsTheFirstProblemAndTheRestRead() throws {
    let scratch = try TemporaryDirectory()
    let folder = try SampleBackups.copy("manifest-db", into: scratch)
    try scratch.write(
      "manifest-db/Status.plist",
      Array(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict>
        <key>BackupState</key><string>new</string>
        <key>SnapshotState</key><string>uploading</string>
        <key>IsFullBackup</key><false/>
        </dict></plist>
        """.utf8))
    let backup = try SampleBackupsOpen.plain(folder)
    #expect(backup.info.isFinished == false)
    let (entries, problems) = try backup.entries()
    #expect(problems == [BackupError(path: RawPath(folder), reason: .unfinished)])
    #expect(
      problems.first?.description
        == "\(folder): backup is unfinished (Status.plist says it is still being written)")
    #expect(entries.count == SampleBackups.facts("manifest-db")!.entries.count)
  }

  @Test(arguments: SampleBackups.eras)
  func readingWritesNothingInTheBackup(_ era: String) throws {
    let scratch = try TemporaryDirectory()
    let folder = try SampleBackups.copy(era, into: scratch)
    let before = try snapshot(folder)
    do {
      let backup = try Backup(folder: RawPath(folder), password: SampleBackups.password(for: era))
      for entry in try backup.entries().entries where entry.type == .file {
        _ = try backup.contents(of: entry)
      }
    }
    #expect(try snapshot(folder) == before)
  }

  /// Every file under `folder` with its bytes and modification time.
  private func snapshot(_ folder: String) throws -> [String: String] {
    var result: [String: String] = [:]
    let enumerator = try #require(FileManager.default.enumerator(atPath: folder))
    while let relative = enumerator.nextObject() as? String {
      let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/" + relative)
      let data = (try? Data(contentsOf: URL(fileURLWithPath: folder + "/" + relative))) ?? Data()
      result[relative] = "\(attributes[.modificationDate] ?? "") \(data.base64EncodedString())"
    }
    return result
  }
}

/// Opening copies of the sample backups.
enum SampleBackupsOpen {
  static func plain(_ folder: String) throws -> Backup { try Backup(folder: RawPath(folder), password: nil) }

  static func encrypted(_ folder: String) throws -> Backup {
    try Backup(folder: RawPath(folder), password: BackupPassword(bytes: Array(SampleBackups.password.utf8)))
  }
}
