import ShelfCore
import ShelfDatabase
import ShelfFacts
import ShelfTestSupport
import Testing

@testable import ShelfCatalog

#if canImport(Glibc)
  import Glibc
#endif

/// A new catalogue in `store` (a file in the scratch folder, or a database on the test server).
private func makeStore(_ scratch: TemporaryDirectory, _ store: CatalogueStoreKind) throws -> CatalogStore {
  try CatalogStore.openForWriting(
    at: CatalogLocation(try TestCatalogues.location(store, in: scratch.path)), shelfVersion: "1.0")
}

extension TemporaryDirectory {
  /// The bytes of a file in the folder.
  fileprivate func read(_ relative: String) throws -> [UInt8] {
    try RegularFile(path: RawPath(path + "/" + relative)).readAll(limit: 1 << 30)
  }

  /// The names in the folder, sorted.
  fileprivate func list() throws -> [String] {
    try TreeWalker.list(RawPath(path)).map { String(decoding: $0.name, as: UTF8.self) }.sorted()
  }
}

private func index(
  _ store: CatalogStore, _ root: String, _ configure: (inout IndexOptions) -> Void = { _ in }
) async throws
  -> RootScanSummary
{
  var options = IndexOptions()
  options.recentWindow = 0
  configure(&options)
  return try await Indexer(store: store, options: options).index(root: RawPath(root))
}

private func names(_ store: CatalogStore, _ query: [String] = []) throws -> [String] {
  try store.entries(matching: CatalogQuery(arguments: query)).map { $0.path.lastComponent.escaped }
}

