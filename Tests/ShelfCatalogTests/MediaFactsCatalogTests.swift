import Foundation
import ShelfAudio
import ShelfCore
import ShelfDatabase
import ShelfFacts
import ShelfTestSupport
import Testing

@testable import ShelfCatalog

/// Turns a current catalogue back into schema 14 shape (no measured gains, no tag gains).
/// Done once however many older shapes call it.
func dropSchema15Gains(_ db: SQLiteConnection) throws {
  try db.execute("DROP TABLE IF EXISTS replay_gains")
  let present = try db.query("SELECT name FROM pragma_table_info('files')").compactMap { $0.first?.text }
  for column in ["rg_track_gain", "rg_track_peak", "rg_album_gain", "rg_album_peak"]
  where present.contains(column) {
    try db.execute("ALTER TABLE files DROP COLUMN \(column)")
  }
}

/// Turns a current catalogue back into schema 12 shape (no index of the entries awaiting their
/// Live Photo partner, and later).
func dropSchema13Index(_ db: SQLiteConnection) throws {
  try dropSchema15Gains(db)
  try db.execute("DROP INDEX IF EXISTS files_live_photo_queue")
}

/// Turns a current catalogue back into schema 11 shape (the path trigrams written by an insert
/// trigger, and later).
func restoreSchema11Trigger(_ db: SQLiteConnection) throws {
  try dropSchema13Index(db)
  try db.execute(
    """
    CREATE TRIGGER files_paths_insert AFTER INSERT ON files BEGIN
      INSERT INTO files_paths(rowid, path_text) VALUES (new.id, new.path_text);
    END;
    """)
}

/// Turns a current catalogue back into schema 10 shape (the roots' parent removed, and later).
func dropSchema11Columns(_ db: SQLiteConnection) throws {
  try restoreSchema11Trigger(db)
  try db.execute("ALTER TABLE roots DROP COLUMN parent_id")
}

/// Turns a current catalogue back into schema 9 shape (the query indexes and the path
/// trigrams removed, and later).
func dropSchema10Indexes(_ db: SQLiteConnection) throws {
  try dropSchema11Columns(db)
  try db.execute(
    """
    DROP TRIGGER files_paths_insert; DROP TRIGGER files_paths_delete; DROP TRIGGER files_paths_update;
    DROP TABLE files_paths;
    DROP INDEX files_kind_size; DROP INDEX files_size; DROP INDEX files_mtime; DROP INDEX files_artist;
    DROP INDEX files_totals;
    """)
}

/// Turns a current catalogue back into schema 8 shape (the loop count, and later, removed).
func dropSchema9Columns(_ db: SQLiteConnection) throws {
  try dropSchema10Indexes(db)
  try db.execute("ALTER TABLE files DROP COLUMN loop_count")
}

/// Turns a current catalogue back into schema 7 shape (the EXIF and Live Photo columns removed).
func dropSchema8Columns(_ db: SQLiteConnection) throws {
  try dropSchema9Columns(db)
  for column in [
    "camera", "lens", "orientation", "gps_lat", "gps_lon", "gps_alt", "software", "content_id", "live_photo",
    "live_photo_text",
  ] {
    try db.execute("ALTER TABLE files DROP COLUMN \(column)")
  }
}

/// Turns a current catalogue back into schema 6 shape (the media columns, and later ones, removed).
func dropSchema7Columns(_ db: SQLiteConnection) throws {
  try dropSchema8Columns(db)
  for column in [
    "codec", "bitrate", "album_artist", "disc", "disc_total", "track_total", "artwork", "frame_rate",
    "rotation",
    "audio_codec", "taken",
  ] {
    try db.execute("ALTER TABLE files DROP COLUMN \(column)")
  }
}

/// The phone and music-library media of SampleMedia/, catalogued and queried.
@Suite struct MediaFactsCatalogTests {
  static let sampleMedia = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("SampleMedia").path

  /// A copy of SampleMedia/ in a scratch folder, indexed into a catalogue there.
  static func indexedCopy() async throws -> (TemporaryDirectory, CatalogStore) {
    let scratch = try TemporaryDirectory()
    try FileManager.default.copyItem(atPath: sampleMedia, toPath: scratch.file("media"))
    // The sample backups are catalogued by their own tests.
    try FileManager.default.removeItem(atPath: scratch.file("media/Backups"))
    let store = try CatalogStore.openForWriting(at: scratch.raw("catalog.sqlite"), shelfVersion: "1.0")
    var options = IndexOptions()
    options.recentWindow = 0
    _ = try await Indexer(store: store, options: options).index(root: scratch.raw("media"))
    return (scratch, store)
  }

  static func names(_ store: CatalogStore, _ query: [String]) throws -> [String] {
    try store.entries(matching: CatalogQuery(arguments: query)).map { $0.path.lastComponent.escaped }.sorted()
  }

