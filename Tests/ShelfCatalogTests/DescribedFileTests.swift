import Glibc
import ShelfCore
import ShelfTestSupport
import Testing

@testable import ShelfCatalog

/// What `info` and `show` describe for a file operand (`CatalogEntry.describing(file:)`): the
/// catalogue's entry while the file is unchanged, else its facts read live.
@Suite struct DescribedFileTests {
  @Test func aCataloguedFileIsDescribedFromTheCatalogueWhileUnchanged() async throws {
    let scratch = try TemporaryDirectory()
    let note = try scratch.write("media/note.txt", Array("hello\n".utf8))
    let store = try CatalogStore.openForWriting(at: scratch.raw("catalog.sqlite"), shelfVersion: "1.0")
    var options = IndexOptions()
    options.recentWindow = 0
    var run = IndexRun(store: store, options: options, shelfVersion: "1.0")
    try await run.run([scratch.raw("media")], progress: { _ in }) { _ in }

    let (entry, catalogued) = try CatalogEntry.describing(
      file: RawPath(note), store: run.store, temporaryFolder: scratch.rawPath)
    #expect(catalogued)
    #expect(entry.path == RawPath(note) && entry.kind == .text && entry.size == 6)
    #expect(entry.root == (try TreeWalker.realPath(scratch.raw("media"))))

    // Changed since: read live, named by the path given, in no root.
    try scratch.write("media/note.txt", Array("hello, world\n".utf8))
    let (live, liveCatalogued) = try CatalogEntry.describing(
      file: RawPath(note), store: run.store, temporaryFolder: scratch.rawPath)
    #expect(!liveCatalogued)
    #expect(live.path == RawPath(note) && live.kind == .text && live.size == 13 && live.root == nil)
  }

  @Test func aFileOutsideTheCatalogueIsReadLive() throws {
    let scratch = try TemporaryDirectory()
    let note = try scratch.write("note.txt", Array("a\nb\n".utf8))
    let (entry, catalogued) = try CatalogEntry.describing(
      file: RawPath(note), store: nil, temporaryFolder: scratch.rawPath)
    #expect(!catalogued)
    #expect(entry.path == RawPath(note) && entry.kind == .text && entry.size == 4 && entry.area == .other)
  }

  @Test func anEmptyFileIsRefused() throws {
    let scratch = try TemporaryDirectory()
    let empty = try scratch.write("empty.txt", [])
    #expect(throws: FileError(path: RawPath(empty), reason: "file is empty", failure: .badInput)) {
      try CatalogEntry.describing(file: RawPath(empty), store: nil, temporaryFolder: scratch.rawPath)
    }
    let missing = scratch.raw("none.txt")
    #expect(throws: FileError(path: missing, errno: ENOENT)) {
      try CatalogEntry.describing(file: missing, store: nil, temporaryFolder: scratch.rawPath)
    }
  }
}