/// Rescans sort files alike whether the walk met them before the known files were loaded
/// (sorted after the walk) or after (passed over by the walk's sieve when unchanged).
@Test(arguments: TestCatalogues.kinds, [false, true]) func indexesKindsAndRescansIncrementally(
  store kind: CatalogueStoreKind, walkAfterLoading: Bool
) async throws {
  let scratch = try TemporaryDirectory()
  let root = scratch.path + "/media"
  try scratch.write("media/a.txt", Array("hello world\n".utf8))
  try scratch.write("media/b.plist", Array("<plist><dict><key>K</key><true/></dict></plist>".utf8))
  try scratch.write("media/sub/c.bin", [0, 1, 2, 3, 0xFF])
  try scratch.write("media/sub/kept.txt", Array("kept\n".utf8))
  let store = try makeStore(scratch, kind)
  let rescan = { try await index(store, root) { $0.walkAfterLoadingKnownFiles = walkAfterLoading } }
  var summary = try await rescan()
  #expect((summary.files, summary.added, summary.unchanged) == (4, 4, 0))
  #expect(try names(store) == ["a.txt", "b.plist", "c.bin", "kept.txt"])
  #expect(try store.entry(path: RawPath(root + "/a.txt"))?.text?.words == 2)

  summary = try await rescan()
  #expect((summary.files, summary.added, summary.updated, summary.unchanged) == (4, 0, 0, 4))
  if walkAfterLoading { #expect(summary.walk.passedUnchanged == 4) }

  // Change one file, delete one, add one, rename one.
  try scratch.write("media/a.txt", Array("hello there world\n".utf8))
  #expect(unlink(root + "/sub/c.bin") == 0)
  try scratch.write("media/d.txt", Array("new\n".utf8))
  #expect(rename(root + "/b.plist", root + "/sub/renamed.plist") == 0)
  summary = try await rescan()
  #expect(
    (summary.files, summary.added, summary.updated, summary.unchanged, summary.moved, summary.removed)
      == (4, 1, 1, 1, 1, 1))
  if walkAfterLoading { #expect(summary.walk.passedUnchanged == 1) }
  #expect(try names(store) == ["a.txt", "d.txt", "kept.txt", "renamed.plist"])
  #expect(try store.entry(path: RawPath(root + "/a.txt"))?.text?.words == 3)
  #expect(try store.entry(path: RawPath(root + "/sub/renamed.plist"))?.plist?.keys == ["K"])
}

@Test(arguments: TestCatalogues.kinds) func freshTimestampsAreCheckedAgain(store kind: CatalogueStoreKind)
  async throws
{
  let scratch = try TemporaryDirectory()
  try scratch.write("m/a.txt", Array("x\n".utf8))
  let store = try makeStore(scratch, kind)
  _ = try await index(store, scratch.path + "/m") { $0.recentWindow = 3600 }
  // Written within the window: not trusted, so read again although unchanged.
  let again = try await index(store, scratch.path + "/m") { $0.recentWindow = 0 }
  #expect((again.updated, again.unchanged) == (1, 0))
  let third = try await index(store, scratch.path + "/m")
  #expect((third.updated, third.unchanged) == (0, 1))
}

@Test(arguments: TestCatalogues.kinds) func fullRescanReextractsEverything(store kind: CatalogueStoreKind)
  async throws
{
  let scratch = try TemporaryDirectory()
  try scratch.write("m/a.txt", Array("x\n".utf8))
  let store = try makeStore(scratch, kind)
  _ = try await index(store, scratch.path + "/m")
  let full = try await index(store, scratch.path + "/m") { $0.full = true }
  #expect((full.updated, full.unchanged) == (1, 0))
}

@Test(arguments: TestCatalogues.kinds) func excludesAndShelfignore(store kind: CatalogueStoreKind)
  async throws
{
  let scratch = try TemporaryDirectory()
  try scratch.write("m/keep.txt", Array("k\n".utf8))
  try scratch.write("m/skip.tmp", Array("s\n".utf8))
  try scratch.write("m/cache/x.txt", Array("c\n".utf8))
  try scratch.write("m/docs/.shelfignore", Array("# comment\n*.log\nprivate/\n".utf8))
  try scratch.write("m/docs/a.log", Array("l\n".utf8))
  try scratch.write("m/docs/b.txt", Array("b\n".utf8))
  try scratch.write("m/docs/private/secret.txt", Array("p\n".utf8))
  try scratch.write("m/other.log", Array("o\n".utf8))
  let store = try makeStore(scratch, kind)
  let summary = try await index(store, scratch.path + "/m") { $0.excludes = ["*.tmp", "cache"] }
  #expect(try names(store) == [".shelfignore", "b.txt", "keep.txt", "other.log"])
  #expect(summary.walk.excluded == 4)
}

@Test(arguments: TestCatalogues.kinds) func hostileTreeStaysInsideTheRoot(store kind: CatalogueStoreKind)
  async throws
{
  let scratch = try TemporaryDirectory()
  try scratch.write("outside/secret.txt", Array("secret\n".utf8))
  try scratch.write("m/real/a.txt", Array("a\n".utf8))
  let root = scratch.path + "/m"
  #expect(symlink(scratch.path + "/outside", root + "/out-dir") == 0)
  #expect(symlink(scratch.path + "/outside/secret.txt", root + "/out-file.txt") == 0)
  #expect(symlink(root, root + "/real/loop") == 0)
  #expect(symlink(root + "/real/a.txt", root + "/inside-link.txt") == 0)
  #expect(mkfifo(root + "/fifo", 0o644) == 0)
  let badName = RawPath(bytes: Array((root + "/bad").utf8) + [0xFF, 0xFE] + Array(".txt".utf8))
  let fd = badName.withCString { open($0, O_WRONLY | O_CREAT, 0o644) }
  _ = Glibc.write(fd, "bytes\n", 6)
  close(fd)

  let store = try makeStore(scratch, kind)
  var summary = try await index(store, root)
  #expect(try names(store) == ["bad\\xff\\xfe.txt", "a.txt"])
  #expect(summary.walk.skippedLinks == 4)
  #expect(summary.walk.specialFiles == 1)
  #expect(try store.entry(path: badName)?.kind == .text)

  // Following links: only the ones inside the root; the loop is walked once.
  summary = try await index(store, root) { $0.followLinks = true }
  #expect(try names(store) == ["bad\\xff\\xfe.txt", "inside-link.txt", "a.txt"])
  #expect(summary.walk.linksOutsideRoot == 2)
  #expect(summary.walk.loops == 1)
}

@Test(arguments: TestCatalogues.kinds) func badHeadersGiveAnErrorAndAreStillCatalogued(
  store kind: CatalogueStoreKind
) async throws {
  let scratch = try TemporaryDirectory()
  var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
  png += [0, 1, 0x86, 0xA0, 0, 1, 0x86, 0xA0, 8, 6, 0, 0, 0, 0, 0, 0, 0]
  try scratch.write("m/huge.png", png)
  try scratch.write(
    "m/lying.wav",
    Array("RIFF".utf8) + [0xFF, 0xFF, 0xFF, 0x7F] + Array("WAVEfmt ".utf8) + [0xFF, 0xFF, 0xFF, 0x7F])
  try scratch.write(
    "m/cycle.plist",
    Array("bplist00".utf8) + [0xA1, 0] + [8] + [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 1] + [
      0, 0, 0, 0, 0, 0, 0, 0,
    ] + [0, 0, 0, 0, 0, 0, 0, 10])
  let store = try makeStore(scratch, kind)
  let summary = try await index(store, scratch.path + "/m")
  #expect(summary.files == 3)
  let huge = try #require(try store.entry(path: RawPath(scratch.path + "/m/huge.png")))
  #expect(huge.image?.width == 100_000)
  #expect(huge.error != nil)
  let wav = try #require(try store.entry(path: RawPath(scratch.path + "/m/lying.wav")))
  #expect(wav.kind == .audio && wav.error != nil && wav.audio == nil)
  let plist = try #require(try store.entry(path: RawPath(scratch.path + "/m/cycle.plist")))
  #expect(plist.error?.reason == "corrupt binary plist: reference cycle")
}

@Test(arguments: TestCatalogues.kinds) func sandboxAreasAndBundleInfo(store kind: CatalogueStoreKind)
  async throws
{
  let scratch = try TemporaryDirectory()
  let info = """
    <?xml version="1.0"?><plist><dict><key>CFBundleIdentifier</key><string>com.example.app</string>\
    <key>CFBundleName</key><string>Example</string><key>CFBundleShortVersionString</key><string>2.1</string></dict></plist>
    """
  try scratch.write("box/Example.app/Info.plist", Array(info.utf8))
  try scratch.write("box/Documents/a.txt", Array("a\n".utf8))
  try scratch.write("box/Library/Preferences/p.txt", Array("p\n".utf8))
  try scratch.write("box/Library/Caches/c.txt", Array("c\n".utf8))
  try scratch.write("box/Library/Other/l.txt", Array("l\n".utf8))
  try scratch.write("box/tmp/t.txt", Array("t\n".utf8))
  try scratch.write("box/top.txt", Array("o\n".utf8))
  let store = try makeStore(scratch, kind)
  let summary = try await index(store, scratch.path + "/box")
  #expect(
    summary.bundle
      == BundleInfo(
        identifier: "com.example.app", name: "Example", version: "2.1", bundlePath: RawPath("Example.app")))
  let areas = try store.entries(matching: .all).map { "\($0.path.lastComponent.escaped)=\($0.area.rawValue)" }
  #expect(
    areas == [
      "a.txt=documents", "Info.plist=bundle", "c.txt=caches", "l.txt=library", "p.txt=preferences",
      "t.txt=tmp", "top.txt=other",
    ])
  #expect(try store.roots().first?.bundle?.identifier == "com.example.app")
}

