import Foundation
import ShelfAudio
import ShelfCore
import ShelfDatabase
import ShelfTestSupport
import Testing

@testable import ShelfCatalog

/// Measured gains in the catalogue: kept by file identity, read with the entry and by path for
/// the player, dropped when the file changes; the schema 14 → 15 migration.
@Suite struct ReplayGainCatalogTests {
  static let music = "/usr/share/games/xmoto/Textures/Musics"

  /// A folder of two real tracks, catalogued.
  static func catalogued() async throws -> (TemporaryDirectory, CatalogStore) {
    let scratch = try TemporaryDirectory()
    try FileManager.default.createDirectory(atPath: scratch.file("m"), withIntermediateDirectories: true)
    for name in ["menu.ogg", "foxrun.ogg"] {
      try FileManager.default.copyItem(atPath: music + "/" + name, toPath: scratch.file("m/" + name))
    }
    let store = try CatalogStore.openForWriting(at: scratch.raw("catalog.sqlite"), shelfVersion: "1.0")
    var options = IndexOptions()
    options.recentWindow = 0
    _ = try await Indexer(store: store, options: options).index(root: scratch.raw("m"))
    return (scratch, store)
  }

  @Test(.enabled(if: FileManager.default.fileExists(atPath: music + "/menu.ogg")))
  func measuredGainsAreKeptForTheFileAsItIs() async throws {
    let scratch: TemporaryDirectory
    let paths: [RawPath]
    let inputs: [GainInput]
    do {
      // The indexer's writer is closed (its lock released) before gain takes the lock.
      let (folder, store) = try await Self.catalogued()
      scratch = folder
      paths = [scratch.raw("m/menu.ogg"), scratch.raw("m/foxrun.ogg")]
      inputs = try paths.map { GainInput(path: $0, entry: try store.entry(path: $0)) }
    }
    #expect(inputs.allSatisfy { $0.entry != nil })
    let report = await ReplayGainScan.measure(inputs, width: 2)
    #expect(report.failures.isEmpty)
    #expect(report.albums.count == 1 && report.albums[0].tracks == [0, 1])
    let kept = try ReplayGainScan.keep(
      report, in: .file(scratch.raw("catalog.sqlite")), shelfVersion: "1.0", lockWait: 2)
    #expect(kept == 2)
    let reader = try CatalogStore.openForReading(at: scratch.raw("catalog.sqlite"), shelfVersion: "1.0")
    for (index, path) in paths.enumerated() {
      let expected = report.tracks[index].gain
      #expect(expected.source == .measured && expected.albumGain == report.albums[0].gain)
      #expect(try reader.entry(path: path)?.replayGain == expected)
      #expect(try reader.replayGain(forFileAt: path) == expected)
    }
    // The same inode with another size and time: the kept row no longer holds.
    let handle = try #require(FileHandle(forWritingAtPath: scratch.file("m/menu.ogg")))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data([0]))
    try handle.close()
    #expect(try reader.replayGain(forFileAt: paths[0]) == nil)
    #expect(try reader.replayGain(forFileAt: paths[1]) == report.tracks[1].gain)
  }

  @Test func aSchema14CatalogueGetsTheGainTableAndColumns() async throws {
    let scratch = try TemporaryDirectory()
    _ = try scratch.write("m/a.txt", Array("alpha\n".utf8))
    do {
      let store = try CatalogStore.openForWriting(at: scratch.raw("catalog.sqlite"), shelfVersion: "1.0")
      var options = IndexOptions()
      options.recentWindow = 0
      _ = try await Indexer(store: store, options: options).index(root: scratch.raw("m"))
      try dropSchema15Gains(store.db)
      try store.db.execute("PRAGMA user_version = 14")
    }
    let path = scratch.raw("catalog.sqlite")
    #expect(throws: CatalogError(path: path, reason: .olderSchema(14))) {
      try CatalogStore.openForReading(at: path, shelfVersion: "1.0")
    }
    let upgraded = try CatalogStore.openForWriting(at: path, shelfVersion: "1.0")
    #expect(
      try upgraded.db.query("PRAGMA user_version").first?.first?.integer == Int64(CatalogSchema.version))
    #expect(try upgraded.db.query("SELECT count(*) FROM replay_gains").first?.first?.integer == 0)
    #expect(try upgraded.db.query("SELECT count(rg_track_gain) FROM files").first?.first?.integer == 0)
    #expect(try upgraded.entry(path: scratch.raw("m/a.txt"))?.replayGain == nil)
  }
}
