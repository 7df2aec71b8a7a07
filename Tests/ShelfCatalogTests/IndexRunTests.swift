import ShelfCore
import ShelfDatabase
import ShelfTestSupport
import Testing

@testable import ShelfCatalog

/// What an index run reported, in order, as short words to compare.
private func describe(_ event: IndexRun.Event) -> String {
  switch event {
  case .scanned(let summary): "scanned \(summary.root.lastComponent.escaped) \(summary.added) new"
  case .failed(let root, _): "failed \(root.lastComponent.escaped)"
  case .rebuilt(let store): "rebuilt \(store.movedAsideCorruptFile?.lastComponent.escaped ?? "-")"
  }
}

/// Runs `roots` and returns what was reported.
private func run(_ run: inout IndexRun, _ roots: [String]) async throws -> [String] {
  var events: [String] = []
  try await run.run(roots.map { RawPath($0) }, progress: { _ in }) { events.append(describe($0)) }
  return events
}

@Suite struct IndexRunTests {
  @Test func eachFolderIsScannedOnceARun() async throws {
    let scratch = try TemporaryDirectory()
    try scratch.write("media/a.txt", Array("a\n".utf8))
    try scratch.write("other/b.txt", Array("b\n".utf8))
    let store = try CatalogStore.openForWriting(
      at: RawPath(scratch.path + "/catalog.sqlite"), shelfVersion: "1.0")
    var options = IndexOptions()
    options.recentWindow = 0
    var indexRun = IndexRun(store: store, options: options, shelfVersion: "1.0")
    let media = scratch.path + "/media"
    let events = try await run(&indexRun, [media, scratch.path + "/other", media, scratch.path + "/none"])
    #expect(events == ["scanned media 1 new", "scanned other 1 new", "failed none"])
  }

  /// A catalogue damaged under a writer (every page after the header overwritten, as a disk
  /// fault would) is moved aside and rebuilt, and the roots named are scanned again into the
  /// fresh one (the damaged file no longer says which roots it knew).
  @Test func aCatalogueDamagedPartWayIsRebuiltAndTheRootsRescanned() async throws {
    let scratch = try TemporaryDirectory()
    try scratch.write("media/a.txt", Array("a\n".utf8))
    try scratch.write("media/b.txt", Array("b\n".utf8))
    try scratch.write("other/c.txt", Array("c\n".utf8))
    let path = RawPath(scratch.path + "/catalog.sqlite")
    var options = IndexOptions()
    options.recentWindow = 0
    var indexRun = IndexRun(
      store: try CatalogStore.openForWriting(at: path, shelfVersion: "1.0"), options: options,
      shelfVersion: "1.0")
    let media = scratch.path + "/media"
    #expect(
      try await run(&indexRun, [media, scratch.path + "/other"]) == [
        "scanned media 2 new", "scanned other 1 new",
      ])

    // Everything into the main file, then damage it under the open writer.
    try SQLiteConnection(path: path, create: false, functions: []).execute("PRAGMA wal_checkpoint(TRUNCATE)")
    var bytes = try RegularFile(path: path).readAll(limit: 1 << 30)
    let damaged = Array(bytes[..<100]) + [UInt8](repeating: 0xEE, count: bytes.count - 100)
    bytes = damaged
    try scratch.write("catalog.sqlite", bytes)

    let events = try await run(&indexRun, [media])
    #expect(events == ["rebuilt catalog.sqlite.corrupt", "scanned media 2 new"])
    #expect(indexRun.store.movedAsideCorruptFile == RawPath(scratch.path + "/catalog.sqlite.corrupt"))
    #expect(
      try RegularFile(path: RawPath(scratch.path + "/catalog.sqlite.corrupt")).readAll(limit: 1 << 30)
        == damaged)
    #expect(try indexRun.store.roots().map(\.path.lastComponent.escaped) == ["media"])
  }
}