@Test func garbageIsNotACatalogueAndIsLeftUntouched() throws {
  let scratch = try TemporaryDirectory()
  let contents = Array(repeating: UInt8(0x41), count: 4096)
  let path = try scratch.write("catalog.sqlite", contents)
  for open in [
    { try CatalogStore.openForWriting(at: RawPath(path), shelfVersion: "1.0") },
    { try CatalogStore.openForReading(at: RawPath(path), shelfVersion: "1.0") },
  ] {
    #expect(throws: CatalogError(path: RawPath(path), reason: .notACatalogue)) { _ = try open() }
  }
  #expect(try scratch.read("catalog.sqlite") == contents)
  #expect(try scratch.list() == ["catalog.sqlite"])
}

@Test func damagedShelfCatalogueIsMovedAsideOnlyByAWriter() throws {
  let scratch = try TemporaryDirectory()
  let path = RawPath(scratch.path + "/catalog.sqlite")
  do {
    let store = try CatalogStore.openForWriting(at: path, shelfVersion: "1.0")
    _ = try store.rootID(for: RawPath("/some/root"))
  }
  // Keep the header (ours), damage every page after it.
  var bytes = try scratch.read("catalog.sqlite")
  for index in 100..<bytes.count { bytes[index] = 0xEE }
  try scratch.write("catalog.sqlite", bytes)
  #expect(throws: SQLiteError.self) {
    _ = try CatalogStore.openForReading(at: path, shelfVersion: "1.0").roots()
  }
  #expect(try scratch.read("catalog.sqlite") == bytes)
  let store = try CatalogStore.openForWriting(at: path, shelfVersion: "1.0")
  #expect(store.movedAsideCorruptFile == RawPath(scratch.path + "/catalog.sqlite.corrupt"))
  #expect(try store.roots().isEmpty)
  #expect(try scratch.read("catalog.sqlite.corrupt") == bytes)
}

