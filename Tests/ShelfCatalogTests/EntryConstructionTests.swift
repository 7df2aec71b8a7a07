import Foundation
import ShelfBackup
import ShelfCore
import ShelfFacts
import ShelfTestSupport
import ShelfWorkers
import Testing

@testable import ShelfCatalog

/// The entries `info` shows of files it reads live and of backup files, built as the indexer
/// builds them.
@Suite struct EntryConstructionTests {
  /// A sandbox root with one document and one file outside every root.
  func sandbox(_ scratch: TemporaryDirectory) throws -> (root: CatalogRoot, inside: RawPath, outside: RawPath)
  {
    for folder in ["app/Documents", "app/Library", "app/tmp", "elsewhere"] {
      try scratch.makeDirectory(folder)
    }
    try scratch.write("app/Documents/note.txt", Array("hello\n".utf8))
    try scratch.write("elsewhere/note.txt", Array("hello\n".utf8))
    let root = CatalogRoot(id: 1, path: scratch.raw("app"), isSandbox: true)
    return (root, scratch.raw("app/Documents/note.txt"), scratch.raw("elsewhere/note.txt"))
  }

  @Test func liveEntriesFollowTheSandboxLayoutOfTheRootHoldingThem() throws {
    let scratch = try TemporaryDirectory()
    let (root, inside, outside) = try sandbox(scratch)
    let nested = CatalogRoot(id: 2, path: scratch.raw("app/Documents"), isSandbox: false)
    #expect(CatalogRoot.innermost(holding: inside, in: [root, nested])?.root == nested)
    #expect(CatalogRoot.innermost(holding: inside, in: [root])?.relative == Array("Documents/note.txt".utf8))
    #expect(CatalogRoot.innermost(holding: outside, in: [root]) == nil)
    for (path, area) in [(inside, "documents"), (outside, "other")] {
      let file = try RegularFile(path: path)
      let read = try ReadFacts(file, fileExtension: "txt")
      let entry = CatalogEntry(live: path, resolved: path, read: read, roots: [root])
      #expect(entry.area.rawValue == area)
      #expect(entry.root == nil)
      #expect(entry.kind == .text && entry.text?.lines == 1)
      #expect(entry.size == 6 && entry.inode == file.status.inode)
      #expect(entry.mtimeNanoseconds == file.status.mtimeNanoseconds)
    }
  }

  @Test func backupFilesHaveTheirManifestsSizeAndTimeAndAKindGuessedWhenUnreadable() throws {
    let file = BackupEntry(
      domain: "CameraRollDomain", relativePath: RawPath("Media/DCIM/100APPLE/IMG_0001.JPG"), fileID: "ab12",
      type: .file, size: 4096, mode: 0o100644, modified: 1_000_000_000, protectionClass: 3)
    let path = RawPath("/b/CameraRollDomain/Media/DCIM/100APPLE/IMG_0001.JPG")
    var facts = FileFacts(kind: .image, mime: "image/jpeg", detectedBy: .content, extensionMismatch: false)
    facts.image = ImageFacts(format: "jpeg", width: 4, height: 3)
    let read = CatalogEntry(backupFile: file, path: path, root: RawPath("/b"), facts: .success(facts))
    #expect(read.facts == facts)
    #expect(read.area == .cameraRoll && read.root == RawPath("/b"))
    #expect(read.size == 4096 && read.mtimeNanoseconds == 1_000_000_000 && read.inode == 0)
    #expect(
      read.backup
        == BackupFacts(
          domain: "CameraRollDomain", app: nil, fileID: "ab12", protectionClass: 3, mode: 0o100644))
    let error = FileFactsError(reason: "stored file missing", failure: .missingInput)
    let unreadable = CatalogEntry(backupFile: file, path: path, root: nil, facts: .failure(error))
    #expect(
      unreadable.kind == .image && unreadable.mime == "image/jpeg" && unreadable.detectedBy == .extension)
    #expect(unreadable.error == error && unreadable.image == nil)
    #expect(unreadable.backup == read.backup && unreadable.size == 4096)
  }

  @Test func aBackupFileIsDescribedFromItsContentWhenTheCatalogueLacksIt() throws {
    let scratch = try TemporaryDirectory()
    let folder = scratch.file("manifest-db")
    try FileManager.default.copyItem(
      atPath: BackupIndexingTests.repositoryRoot.appendingPathComponent("SampleMedia/Backups/manifest-db")
        .path,
      toPath: folder)
    let resolved = try TreeWalker.realPath(RawPath(folder))
    let backup = try Backup(folder: resolved, password: nil)
    let png = try #require(
      try backup.entries().entries.first { $0.type == .file && $0.relativePath.lowercasedExtension == "png" })
    let path = png.cataloguePath(in: resolved)
    let resolver = BackupEntryResolver(password: { _, _ in nil })
    let (entry, catalogued) = try #require(
      try resolver.entry(describing: path, store: nil, temporaryFolder: scratch.rawPath))
    #expect(!catalogued)
    #expect(entry.path == path && entry.root == nil)
    #expect(entry.kind == .image && entry.image?.width == 64)
    #expect(entry.size == png.size && entry.mtimeNanoseconds == png.modified)
    #expect(entry.backup?.fileID == png.fileID && entry.backup?.domain == png.domain)
    #expect(
      try resolver.entry(
        describing: scratch.raw("no-backup/file.png"), store: nil, temporaryFolder: scratch.rawPath) == nil)
  }
}
