import Foundation
import ShelfBackup
import ShelfCore
import ShelfTestSupport
import Testing

@testable import ShelfCatalog

/// How `index` reads an iPhone backup's files for their facts: a plain stored file in place (no
/// copy), an encrypted one decrypted into a private file in memory up to a bound and in the
/// temporary folder above it.
@Suite struct BackupIndexingTests {
  static let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  static let password = BackupPassword(bytes: Array("shelf-test-password".utf8))

  /// A copy of a committed sample backup in `scratch`.
  func copy(_ era: String, into scratch: TemporaryDirectory) throws -> String {
    let destination = scratch.file(era)
    try FileManager.default.copyItem(
      atPath: Self.repositoryRoot.appendingPathComponent("SampleMedia/Backups/" + era).path,
      toPath: destination)
    return destination
  }

  @Test func plainStoredFilesAreReadInPlace() throws {
    let scratch = try TemporaryDirectory()
    let folder = try copy("manifest-db", into: scratch)
    let backup = try Backup(folder: RawPath(folder), password: nil)
    // A spool folder that cannot be written: a file copied there would fail.
    let nowhere = Indexer.SpoolFolders(
      memory: scratch.raw("missing"), disk: scratch.raw("missing"), memoryLimit: 0)
    let files = try backup.entries().entries.filter { $0.type == .file }
    #expect(files.count == 5)
    for entry in files {
      let stored = folder + "/" + entry.fileID.prefix(2) + "/" + entry.fileID
      let extraction = try Indexer.extractBackupFile(entry, from: backup, spoolFolders: nowhere).get()
      #expect(
        extraction.status.inode == (try FileStatus.lstat(RawPath(stored))).inode, "\(entry.relativePath)")
      if entry.relativePath.lowercasedExtension == "png" { #expect(extraction.image?.width == 64) }
    }
  }

  @Test func encryptedFilesAreDecryptedInMemoryUpToTheBound() throws {
    let scratch = try TemporaryDirectory()
    let folder = try copy("manifest-db-encrypted", into: scratch)
    let backup = try Backup(folder: RawPath(folder), password: Self.password)
    let files = try backup.entries().entries.filter { $0.type == .file }
    // Memory is a folder of the test's; the temporary folder does not exist, so a file spooled
    // there fails with the reason that says so.
    try scratch.makeDirectory("memory")
    let spoolFolders = Indexer.SpoolFolders(
      memory: scratch.raw("memory"), disk: scratch.raw("missing"), memoryLimit: 4096)
    var failed: [String] = []
    for entry in files {
      switch Indexer.extractBackupFile(entry, from: backup, spoolFolders: spoolFolders) {
      case .success(let extraction):
        #expect(entry.size <= 4096)
        #expect(extraction.status.size == entry.size, "decrypted: \(entry.relativePath)")
        if entry.relativePath.lowercasedExtension == "png" { #expect(extraction.image?.width == 64) }
      case .failure(let failure):
        #expect(failure.reason.contains("cannot create a temporary file"), "\(failure.reason)")
        failed.append(entry.relativePath.lastComponent.escaped)
      }
    }
    // The WAV (88,372 bytes) and the Ogg (9,712) are above the bound; the rest is below it.
    #expect(failed.sorted() == ["1.ogg", "20240501 093000.wav"])
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: scratch.file("memory")).isEmpty, "nothing left")
  }
}