@Test func missingCatalogueIsAnErrorForReaders() throws {
  let scratch = try TemporaryDirectory()
  let path = RawPath(scratch.path + "/none.sqlite")
  #expect(throws: CatalogError(path: path, reason: .noCatalogue)) {
    try CatalogStore.openForReading(at: path, shelfVersion: "1.0")
  }
  #expect(try scratch.list().isEmpty)
}

@Test func writerLockIsExclusive() throws {
  let scratch = try TemporaryDirectory()
  let catalogue = RawPath(scratch.path + "/c.sqlite")
  let first = try WriterLock(catalogue: catalogue, wait: 0)
  #expect(throws: CatalogError(path: catalogue, reason: .busy)) {
    _ = try WriterLock(catalogue: catalogue, wait: 0.1)
  }
  withExtendedLifetime(first) {}
}

@Test(arguments: TestCatalogues.kinds) func olderExtractorVersionsAreReadAgain(store kind: CatalogueStoreKind)
  async throws
{
  let scratch = try TemporaryDirectory()
  try scratch.write("m/a.txt", Array("x\n".utf8))
  try scratch.write("m/b.txt", Array("y\n".utf8))
  let store = try makeStore(scratch, kind)
  _ = try await index(store, scratch.path + "/m")
  try store.execute("UPDATE files SET extractor_version = 0 WHERE name = 'a.txt'")
  let again = try await index(store, scratch.path + "/m")
  #expect((again.updated, again.unchanged) == (1, 1))
  #expect(
    try store.entry(path: RawPath(scratch.path + "/m/a.txt"))?.extractorVersion == MetadataExtractor.version)
}

@Test func olderSchemaIsRebuiltKeepingRoots() throws {
  let scratch = try TemporaryDirectory()
  let path = RawPath(scratch.path + "/catalog.sqlite")
  do {
    let store = try CatalogStore.openForWriting(at: path, shelfVersion: "1.0")
    // A new catalogue is made of 16 KiB pages, and its full-text table merges 8 segments at a time.
    #expect(try store.db.query("PRAGMA page_size").first?.first?.integer == 16384)
    #expect(
      try store.db.query("SELECT v FROM files_fts_config WHERE k = 'automerge'").first?.first?.integer == 8)
    _ = try store.rootID(for: RawPath("/some/root"))
    try store.db.execute("PRAGMA user_version = 1; PRAGMA application_id = 0")
  }
  let reopened = try CatalogStore.openForWriting(at: path, shelfVersion: "1.0")
  #expect(try reopened.roots().map(\.path) == [RawPath("/some/root")])
  #expect(try reopened.db.query("PRAGMA user_version").first?.first?.integer == Int64(CatalogSchema.version))
}

/// Turns a current catalogue into one as shelf wrote it with schema 5: no backup columns and no
/// media columns.
private func makeSchema5(_ path: RawPath) throws {
  let db = try SQLiteConnection(path: path, create: false)
  let rootColumns = [
    "backup_device", "backup_product", "backup_ios", "backup_date", "backup_encrypted", "backup_format",
  ]
  let fileColumns = ["backup_domain", "backup_app", "backup_file_id", "backup_protection", "backup_mode"]
  try dropSchema13Index(db)
  try db.execute(
    (rootColumns.map { "ALTER TABLE roots DROP COLUMN \($0);" }
      + fileColumns.map { "ALTER TABLE files DROP COLUMN \($0);" })
      .joined(separator: " ") + " PRAGMA user_version = 5")
  try dropSchema7Columns(db)
  try db.close()
}