  @Test func theNewFieldsAreQueryable() async throws {
    let (_, store) = try await Self.indexedCopy()
    #expect(try Self.names(store, ["kind:video"]) == ["IMG_0001.MOV", "portrait-clip.mov"])
    #expect(try Self.names(store, ["kind:video", "width>=320", "rotation:90"]) == ["portrait-clip.mov"])
    #expect(try Self.names(store, ["kind:video", "width>=1920"]) == [])
    #expect(try Self.names(store, ["codec:aac"]) == ["morning-chord.m4a"])
    #expect(try Self.names(store, ["audio_codec:aac"]) == ["portrait-clip.mov"])
    #expect(try Self.names(store, ["codec:amr_nb"]) == ["voicemail-0001.amr"])
    #expect(
      try Self.names(store, ["album_artist:"])
        == ["duet-repeated-artist.flac", "morning-chord.m4a", "no-xing-cover.mp3"])
    #expect(try Self.names(store, ["artwork:true"]) == ["morning-chord.m4a", "no-xing-cover.mp3"])
    #expect(
      try Self.names(store, ["bitrate>256k", "kind:audio"])
        == [
          "chord-stereo.flac", "duet-repeated-artist.flac", "lossless-fifth.m4a", "tagged-id3.aiff",
          "tone-440-mono.wav",
        ])
    #expect(
      try Self.names(store, ["bitrate:128k", "codec:mp3"]) == ["beeps-stereo.mp3", "no-xing-cover.mp3"])
    #expect(try Self.names(store, ["disc:2", "disc_total:2"]) == ["no-xing-cover.mp3"])
    #expect(try Self.names(store, ["track_total>=9"]) == ["morning-chord.m4a", "no-xing-cover.mp3"])
    #expect(try Self.names(store, ["taken:2024-05-01"]) == ["portrait-clip.mov"])
    #expect(try Self.names(store, ["artist:\"Second Voice\""]) == ["duet-repeated-artist.flac"])
  }

  @Test func entriesReadBackWithEveryFact() async throws {
    let (_, store) = try await Self.indexedCopy()
    let entries = try store.entries(matching: CatalogQuery(arguments: ["name:no-xing-cover.mp3"]))
    let audio = try #require(entries.first?.audio)
    #expect(audio.frames == 89856)
    #expect(audio.codec == "mp3")
    #expect(audio.bitrate == 128000)
    #expect(audio.hasArtwork)
    #expect(audio.artist == "Shelf Test Signals; Guest Voice")
    #expect(audio.genre == "Dance")
    #expect(audio.tags.albumArtist == "Shelf Ensemble")
    #expect(audio.trackNumber == 7 && audio.tags.trackTotal == 9)
    #expect(audio.tags.disc == 2 && audio.tags.discTotal == 2)
    let clip = try #require(
      try store.entries(matching: CatalogQuery(arguments: ["name:portrait-clip.mov"])).first)
    #expect(clip.mime == "video/quicktime")
    #expect(clip.image == nil && clip.audio == nil)
    #expect(
      clip.video
        == VideoFileInfo(
          duration: clip.video?.duration ?? 0, width: 320, height: 240, codec: "h264", frameRate: 30,
          rotation: 90,
          audioCodec: "aac", sampleRate: 48000, channels: 1, bitrate: clip.video?.bitrate,
          taken: "2024-05-01T14:30:00+02:00", container: "mov"))
    #expect(abs((clip.video?.duration ?? 0) - 1) < 0.05)
    let stats = try store.stats()
    #expect(stats.byKind.contains { $0.name == "video" && $0.count == 2 })
  }

  @Test func aSchema6CatalogueMigratesAndARescanFillsTheNewFacts() async throws {
    let scratch: TemporaryDirectory
    do {
      let (copy, store) = try await Self.indexedCopy()
      scratch = copy
      try dropSchema7Columns(store.db)
      try store.db.execute("UPDATE files SET extractor_version = 3; PRAGMA user_version = 6")
    }
    let path = scratch.raw("catalog.sqlite")
    #expect(throws: CatalogError(path: path, reason: .olderSchema(6))) {
      try CatalogStore.openForReading(at: path, shelfVersion: "1.0")
    }
    let upgraded = try CatalogStore.openForWriting(at: path, shelfVersion: "1.0")
    #expect(
      try upgraded.db.query("PRAGMA user_version").first?.first?.integer == Int64(CatalogSchema.version))
    #expect(try Self.names(upgraded, ["codec:aac"]) == [])
    var options = IndexOptions()
    options.recentWindow = 0
    _ = try await Indexer(store: upgraded, options: options).index(root: scratch.raw("media"))
    #expect(try Self.names(upgraded, ["codec:aac"]) == ["morning-chord.m4a"])
  }
}
