import Foundation
import ShelfCore
import ShelfTestSupport
import Testing

@testable import ShelfCatalog

/// The EXIF test photos catalogued: queries over the new fields, Live Photo pairs, migration.
@Suite struct PhotoCatalogTests {
  static func index(_ store: CatalogStore, _ root: RawPath) async throws -> RootScanSummary {
    var options = IndexOptions()
    options.recentWindow = 0
    return try await Indexer(store: store, options: options).index(root: root)
  }

  static func names(_ store: CatalogStore, _ query: [String], now: Double? = nil) throws -> [String] {
    try store.entries(matching: CatalogQuery(arguments: query, now: now)).map {
      $0.path.lastComponent.escaped
    }
    .sorted()
  }

  @Test(arguments: TestCatalogues.kinds) func theEXIFFieldsAreQueryable(store kind: CatalogueStoreKind)
    async throws
  {
    let scratch = try TestPhotos.make()
    let store = try CatalogStore.openForWriting(
      at: CatalogLocation(try TestCatalogues.location(kind, in: scratch.path)), shelfVersion: "1.0")
    _ = try await Self.index(store, scratch.raw("photos"))
    let iphone = ["heif-enc-iphone.heic", "pillow-iphone.jpg"]
    #expect(try Self.names(store, ["taken:2024-05"]) == iphone)
    #expect(try Self.names(store, ["taken:2024-05-17T10"]) == iphone)
    #expect(try Self.names(store, ["taken<2020"]) == ["pillow-canon.png"])
    #expect(try Self.names(store, ["taken:2021..2023-12-31"]).count == 7)
    // 2024-06-01 00:00 UTC: thirty days back reaches 2024-05-02.
    #expect(try Self.names(store, ["taken:-30d.."], now: 1_717_200_000) == iphone)
    #expect(try Self.names(store, ["camera:iphone"]) == iphone + ["pillow-iphone.tiff"])
    #expect(try Self.names(store, ["camera:=NIKON D750"]) == ["pillow-nikon.webp"])
    #expect(try Self.names(store, ["lens:EF24"]) == ["pillow-canon.png"])
    #expect(try Self.names(store, ["software:gimp"]) == ["pillow-canon.png"])
    #expect(try Self.names(store, ["orientation:6"]) == iphone + ["pillow-iphone.tiff"])
    #expect(try Self.names(store, ["gps:true"]).count == 9)
    #expect(try Self.names(store, ["gps:no"]) == ["no-exif.jpg", "pillow-iphone.tiff", "pillow-nikon.webp"])
    #expect(try Self.names(store, ["lat<0", "lon<0", "alt<0"]) == ["pillow-canon.png"])
    #expect(try Self.names(store, ["taken:"]).count == 10)
    // Sorted by when they were taken, newest first; photos without a date last.
    let sorted = try store.entries(
      matching: CatalogQuery(arguments: ["ext:jpg"]), sort: [CatalogSort("taken:desc")])
    #expect(
      sorted.map { $0.path.lastComponent.escaped } == [
        "pillow-iphone.jpg", "imagemagick-exiftool-intel.jpg", "imagemagick-exiftool.jpg", "no-exif.jpg",
      ])
    let stats = try store.stats()
    #expect(stats.photosByYear.map(\.name) == ["2019", "2021", "2023", "2024"])
    #expect(stats.photosByYear.map(\.count) == [1, 1, 6, 2])
  }

  /// Makes a Live Photo's movie: a short MOV carrying Apple's content identifier.
  static func movie(_ path: String, identifier: String) throws {
    try ExternalTool.ffmpeg([
      "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10", "-t", "0.5", "-c:v", "mpeg4", "-movflags",
      "use_metadata_tags", "-metadata", "com.apple.quicktime.content.identifier=\(identifier)", path,
    ])
  }

  @Test(arguments: TestCatalogues.kinds) func aLivePhotoIsLinkedBothWaysAndFollowsChanges(
    store kind: CatalogueStoreKind
  ) async throws {
    let scratch = try TestPhotos.make()
    let photos = scratch.file("photos")
    // The HEIC and JPEG test photos share one content identifier (MakerNote tag 17).
    let identifier = "4E2F7B8A-1C3D-4E5F-8A9B-0C1D2E3F4A5B"
    try FileManager.default.createDirectory(
      atPath: scratch.file("library/other"), withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      atPath: photos + "/heif-enc-iphone.heic", toPath: scratch.file("library/IMG_0001.HEIC"))
    try FileManager.default.copyItem(
      atPath: photos + "/pillow-canon.png", toPath: scratch.file("library/IMG_0002.PNG"))
    // The same identifier in another folder does not pair with this folder's movie.
    try FileManager.default.copyItem(
      atPath: photos + "/pillow-iphone.jpg", toPath: scratch.file("library/other/IMG_0001.JPG"))
    try Self.movie(scratch.file("library/IMG_0001.MOV"), identifier: identifier)
    try Self.movie(scratch.file("library/IMG_0003.MOV"), identifier: "00000000-0000-0000-0000-000000000000")
    // More folders than are relinked one by one: the first scan finds the folders that hold a
    // candidate first (`Indexer.foldersLinkedOneByOne`).
    for index in 0...Indexer.foldersLinkedOneByOne {
      let folder = scratch.file("library/notes-\(index)")
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      try Data("note \(index)\n".utf8).write(to: URL(fileURLWithPath: folder + "/n.txt"))
    }
    let store = try CatalogStore.openForWriting(
      at: CatalogLocation(try TestCatalogues.location(kind, in: scratch.path)), shelfVersion: "1.0")
    _ = try await Self.index(store, scratch.raw("library"))
    func link(_ name: String) throws -> String? {
      try store.entry(path: scratch.raw("library/" + name))?.livePhoto?.escaped
    }
    #expect(
      try store.entry(path: scratch.raw("library/IMG_0001.MOV"))?.video?.contentIdentifier == identifier)
    #expect(try link("IMG_0001.HEIC") == scratch.file("library/IMG_0001.MOV"))
    #expect(try link("IMG_0001.MOV") == scratch.file("library/IMG_0001.HEIC"))
    #expect(try link("IMG_0002.PNG") == nil)
    #expect(try link("IMG_0003.MOV") == nil)
    #expect(try link("other/IMG_0001.JPG") == nil)
    #expect(try Self.names(store, ["live_photo:yes"]) == ["IMG_0001.HEIC", "IMG_0001.MOV"])
    #expect(try Self.names(store, ["live_photo:*.mov"]) == ["IMG_0001.HEIC"])
    #expect(try Self.names(store, ["live_photo:no", "kind:video"]) == ["IMG_0003.MOV"])

    // The movie renamed: the still follows it. Then gone: the still loses its link.
    try FileManager.default.moveItem(
      atPath: scratch.file("library/IMG_0001.MOV"), toPath: scratch.file("library/LIVE.MOV"))
    _ = try await Self.index(store, scratch.raw("library"))
    #expect(try link("IMG_0001.HEIC") == scratch.file("library/LIVE.MOV"))
    #expect(try link("LIVE.MOV") == scratch.file("library/IMG_0001.HEIC"))
    try FileManager.default.removeItem(atPath: scratch.file("library/LIVE.MOV"))
    _ = try await Self.index(store, scratch.raw("library"))
    #expect(try link("IMG_0001.HEIC") == nil)
    #expect(try Self.names(store, ["live_photo:yes"]) == [])
  }

  @Test func aSchema7CatalogueMigratesAndARescanReadsTheEXIF() async throws {
    let scratch = try TestPhotos.make()
    do {
      let store = try CatalogStore.openForWriting(at: scratch.raw("catalog.sqlite"), shelfVersion: "1.0")
      _ = try await Self.index(store, scratch.raw("photos"))
      try dropSchema8Columns(store.db)
      try store.db.execute("UPDATE files SET extractor_version = 4, taken = NULL; PRAGMA user_version = 7")
    }
    let path = scratch.raw("catalog.sqlite")
    #expect(throws: CatalogError(path: path, reason: .olderSchema(7))) {
      try CatalogStore.openForReading(at: path, shelfVersion: "1.0")
    }
    let upgraded = try CatalogStore.openForWriting(at: path, shelfVersion: "1.0")
    #expect(
      try upgraded.db.query("PRAGMA user_version").first?.first?.integer == Int64(CatalogSchema.version))
    #expect(try Self.names(upgraded, ["camera:iphone"]) == [])
    let summary = try await Self.index(upgraded, scratch.raw("photos"))
    #expect(summary.updated == 12)
    #expect(try Self.names(upgraded, ["camera:iphone"]).count == 3)
  }

  /// A folder of damaged photos beside a good one: every file is catalogued and the good
  /// one keeps its facts.
  @Test func theScanGoesOnPastDamagedPhotos() async throws {
    let scratch = try TestPhotos.make()
    let good = Array(try Data(contentsOf: URL(fileURLWithPath: scratch.file("photos/pillow-iphone.jpg"))))
    let heic = Array(try Data(contentsOf: URL(fileURLWithPath: scratch.file("photos/heif-enc-iphone.heic"))))
    let loop = TestPhotos.tiff([(0x010F, 2, 4, 0x4162_6300), (0x8769, 4, 1, 8)], next: 8)
    let segment =
      [0xFF, 0xE1] + [UInt8((loop.count + 8) >> 8), UInt8((loop.count + 8) & 0xFF)]
      + (Array("Exif".utf8) + [0, 0]) + loop
    try scratch.write("scan/good.jpg", good)
    try scratch.write("scan/loop.jpg", [0xFF, 0xD8] + segment + Array(good.dropFirst(2)))
    try scratch.write("scan/cut.jpg", Array(good.prefix(good.count / 3)))
    try scratch.write("scan/cut.heic", Array(heic.prefix(heic.count / 2)))
    try scratch.write("scan/empty.jpg", [])
    let store = try CatalogStore.openForWriting(at: scratch.raw("catalog.sqlite"), shelfVersion: "1.0")
    var options = IndexOptions()
    options.recentWindow = 0
    let summary = try await Indexer(store: store, options: options).index(root: scratch.raw("scan"))
    #expect(summary.files == 5 && summary.added == 5)
    let good1 = try #require(try store.entry(path: scratch.raw("scan/good.jpg")))
    #expect(good1.exif?.camera == "Apple iPhone 12 Pro")
    #expect(try store.entry(path: scratch.raw("scan/loop.jpg"))?.exif?.camera == "Abc")
    #expect(try store.entry(path: scratch.raw("scan/cut.heic"))?.kind == .image)
  }
}