/// Turns a current catalogue into one as shelf wrote it with schema 4: no `meta` table, no
/// `excludes` column, no `application_id` (and none of schema 5's later columns).
private func makeSchema4(_ path: RawPath) throws {
  try makeSchema5(path)
  let db = try SQLiteConnection(path: path, create: false)
  try db.execute(
    "ALTER TABLE roots DROP COLUMN excludes; DROP TABLE meta; PRAGMA application_id = 0; PRAGMA user_version = 4"
  )
  try db.close()
}

@Test func schema5IsMigratedWithBackupColumnsKeepingEntries() async throws {
  let scratch = try TemporaryDirectory()
  try scratch.write("m/a.txt", Array("a\n".utf8))
  let path = RawPath(scratch.path + "/catalog.sqlite")
  do {
    let store = try makeStore(scratch, .sqlite)
    _ = try await index(store, scratch.path + "/m")
  }
  try makeSchema5(path)
  #expect(throws: CatalogError(path: path, reason: .olderSchema(5))) {
    try CatalogStore.openForReading(at: path, shelfVersion: "1.0")
  }
  let store = try CatalogStore.openForWriting(at: path, shelfVersion: "1.0")
  #expect(try names(store) == ["a.txt"])
  #expect(try store.roots().map(\.backup) == [nil])
  #expect(try store.db.query("SELECT count(backup_domain) FROM files").first?.first?.integer == 0)
  #expect(try store.db.query("PRAGMA user_version").first?.first?.integer == Int64(CatalogSchema.version))
}

@Test func schema4IsRefusedByReadersAndMigratedByTheWriterKeepingEntries() async throws {
  let scratch = try TemporaryDirectory()
  try scratch.write("m/a.txt", Array("a\n".utf8))
  let path = RawPath(scratch.path + "/catalog.sqlite")
  do {
    let store = try makeStore(scratch, .sqlite)
    _ = try await index(store, scratch.path + "/m")
  }
  try makeSchema4(path)
  let before = try scratch.read("catalog.sqlite")
  #expect(throws: CatalogError(path: path, reason: .olderSchema(4))) {
    try CatalogStore.openForReading(at: path, shelfVersion: "1.0")
  }
  #expect(try scratch.read("catalog.sqlite") == before)
  #expect(try scratch.list() == ["catalog.sqlite", "catalog.sqlite.lock", "m"])
  let store = try CatalogStore.openForWriting(at: path, shelfVersion: "1.0")
  #expect(try names(store) == ["a.txt"])
  #expect(try store.roots().map(\.excludes) == [[]])
  #expect(try store.db.query("PRAGMA user_version").first?.first?.integer == Int64(CatalogSchema.version))
}

@Test func newerSchemaNamesTheShelfThatWroteIt() throws {
  let scratch = try TemporaryDirectory()
  let path = RawPath(scratch.path + "/catalog.sqlite")
  do {
    let store = try CatalogStore.openForWriting(at: path, shelfVersion: "9.1")
    try store.db.execute("PRAGMA user_version = \(CatalogSchema.version + 1)")
  }
  let before = try scratch.read("catalog.sqlite")
  let expected = CatalogError(
    path: path, reason: .newerSchema(CatalogSchema.version + 1, writtenBy: "9.1", reader: "1.0"))
  #expect(throws: expected) { try CatalogStore.openForReading(at: path, shelfVersion: "1.0") }
  #expect(throws: expected) { try CatalogStore.openForWriting(at: path, shelfVersion: "1.0") }
  #expect(
    expected.description
      == "\(path.escaped): catalogue was written by shelf 9.1 (schema \(CatalogSchema.version + 1)); this is shelf 1.0 (schema \(CatalogSchema.version))"
  )
  #expect(try scratch.read("catalog.sqlite") == before)
}

