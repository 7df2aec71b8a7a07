import Foundation
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A shared catalogue on the PostgreSQL test server (`SHELF_TEST_POSTGRES_URL`): several
/// indexers, several hosts, and the faults a server brings (unreachable, gone mid-scan, a
/// database that is someone else's), with passwords never shown.
@Suite(.enabled(if: TestCatalogues.postgresURL != nil, Comment(rawValue: TestCatalogues.skipMessage)))
struct PostgresCatalogueTests {
  /// A folder of `count` small text files in `scratch`.
  private func folder(_ scratch: TemporaryDirectory, _ name: String, count: Int) throws -> String {
    for index in 0..<count { _ = try scratch.write("\(name)/n\(index).txt", Array("note \(index)\n".utf8)) }
    return scratch.path + "/" + name
  }

  private func listed(_ database: String) throws -> Int {
    try ShelfProcess.run(["--db", database, "ls", "-0"]).stdoutBytes.filter { $0 == 0 }.count
  }

  @Test func aSecondIndexerOfTheSameRootExits75WhileReadersKeepWorking() throws {
    let scratch = try TemporaryDirectory()
    let root = try folder(scratch, "many", count: 200)
    let database = try TestCatalogues.createDatabase()
    let first = try BackgroundShelf(
      ["--db", database, "index", root], environment: ["SHELF_INDEX_BATCH": "10", "SHELF_INDEX_PAUSE": "0.3"])
    defer {
      first.kill(SIGKILL)
      _ = first.wait()
    }
    #expect(try ObservableWait.until { try listed(database) > 0 })
    let second = try ShelfProcess.run(
      ["--db", database, "index", root], environment: ["SHELF_LOCK_WAIT": "0.5"])
    #expect(second.status == 75)
    #expect(
      second.stderr
        == "error: \(root): catalogue is busy: another `shelf index` or `shelf forget` is writing it (try again when it has finished)\n"
    )
    #expect(second.stdout.isEmpty)
    // A reader is not held up by the writer; forgetting the root waits for it like an indexer.
    #expect(try ShelfProcess.run(["--db", database, "stats"]).status == 0)
    let forget = try ShelfProcess.run(
      ["--db", database, "forget", root], environment: ["SHELF_LOCK_WAIT": "0.2"])
    #expect(forget.status == 75)
    #expect(try listed(database) > 0)
  }

  @Test func aFolderHoldingARootBeingIndexedLeavesItToItsIndexer() throws {
    let scratch = try TemporaryDirectory()
    let inner = try folder(scratch, "outer/inner", count: 200)
    let database = try TestCatalogues.createDatabase()
    let first = try BackgroundShelf(
      ["--db", database, "index", inner],
      environment: ["SHELF_INDEX_BATCH": "10", "SHELF_INDEX_PAUSE": "0.3"])
    defer {
      first.kill(SIGKILL)
      _ = first.wait()
    }
    #expect(try ObservableWait.until { try listed(database) > 0 })
    // The folder around it leaves the inner root to its own indexer, which goes on.
    let outer = try ShelfProcess.run(
      ["--db", database, "index", scratch.path + "/outer"], environment: ["SHELF_LOCK_WAIT": "0.2"])
    #expect(outer.status == 0)
    #expect(outer.stderr == "\(inner): already a root of its own; skipped here\n")
    #expect(outer.stdout.hasPrefix("\(scratch.path)/outer: 0 files\n"))
    #expect(first.process.isRunning)
    #expect(first.wait() == 0)
    #expect(try listed(database) == 200)
  }

  @Test func indexersOfDifferentRootsRunAtTheSameTime() throws {
    let scratch = try TemporaryDirectory()
    let slow = try folder(scratch, "slow", count: 100)
    let quick = try folder(scratch, "quick", count: 30)
    let database = try TestCatalogues.createDatabase()
    let first = try BackgroundShelf(
      ["--db", database, "index", slow], environment: ["SHELF_INDEX_BATCH": "10", "SHELF_INDEX_PAUSE": "0.2"])
    defer {
      first.kill(SIGKILL)
      _ = first.wait()
    }
    #expect(try ObservableWait.until { try listed(database) > 0 })
    let second = try ShelfProcess.run(
      ["--db", database, "index", quick], environment: ["SHELF_LOCK_WAIT": "0"])
    #expect(second.status == 0)
    #expect(second.stdout.hasPrefix("\(quick): 30 files\n  30 new"))
    // The first was still at work while the second ran, and finishes too.
    #expect(first.process.isRunning)
    #expect(first.wait() == 0)
    #expect(try listed(database) == 130)
  }

  @Test func anUnreachableServerExits69NamingTheCatalogue() throws {
    let result = try ShelfProcess.run(["--db", "postgresql://shelf@127.0.0.1:1/media", "ls"])
    #expect(result.status == 69)
    #expect(result.stderr == "error: catalogue postgresql://shelf@127.0.0.1:1/media: connection refused\n")
    let indexer = try ShelfProcess.run(
      ["index", "/nonexistent"], environment: ["SHELF_DB": "postgresql://shelf@127.0.0.1:1/media"])
    #expect(indexer.status == 69)
  }

  @Test func sslmodeReachesLibpq() throws {
    // libpq reads the parameter itself (over a Unix socket it would not use TLS at all): a
    // value it does not know is its error, named by the catalogue's URL.
    let admin = try #require(TestCatalogues.postgresURL)
    let url = admin + (admin.contains("?") ? "&" : "?") + "sslmode=sometimes"
    let result = try ShelfProcess.run(["--db", url, "ls"])
    #expect(result.status == 69)
    #expect(result.stderr == "error: catalogue \(url): invalid sslmode value: \"sometimes\"\n")
  }

  @Test func passwordsInTheURLAreMaskedInEveryMessage() throws {
    let refused = try ShelfProcess.run(["--db", "postgresql://shelf:s3cret@127.0.0.1:1/media", "stats"])
    #expect(refused.status == 69)
    #expect(
      refused.stderr == "error: catalogue postgresql://shelf:***@127.0.0.1:1/media: connection refused\n")
    // A server that answers, about a database it does not have, with the password as a parameter.
    let admin = try #require(TestCatalogues.postgresURL)
    let missing =
      TestCatalogues.url(admin, database: "no_such_catalogue") + (admin.contains("?") ? "&" : "?")
      + "password=s3cret"
    let result = try ShelfProcess.run(["--db", missing, "ls"])
    #expect(result.status == 69)
    #expect(!result.stderr.contains("s3cret"))
    #expect(result.stderr.contains("password=***"))
    #expect(result.stderr.contains("\"no_such_catalogue\" does not exist"))
  }

  @Test func aServerGoneMidScanExits74KeepingWhatWasCommitted() throws {
    let scratch = try TemporaryDirectory()
    let root = try folder(scratch, "many", count: 300)
    let database = try TestCatalogues.createDatabase()
    let stderrPath = scratch.path + "/stderr"
    let indexer = try BackgroundShelf(
      ["--db", database, "index", root],
      environment: ["SHELF_INDEX_BATCH": "10", "SHELF_INDEX_PAUSE": "0.2"],
      stderrPath: stderrPath)
    defer {
      indexer.kill(SIGKILL)
      _ = indexer.wait()
    }
    #expect(try ObservableWait.until { try listed(database) >= 20 })
    // The server ends the indexer's session, as when it shuts down.
    try TestCatalogues.psql(
      database,
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
    )
    #expect(indexer.wait() == 74)
    let message = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
    #expect(message.hasPrefix("error: catalogue \(database): "))
    let kept = try listed(database)
    #expect(kept >= 20 && kept < 300 && kept % 10 == 0)
    // The next scan resumes: what was committed is unchanged.
    let rescan = try ShelfProcess.run(
      ["--db", database, "index", root], environment: ["SHELF_TRUST_WINDOW": "0"])
    #expect(rescan.status == 0)
    #expect(try listed(database) == 300)
  }

  @Test func theFullTextColumnsAreCompressedWithLZ4AndTheirWordsAreFound() throws {
    let scratch = try TemporaryDirectory()
    // Long enough for the server to compress the row's text (rows over 2 KB).
    let words = (0..<600).map { "word\($0)" }.joined(separator: " ")
    _ = try scratch.write("notes/long.txt", Array("\(words) quetzalcoatl\n".utf8))
    let database = try TestCatalogues.createDatabase()
    #expect(try ShelfProcess.run(["--db", database, "index", scratch.path + "/notes"]).status == 0)
    #expect(
      try TestCatalogues.psql(
        database,
        "SELECT string_agg(attname || '=' || attcompression::text, ',' ORDER BY attname) FROM pg_attribute WHERE attrelid = 'files'::regclass AND attname IN ('search', 'search_text')"
      ) == "search=l,search_text=l\n")
    #expect(
      try TestCatalogues.psql(database, "SELECT pg_column_compression(search_text) FROM files") == "lz4\n")
    let found = try ShelfProcess.run(["--db", database, "ls", "-0", "quetzalcoatl"])
    #expect(found.stdout == scratch.path + "/notes/long.txt\u{0}")
  }

  @Test func aDatabaseThatIsNotAShelfCatalogueIsRefusedAndLeftUntouched() throws {
    let scratch = try TemporaryDirectory()
    let root = try folder(scratch, "m", count: 2)
    let database = try TestCatalogues.createDatabase()
    try TestCatalogues.psql(
      database, "CREATE TABLE notes(id int, body text); INSERT INTO notes VALUES (1, 'keep me')")
    let inventory =
      "SELECT (SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE schemaname = 'public'), (SELECT string_agg(extname, ',' ORDER BY extname) FROM pg_extension), (SELECT string_agg(id || ':' || body, ',') FROM notes)"
    let before = try TestCatalogues.psql(database, inventory)
    for arguments in [["index", root], ["ls"], ["stats"], ["forget", root]] {
      let result = try ShelfProcess.run(["--db", database] + arguments)
      #expect(result.status == 65, "\(arguments)")
      #expect(result.stderr == "error: catalogue \(database): not a shelf catalogue\n", "\(arguments)")
    }
    #expect(try TestCatalogues.psql(database, inventory) == before)
    #expect(before == "notes|plpgsql|1:keep me\n")
  }

  @Test func rootsOfSeveralHostsAreNamedHostColonPath() throws {
    let scratch = try TemporaryDirectory()
    let mine = try folder(scratch, "mine", count: 1)
    let theirs = try folder(scratch, "theirs", count: 1)
    let database = try TestCatalogues.createDatabase()
    let alpha = ["SHELF_HOST": "alpha"]
    #expect(try ShelfProcess.run(["--db", database, "index", mine], environment: alpha).status == 0)
    // One host: listings are as in a SQLite catalogue.
    #expect(
      try ShelfProcess.run(["--db", database, "ls", "-0"], environment: alpha).stdout == "\(mine)/n0.txt\0")
    #expect(
      try ShelfProcess.run(["--db", database, "ls", "note"], environment: alpha).stdout.hasPrefix(
        "\(mine)/n0.txt  "))
    #expect(
      try ShelfProcess.run(["--db", database, "index", theirs], environment: ["SHELF_HOST": "beta"]).status
        == 0)
    let table = try ShelfProcess.run(["--db", database, "ls", "note"], environment: alpha).stdout
    #expect(table.hasPrefix("alpha:\(mine)/n0.txt   text"))
    #expect(table.contains("\nbeta:\(theirs)/n0.txt  text"))
    let roots = try ShelfProcess.run(["--db", database, "roots"], environment: alpha).stdout
    #expect(roots.contains("\nalpha:\(mine) "))
    #expect(roots.contains("\nbeta:\(theirs) "))
    let json = try ShelfProcess.run(["--db", database, "ls", "--jsonl", "name:n0.txt"], environment: alpha)
      .stdout
    #expect(json.hasPrefix("{\"host\":\"alpha\",\"path\":\"\(mine)/n0.txt\""))
    // A host rescans, resolves and forgets its own roots only.
    let rescan = try ShelfProcess.run(["--db", database, "index"], environment: alpha)
    #expect(rescan.stdout.hasPrefix("\(mine): 1 file\n"))
    #expect(!rescan.stdout.contains(theirs))
    #expect(try ShelfProcess.run(["--db", database, "forget", theirs], environment: alpha).status == 66)
    #expect(
      try ShelfProcess.run(["--db", database, "forget", theirs], environment: ["SHELF_HOST": "beta"]).status
        == 0)
  }

  @Test func anOlderSchemaIsRefusedByReadersAndMigratedByTheNextIndexer() throws {
    let scratch = try TemporaryDirectory()
    let root = try folder(scratch, "m", count: 3)
    let database = try TestCatalogues.createDatabase()
    #expect(try ShelfProcess.run(["--db", database, "index", root]).status == 0)
    // Back to schema 6: without the columns schemas 7, 8, 9, 11 and 15 added.
    let laterColumns = [
      "codec", "bitrate", "album_artist", "disc", "disc_total", "track_total", "artwork", "frame_rate",
      "rotation", "audio_codec", "taken", "camera", "lens", "orientation", "gps_lat", "gps_lon", "gps_alt",
      "software", "content_id", "live_photo", "live_photo_text", "loop_count", "rg_track_gain",
      "rg_track_peak", "rg_album_gain", "rg_album_peak",
    ]
    try TestCatalogues.psql(
      database,
      "ALTER TABLE files " + laterColumns.map { "DROP COLUMN \($0)" }.joined(separator: ", ")
        + "; ALTER TABLE roots DROP COLUMN parent_id; UPDATE meta SET value = '6' WHERE key = 'schema_version'"
    )
    let reader = try ShelfProcess.run(["--db", database, "ls"])
    #expect(reader.status == 65)
    #expect(reader.stderr.contains(": the catalogue has schema 6, older than this shelf's schema"))
    #expect(try TestCatalogues.psql(database, "SELECT value FROM meta WHERE key = 'schema_version'") == "6\n")
    let writer = try ShelfProcess.run(
      ["--db", database, "index", root], environment: ["SHELF_TRUST_WINDOW": "0"])
    #expect(writer.status == 0)
    #expect(try listed(database) == 3)
    let columns = try TestCatalogues.psql(
      database,
      "SELECT count(*) FROM information_schema.columns WHERE table_name = 'files' AND column_name IN ("
        + laterColumns.map { "'\($0)'" }.joined(separator: ", ") + ")")
    #expect(columns == "\(laterColumns.count)\n")
    #expect(try TestCatalogues.psql(database, "SELECT value FROM meta WHERE key = 'schema_version'") != "6\n")
  }

  @Test func schema12GainsThePathOrderIndexesAndLimitedListingsKeepTheirRows() throws {
    let scratch = try TemporaryDirectory()
    // Names out of the order they are written in, with sizes 100 to 159 bytes.
    for index in 0..<60 {
      let name = "p\((index * 37) % 60).txt"
      _ = try scratch.write("m/\(name)", Array(String(repeating: "n", count: 99 + index).utf8) + [10])
    }
    let root = scratch.path + "/m"
    let database = try TestCatalogues.createDatabase()
    let file = scratch.path + "/same.sqlite"
    for catalogue in [database, file] {
      #expect(try ShelfProcess.run(["--db", catalogue, "index", root]).status == 0)
    }
    let queries = [["kind:text"], ["size:0.11K..140"], ["size>120.5"], ["size:120"]]
    func listings(_ catalogue: String) throws -> [[String]] {
      try queries.flatMap { query in
        try [["--limit", "7"], []].map { limit in
          try ShelfProcess.run(["--db", catalogue, "ls", "-0"] + query + limit).stdout.split(
            separator: "\0"
          ).map(String.init)
        }
      }
    }
    // Back to schema 12's indexes, without those of schema 13: the rows listed through them,
    // then the schema version.
    try TestCatalogues.psql(
      database,
      "DROP INDEX files_kind_path; DROP INDEX files_size_path; CREATE INDEX files_size ON files (size); "
        + "DROP TABLE replay_gains; ALTER TABLE files DROP COLUMN rg_track_gain, DROP COLUMN rg_track_peak, "
        + "DROP COLUMN rg_album_gain, DROP COLUMN rg_album_peak")
    let before = try listings(database)
    try TestCatalogues.psql(database, "UPDATE meta SET value = '12' WHERE key = 'schema_version'")
    #expect(try ShelfProcess.run(["--db", database, "ls"]).status == 65)
    #expect(
      try ShelfProcess.run(["--db", database, "index", root], environment: ["SHELF_TRUST_WINDOW": "0"]).status
        == 0)
    #expect(
      try TestCatalogues.psql(database, "SELECT value FROM meta WHERE key = 'schema_version'") == "17\n")
    // Schema 14's table of content hashes (shelf dupes) is there, empty, and schema 15's of
    // measured gains (shelf gain) with the columns of the tag gains.
    #expect(try TestCatalogues.psql(database, "SELECT count(*) FROM content_hashes") == "0\n")
    #expect(try TestCatalogues.psql(database, "SELECT count(*) FROM replay_gains") == "0\n")
    #expect(try TestCatalogues.psql(database, "SELECT count(rg_track_gain) FROM files") == "0\n")
    let indexes = try TestCatalogues.psql(
      database,
      "SELECT indexname FROM pg_indexes WHERE indexname IN ('files_kind_path', 'files_size', 'files_size_path') ORDER BY 1"
    )
    #expect(indexes == "files_kind_path\nfiles_size_path\n")
    let listed = try listings(database)
    #expect(listed == before)
    let expected = (0..<60).map { "\(root)/p\($0).txt" }.sorted {
      Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8))
    }
    #expect(listed[1] == expected)
    for pair in stride(from: 0, to: listed.count, by: 2) {
      #expect(listed[pair] == Array(listed[pair + 1].prefix(7)))
      #expect(!listed[pair + 1].isEmpty && listed[pair + 1].count < 60 || pair == 0)
    }
    #expect(listed == (try listings(file)))
  }

  @Test func aRoleThatMayNotCreateTheExtensionsIsToldWhoCan() throws {
    let scratch = try TemporaryDirectory()
    let root = try folder(scratch, "m", count: 1)
    let database = try TestCatalogues.createDatabase()
    let role = "shelf_limited_\(getpid())"
    try TestCatalogues.psql(database, "CREATE ROLE \(role) LOGIN")
    defer { _ = try? TestCatalogues.psql(database, "DROP ROLE \(role)") }
    let limited = database + (database.contains("?") ? "&" : "?") + "user=\(role)"
    let result = try ShelfProcess.run(["--db", limited, "index", root])
    #expect(result.status == 77)
    #expect(
      result.stderr
        == "error: catalogue \(limited): cannot create the extensions unaccent and pg_trgm (permission denied to create extension \"unaccent\"); have the database's owner or a superuser run CREATE EXTENSION unaccent; CREATE EXTENSION pg_trgm; in it\n"
    )
    #expect(
      try TestCatalogues.psql(database, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") == "0\n"
    )
  }

  @Test func aCatalogueOfSeveralHostsIsNotCopiedIntoSQLite() throws {
    let scratch = try TemporaryDirectory()
    let mine = try folder(scratch, "mine", count: 1)
    let theirs = try folder(scratch, "theirs", count: 1)
    let database = try TestCatalogues.createDatabase()
    #expect(
      try ShelfProcess.run(["--db", database, "index", mine], environment: ["SHELF_HOST": "alpha"]).status
        == 0)
    #expect(
      try ShelfProcess.run(["--db", database, "index", theirs], environment: ["SHELF_HOST": "beta"]).status
        == 0)
    let file = scratch.path + "/copy.sqlite"
    let result = try ShelfProcess.run(["catalog", "copy", database, file])
    #expect(result.status == 65)
    #expect(
      result.stderr
        == "error: \(file): a SQLite catalogue holds one machine's roots, and the source holds several machines'\n"
    )
    #expect(!FileManager.default.fileExists(atPath: file))
    // Into another shared catalogue, each root keeps its host.
    let copy = try TestCatalogues.createDatabase()
    #expect(try ShelfProcess.run(["catalog", "copy", database, copy]).status == 0)
    let roots = try ShelfProcess.run(["--db", copy, "roots"], environment: ["SHELF_HOST": "alpha"]).stdout
    #expect(roots.contains("\nalpha:\(mine) "))
    #expect(roots.contains("\nbeta:\(theirs) "))
  }

  @Test func aCopyIntoPostgreSQLLeavesThePlannerItsStatistics() throws {
    let scratch = try TemporaryDirectory()
    let root = try folder(scratch, "m", count: 3)
    let file = scratch.path + "/catalog.sqlite"
    #expect(try ShelfProcess.run(["--db", file, "index", root]).status == 0)
    let database = try TestCatalogues.createDatabase()
    #expect(try ShelfProcess.run(["catalog", "copy", file, database]).status == 0)
    // Three rows are far below autovacuum's threshold (50): only the copy's ANALYZE makes these.
    #expect(
      try TestCatalogues.psql(
        database, "SELECT count(*) > 0 FROM pg_stats WHERE tablename = 'files' AND attname = 'size'")
        == "t\n")
  }

  /// Creates a file whose name is `name`'s bytes (which need not be UTF-8) in `folder`.
  private func create(_ folder: String, _ name: [UInt8], _ content: String) -> [UInt8] {
    let path = Array((folder + "/").utf8) + name
    let fd = open(path.map { CChar(bitPattern: $0) } + [0], O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    _ = content.withCString { write(fd, $0, strlen($0)) }
    close(fd)
    return path
  }

  @Test func namesWithControlCharactersBackslashesAndBadUTF8RoundTripExactly() throws {
    let scratch = try TemporaryDirectory()
    let root = scratch.path + "/names"
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    let names: [[UInt8]] = [
      Array("tab\there.txt".utf8), Array("new\nline.txt".utf8), Array("carriage\rreturn.txt".utf8),
      Array("back\\slash\\N.txt".utf8), Array("quotes '\" and ?.txt".utf8), Array("\\x41.txt".utf8),
      Array("bad".utf8) + [0xFF, 0xFE, 0x80] + Array(".txt".utf8), [0xC3, 0x28, 0x09, 0x5C, 0x0A],
      Array("Crème brûlée.txt".utf8),
    ]
    let paths = names.map { create(root, $0, "words in a file\n") }
    let database = try TestCatalogues.createDatabase()
    let sqlite = scratch.path + "/catalog.sqlite"
    for store in [database, sqlite] {
      let result = try ShelfProcess.run(
        ["--db", store, "index", root], environment: ["SHELF_TRUST_WINDOW": "0"])
      #expect(result.status == 0)
    }
    let listed = try ShelfProcess.run(["--db", database, "ls", "-0"]).stdoutBytes.split(separator: 0).map(
      Array.init)
    #expect(
      listed.sorted { $0.lexicographicallyPrecedes($1) } == paths.sorted { $0.lexicographicallyPrecedes($1) })
    // Every field of every entry reads back as the SQLite catalogue has it.
    let json = try ShelfProcess.run(["--db", database, "ls", "--json"])
    #expect(json.status == 0)
    #expect(json.stdoutBytes == (try ShelfProcess.run(["--db", sqlite, "ls", "--json"])).stdoutBytes)
    // `info` of each name an argument can carry (valid UTF-8) finds the entry by its bytes.
    for path in paths {
      guard let name = String(validating: path, as: UTF8.self) else { continue }
      let info = try ShelfProcess.run(["--db", database, "info", "--json", name])
      #expect(info.status == 0)
      #expect(info.stdout == (try ShelfProcess.run(["--db", sqlite, "info", "--json", name])).stdout)
    }
  }

  @Test func fullTextFindsWordsWhateverTheirCaseAccentsOrDigits() throws {
    let scratch = try TemporaryDirectory()
    _ = try scratch.write(
      "words/note.txt", Array("Crème BRÛLÉE from Zürich, straße 1e4f ABC123 0x1F 12E3 résumé\n".utf8))
    _ = try scratch.write("words/other.txt", Array("nothing to see here\n".utf8))
    let database = try TestCatalogues.createDatabase()
    #expect(try ShelfProcess.run(["--db", database, "index", scratch.path + "/words"]).status == 0)
    let note = scratch.path + "/words/note.txt\n"
    for query in [
      "creme", "CRÈME", "brulee", "Brûl", "zurich", "strasse", "1e4f", "1e4", "abc123", "AbC1", "0x1f",
      "12e3",
      "resume", "RÉSUMÉ", "crème brûlée",
    ] {
      let result = try ShelfProcess.run(["--db", database, "ls", "--format", "{path}", query])
      #expect(result.stdout == note, "\(query)")
    }
    let none = try ShelfProcess.run(["--db", database, "ls", "--format", "{path}", "cremes"])
    #expect(none.status == 1)
    #expect(none.stdout.isEmpty)
  }

  /// In a database whose LC_CTYPE is Turkish the server lowercases `I` to a dotless `ı`; the
  /// words of queries are folded as the stored ones are, so capitals find what SQLite finds.
  @Test func aTurkishDatabaseFindsWordsWrittenWithCapitalI() throws {
    let scratch = try TemporaryDirectory()
    _ = try scratch.write("trip/plan.txt", Array("Visit Istanbul and IZMIR\n".utf8))
    let database = try TestCatalogues.createDatabase(characterType: "tr_TR.UTF-8")
    #expect(try ShelfProcess.run(["--db", database, "index", scratch.path + "/trip"]).status == 0)
    for query in ["istanbul", "Istanbul", "ISTANBUL", "izmir", "Izmir", "IZMIR", "visit istanbul"] {
      let result = try ShelfProcess.run(["--db", database, "ls", "--format", "{path}", query])
      #expect(result.stdout == scratch.path + "/trip/plan.txt\n", "\(query)")
    }
  }
}
