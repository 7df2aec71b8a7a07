import Foundation
import ShelfCore
import ShelfTestSupport
import Testing

@testable import ShelfCatalog

/// Which folders a `shelf index` run scans (`IndexRoots.choose`): those named, else every
/// catalogued root once, with the roots whose folder is gone skipped or, when pruning, forgotten.
@Suite struct IndexRootsTests {
  static let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// A catalogue holding the roots `media` (with a backup found in it, a root of its own) and
  /// `old`, whose folder is then removed.
  func catalogue(in scratch: TemporaryDirectory) async throws -> CatalogStore {
    try scratch.write("media/a.txt", Array("a\n".utf8))
    try scratch.write("old/b.txt", Array("b\n".utf8))
    try FileManager.default.copyItem(
      atPath: Self.repositoryRoot.appendingPathComponent("SampleMedia/Backups/manifest-db").path,
      toPath: scratch.file("media/phone"))
    let store = try CatalogStore.openForWriting(at: scratch.raw("catalog.sqlite"), shelfVersion: "1.0")
    var options = IndexOptions()
    options.recentWindow = 0
    var run = IndexRun(store: store, options: options, shelfVersion: "1.0")
    try await run.run([scratch.raw("media"), scratch.raw("old")], progress: { _ in }) { _ in }
    try FileManager.default.removeItem(atPath: scratch.file("old"))
    return run.store
  }

  @Test func everyRootIsScannedOnceAndAGoneOneSkipped() async throws {
    let scratch = try TemporaryDirectory()
    let store = try await catalogue(in: scratch)
    var forgotten: [RawPath] = []
    let roots = try IndexRoots.choose(named: [], prune: false, in: store) { forgotten.append($0.root.path) }
    let media = try TreeWalker.realPath(scratch.raw("media"))
    // The backup in media is scanned with it, not named again.
    #expect(roots.scan == [media])
    #expect(roots.skippedGone.map(\.path) == [try TreeWalker.realPath(scratch.rawPath).appending("old")])
    #expect(forgotten.isEmpty)
    #expect(try store.localRoots().count == 3)
  }

  @Test func pruningForgetsTheGoneRoots() async throws {
    let scratch = try TemporaryDirectory()
    let store = try await catalogue(in: scratch)
    let old = try TreeWalker.realPath(scratch.rawPath).appending("old")
    var forgotten: [String] = []
    let roots = try IndexRoots.choose(named: [], prune: true, in: store) {
      forgotten.append("\($0.root.path.lastComponent.escaped) \($0.entries)")
    }
    #expect(roots.scan == [try TreeWalker.realPath(scratch.raw("media"))])
    #expect(roots.skippedGone.isEmpty)
    #expect(forgotten == ["old 1"])
    #expect(try store.root(at: old) == nil)
  }

  /// Named folders are scanned as named; with pruning, a named root that is gone is forgotten
  /// and not scanned.
  @Test func namedFoldersAreScannedAsNamed() async throws {
    let scratch = try TemporaryDirectory()
    let store = try await catalogue(in: scratch)
    let old = try TreeWalker.realPath(scratch.rawPath).appending("old")
    let named = [scratch.raw("media"), old, scratch.raw("new")]
    var forgotten: [RawPath] = []
    let kept = try IndexRoots.choose(named: named, prune: false, in: store) { forgotten.append($0.root.path) }
    #expect(kept == IndexRoots(scan: named, skippedGone: []))
    let pruned = try IndexRoots.choose(named: named, prune: true, in: store) {
      forgotten.append($0.root.path)
    }
    #expect(pruned.scan == [scratch.raw("media"), scratch.raw("new")])
    #expect(forgotten == [old])
  }

  @Test func aCatalogueWithoutRootsHasNothingToRescan() throws {
    let scratch = try TemporaryDirectory()
    let store = try CatalogStore.openForWriting(at: scratch.raw("catalog.sqlite"), shelfVersion: "1.0")
    #expect(throws: IndexRoots.Failure.noRoots) {
      try IndexRoots.choose(named: [], prune: false, in: store) { _ in }
    }
  }
}