@Test(arguments: TestCatalogues.kinds) func excludesAreStoredWithTheRootUntilReplaced(
  store kind: CatalogueStoreKind
) async throws {
  let scratch = try TemporaryDirectory()
  try scratch.write("m/keep.txt", Array("k\n".utf8))
  try scratch.write("m/skip.tmp", Array("s\n".utf8))
  try scratch.write("m/Library/Caches/c.txt", Array("c\n".utf8))
  try scratch.write("m/Library/l.txt", Array("l\n".utf8))
  let store = try makeStore(scratch, kind)
  _ = try await index(store, scratch.path + "/m") { $0.excludes = ["*.tmp", "Library/Caches"] }
  #expect(try names(store) == ["l.txt", "keep.txt"])
  // A plain rescan, and a scan of a folder inside the root, keep applying them.
  _ = try await index(store, scratch.path + "/m")
  _ = try await index(store, scratch.path + "/m/Library")
  #expect(try names(store) == ["l.txt", "keep.txt"])
  #expect(try store.roots().map(\.excludes) == [["*.tmp", "Library/Caches"]])
  await #expect(throws: CatalogError.self) {
    _ = try await index(store, scratch.path + "/m/Library") { $0.excludes = ["*.txt"] }
  }
  _ = try await index(store, scratch.path + "/m") { $0.excludes = ["*.txt"] }
  #expect(try names(store) == ["skip.tmp"])
  _ = try await index(store, scratch.path + "/m") { $0.excludes = [""] }
  #expect(try store.roots().map(\.excludes) == [[]])
  #expect(try names(store) == ["c.txt", "l.txt", "keep.txt", "skip.tmp"])
}

@Test(arguments: TestCatalogues.kinds) func forgettingARootDropsOnlyItsEntries(store kind: CatalogueStoreKind)
  async throws
{
  let scratch = try TemporaryDirectory()
  try scratch.write("a/x.txt", Array("x\n".utf8))
  try scratch.write("b/y.txt", Array("y\n".utf8))
  let store = try makeStore(scratch, kind)
  _ = try await index(store, scratch.path + "/a")
  _ = try await index(store, scratch.path + "/b")
  #expect(try store.forgetRoot(RawPath(scratch.path + "/a")).map(\.entries) == [1])
  #expect(try names(store) == ["y.txt"])
  #expect(try scratch.read("a/x.txt") == Array("x\n".utf8))
  #expect(throws: CatalogError(path: RawPath(scratch.path + "/a"), reason: .unknownRoot)) {
    try store.forgetRoot(RawPath(scratch.path + "/a"))
  }
  #expect(try store.rootListings().map { [$0.files, Int($0.size)] } == [[1, 2]])
}

@Test func implausibleDurationsAreCountedNotSummed() async throws {
  let scratch = try TemporaryDirectory()
  try scratch.write("m/a.txt", Array("a\n".utf8))
  try scratch.write("m/b.txt", Array("b\n".utf8))
  try scratch.write("m/c.txt", Array("c\n".utf8))
  let store = try makeStore(scratch, .sqlite)
  _ = try await index(store, scratch.path + "/m")
  try store.db.execute(
    "UPDATE files SET duration = 90 WHERE name = 'a.txt'; UPDATE files SET duration = 9e999 WHERE name = 'b.txt'; UPDATE files SET duration = 700000 WHERE name = 'c.txt'"
  )
  let stats = try store.stats()
  #expect(stats.duration == 90)
  #expect(stats.implausibleDurations == 2)
  #expect(stats.byKind.map(\.duration) == [90])
}

@Test(arguments: TestCatalogues.kinds) func oneFileInsideAKnownRootIsCatalogued(
  store kind: CatalogueStoreKind
) async throws {
  let scratch = try TemporaryDirectory()
  try scratch.write("box/Documents/a.txt", Array("a\n".utf8))
  try scratch.makeDirectory("box/Library")
  try scratch.makeDirectory("elsewhere")
  let store = try makeStore(scratch, kind)
  _ = try await index(store, scratch.path + "/box")
  let recording = try scratch.write("box/Documents/memo.txt", Array("new memo\n".utf8))
  let indexer = Indexer(store: store, options: IndexOptions())
  let entry = try #require(try indexer.indexFile(RawPath(recording)))
  #expect(entry.area == .documents && entry.kind == .text && entry.root == RawPath(scratch.path + "/box"))
  #expect(try names(store, ["memo"]) == ["memo.txt"])
  let outside = try scratch.write("elsewhere/x.txt", Array("x\n".utf8))
  #expect(try indexer.indexFile(RawPath(outside)) == nil)
}

