import Foundation
import ShelfBackup
import ShelfCore
import ShelfTestSupport
import Testing

/// Every era's reader against the facts the generator recorded: device facts, every entry by
/// its real name, and every file's content byte for byte (decrypted for encrypted backups).
@Suite struct BackupReaderTests {
  @Test func fixtureDescribesEveryEra() {
    #expect(SampleBackups.eras.allSatisfy { SampleBackups.facts($0) != nil })
  }

  @Test(arguments: SampleBackups.eras)
  func readsInfoOfEachEra(_ era: String) throws {
    let facts = try #require(SampleBackups.facts(era))
    let backup = try SampleBackups.open(era)
    #expect(backup.info.format.rawValue == facts.format)
    #expect(backup.isEncrypted == facts.encrypted)
    #expect(backup.info.deviceName == facts.deviceName)
    #expect(backup.info.productType == facts.productType)
    #expect(backup.info.iosVersion == facts.iosVersion)
    #expect(backup.info.date == facts.date)
    #expect(backup.info.isFinished == facts.finished)
    #expect(backup.info.apps == facts.apps)
  }

  @Test(arguments: SampleBackups.eras)
  func listsEveryEntryByRealName(_ era: String) throws {
    let facts = try #require(SampleBackups.facts(era))
    let (entries, problems) = try SampleBackups.open(era).entries()
    #expect(problems.isEmpty, "\(problems)")
    #expect(entries.count == facts.entries.count)
    let byID = Dictionary(entries.map { ($0.fileID, $0) }, uniquingKeysWith: { first, _ in first })
    for expected in facts.entries {
      let entry = try #require(byID[expected.fileID], "\(expected.domain)/\(expected.path)")
      #expect(entry.domain == expected.domain)
      #expect(entry.relativePath == RawPath(expected.path))
      #expect(entry.type.rawValue == expected.type)
      #expect(entry.size == Int64(expected.size))
      #expect(entry.linkTarget == expected.target.map(RawPath.init))
      if expected.type == "file" { #expect(entry.protectionClass == expected.protectionClass) }
      #expect(entry.app == (expected.domain.hasPrefix("AppDomain-") ? "com.example.notes" : nil))
    }
  }

  @Test(arguments: SampleBackups.eras)
  func recoversEveryFileByteForByte(_ era: String) throws {
    let facts = try #require(SampleBackups.facts(era))
    let backup = try SampleBackups.open(era)
    let (entries, _) = try backup.entries()
    let files = entries.filter { $0.type == .file }
    #expect(files.count == 5)
    for entry in files {
      let expected = try #require(facts.entries.first { $0.fileID == entry.fileID })
      let original = try SampleBackups.sample(try #require(expected.source))
      #expect(try backup.contents(of: entry) == original, "\(entry.domain)/\(entry.relativePath)")
      var streamed: [UInt8] = []
      var chunks = 0
      try backup.read(entry) { chunk in
        streamed += chunk
        chunks += 1
      }
      #expect(streamed == original)
      #expect(chunks >= 1)
    }
  }

  /// `shelf extract` opens each entry once (`Backup.open`) for its size and then its bytes; a
  /// file smaller than a chunk reaches the sink in one piece (one write), its padding and size
  /// checked first, where the last decrypted block used to come as a second piece.
  @Test(arguments: SampleBackups.eras)
  func opensAFileOnceAndHandsASmallOneOverWhole(_ era: String) throws {
    let facts = try #require(SampleBackups.facts(era))
    let backup = try SampleBackups.open(era)
    let files = try backup.entries().entries.filter { $0.type == .file }
    #expect(files.count == 5)
    for entry in files {
      let expected = try #require(facts.entries.first { $0.fileID == entry.fileID })
      let original = try SampleBackups.sample(try #require(expected.source))
      let content = try backup.open(entry)
      let sizeKnownBeforeReading = era != "mdbackup" && era != "mdinfo-encrypted"
      #expect(content.size == (sizeKnownBeforeReading ? Int64(original.count) : nil))
      #expect((content.plainFile != nil) == (!facts.encrypted && era != "mdbackup"))
      var pieces: [[UInt8]] = []
      try content.read { pieces.append(Array($0)) }
      #expect(pieces.count <= 1, "\(entry.relativePath): \(pieces.map(\.count))")
      #expect(pieces.joined().elementsEqual(original))
    }
  }

  @Test(arguments: SampleBackups.eras)
  func streamsALargeFileInChunks(_ era: String) throws {
    let scratch = try TemporaryDirectory()
    let copy = scratch.file("IMG_0002.MOV")
    let folder = try SampleBackups.generate(era, hostile: nil, largeCopy: copy, into: scratch)
    let expected = Array(try Data(contentsOf: URL(fileURLWithPath: copy)))
    #expect(expected.count == 2_621_447)
    let backup = try Backup(folder: RawPath(folder), password: SampleBackups.password(for: era))
    let video = try #require(
      try backup.entries().entries.first { $0.relativePath == RawPath("Media/DCIM/100APPLE/IMG_0002.MOV") })
    #expect(video.size == Int64(expected.count))
    var streamed: [UInt8] = []
    var chunks = 0
    try backup.read(video) { chunk in
      streamed += chunk
      chunks += 1
    }
    #expect(streamed == expected)
    // The reader's chunks are 1 MiB (mdbackup holds the data in its plist, read whole).
    #expect(chunks >= (era == "mdbackup" ? 1 : 3))
    #expect(try backup.contents(of: video) == expected)
  }

  @Test func cataloguePathIsBackupDomainAndRelativePath() throws {
    let entry = BackupEntry(
      domain: "CameraRollDomain", relativePath: RawPath("Media/DCIM/100APPLE/IMG_0001.HEIC"),
      fileID: String(repeating: "a", count: 40), type: .file, size: 1, mode: 0o100644, modified: 0)
    #expect(
      entry.cataloguePath(in: RawPath("/b/00008110"))
        == RawPath("/b/00008110/CameraRollDomain/Media/DCIM/100APPLE/IMG_0001.HEIC"))
    #expect(BackupEntry.app(ofDomain: "AppDomain-com.example.notes") == "com.example.notes")
    #expect(
      BackupEntry.app(ofDomain: "AppDomainPlugin-com.example.notes.widget") == "com.example.notes.widget")
    // A shared app-group container belongs to the app its group names (WhatsApp's media).
    #expect(
      BackupEntry.app(ofDomain: "AppDomainGroup-group.com.apple.VoiceMemos.shared") == "com.apple.VoiceMemos")
    #expect(
      BackupEntry.app(ofDomain: "AppDomainGroup-group.net.whatsapp.WhatsApp.shared")
        == "net.whatsapp.WhatsApp")
    #expect(
      BackupEntry.app(ofDomain: "AppDomainGroup-group.net.whatsapp.WhatsAppSMB.shared")
        == "net.whatsapp.WhatsAppSMB")
    #expect(BackupEntry.app(ofDomain: "AppDomainGroup-group.com.apple.notes") == "com.apple.notes")
    #expect(BackupEntry.app(ofDomain: "AppDomainGroup-group.") == nil)
    #expect(BackupEntry.app(ofDomain: "HomeDomain") == nil)
  }

  @Test func recognisesABackupOfEveryEraByItsNames() throws {
    let folder = RawPath(SampleBackups.repositoryRoot.appendingPathComponent("SampleMedia/Backups").path)
    for era in SampleBackups.eras { #expect(Backup.isBackup(folder.appending(RawPath(era))), "\(era)") }
    #expect(!Backup.isBackup(folder))
    func names(_ list: String...) -> [[UInt8]] { list.map { Array($0.utf8) } }
    #expect(Backup.recognise(fileNames: names("Info.plist", "Manifest.db")) == .backup(.manifestDB))
    #expect(Backup.recognise(fileNames: names("Info.plist", "Manifest.mbdb")) == .backup(.mbdb))
    #expect(Backup.recognise(fileNames: names("a.mdbackup", "b.mdinfo", "Info.plist")) == .backup(.mdinfo))
    #expect(Backup.recognise(fileNames: names("Info.plist", "x.mdbackup")) == .backup(.mdbackup))
    #expect(
      Backup.recognise(fileNames: names("Manifest.db")) == .lookalike("holds Manifest.db but no Info.plist"))
    #expect(
      Backup.recognise(fileNames: names("Info.plist", "Status.plist"))
        == .lookalike("holds Info.plist but no manifest (an unfinished backup?)"))
    // An app bundle's Info.plist makes no backup, and no look-alike either.
    #expect(Backup.recognise(fileNames: names("Info.plist", "Demo", "PkgInfo")) == .none)
    #expect(Backup.recognise(fileNames: names(".mdinfo", "Info.plist")) == .none)
    #expect(Backup.isBackup(RawPath(SampleBackups.folder("mdinfo"))))
    #expect(
      !Backup.isBackup(RawPath(SampleBackups.repositoryRoot.appendingPathComponent("SampleMedia").path)))
  }

  @Test func notABackupIsATypedError() throws {
    let folder = RawPath(SampleBackups.repositoryRoot.appendingPathComponent("SampleMedia/Documents").path)
    #expect(throws: BackupError(path: folder, reason: .notABackup)) {
      try Backup(folder: folder, password: nil)
    }
  }

  @Test func passwordNeverPrints() {
    let password = BackupPassword(bytes: Array("hunter2".utf8))
    #expect(String(describing: password) == "<password>")
    #expect(String(reflecting: password) == "<password>")
    #expect("\(password)" == "<password>")
  }
}