@Test(arguments: TestCatalogues.kinds, [false, true]) func aFolderInsideARootIsScannedAsPartOfIt(
  store kind: CatalogueStoreKind, walkAfterLoading: Bool
) async throws {
  let scratch = try TemporaryDirectory()
  try scratch.write("box/Example.app/Info.plist", Array("<plist><dict/></plist>".utf8))
  try scratch.write("box/Documents/a.txt", Array("a\n".utf8))
  try scratch.write("box/Library/Preferences/p.txt", Array("p\n".utf8))
  let store = try makeStore(scratch, kind)
  _ = try await index(store, scratch.path + "/box")
  try scratch.write("box/Documents/b.txt", Array("b\n".utf8))
  let sub = try await index(store, scratch.path + "/box/Documents") {
    $0.walkAfterLoadingKnownFiles = walkAfterLoading
  }
  #expect((sub.files, sub.added, sub.unchanged, sub.removed) == (2, 1, 1, 0))
  if walkAfterLoading { #expect(sub.walk.passedUnchanged == 1) }
  #expect(try store.roots().map(\.path) == [RawPath(scratch.path + "/box")])
  #expect(try store.entry(path: RawPath(scratch.path + "/box/Documents/b.txt"))?.area == .documents)
  #expect(try names(store) == ["a.txt", "b.txt", "Info.plist", "p.txt"])
}

@Test(arguments: TestCatalogues.kinds) func aRootInsideANewRootStaysARootOfItsOwn(
  store kind: CatalogueStoreKind
)
  async throws
{
  let scratch = try TemporaryDirectory()
  try scratch.write("top/inner/a.txt", Array("a\n".utf8))
  try scratch.write("top/b.txt", Array("b\n".utf8))
  let store = try makeStore(scratch, kind)
  _ = try await index(store, scratch.path + "/top/inner")
  let outer = try await index(store, scratch.path + "/top")
  #expect((outer.files, outer.added, outer.unchanged, outer.removed) == (1, 1, 0, 0))
  #expect(outer.coveredRoots == [RawPath(scratch.path + "/top/inner")])
  #expect(
    try store.roots().map(\.path) == [RawPath(scratch.path + "/top"), RawPath(scratch.path + "/top/inner")])
  #expect(
    try store.entry(path: RawPath(scratch.path + "/top/inner/a.txt"))?.root
      == RawPath(scratch.path + "/top/inner"))
}

@Test func excludeRuleForms() {
  let rules = ExcludeRules(patterns: ["*.tmp", "Library/Caches", "/top.txt", "build/"])
  func excluded(_ path: String, directory: Bool = false) -> Bool {
    let bytes = Array(path.utf8)
    let name = Array(path.split(separator: "/").last.map(String.init)?.utf8 ?? "".utf8)
    return rules.excludes(relative: bytes, name: name, isDirectory: directory)
  }
  #expect(excluded("deep/down/x.tmp"))
  #expect(excluded("Library/Caches", directory: true))
  #expect(!excluded("Other/Library/Caches", directory: true))
  #expect(excluded("top.txt"))
  #expect(!excluded("sub/top.txt"))
  #expect(excluded("a/build", directory: true))
  #expect(!excluded("a/build"))
  var nested = ExcludeRules()
  nested.addIgnoreFile(Array("# comment\n\n*.log\r\nprivate/\n".utf8), base: Array("docs".utf8))
  #expect(nested.excludes(relative: Array("docs/x.log".utf8), name: Array("x.log".utf8), isDirectory: false))
  #expect(
    !nested.excludes(relative: Array("other/x.log".utf8), name: Array("x.log".utf8), isDirectory: false))
  #expect(
    nested.excludes(relative: Array("docs/a/private".utf8), name: Array("private".utf8), isDirectory: true))
}

extension CatalogStore {
  /// The SQLite connection of a SQLite catalogue (for tests of SQLite's own files).
  var db: SQLiteConnection { (engine as! SQLiteEngine).db }

  /// Runs SQL on the catalogue's database, whichever store holds it (to age rows).
  fileprivate func execute(_ sql: String) throws {
    switch location {
    case .file: try db.execute(sql)
    case .postgres(let url): try TestCatalogues.psql(url.connectionString, sql)
    }
  }
}
