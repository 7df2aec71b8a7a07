import Foundation
import ShelfTestSupport
import Testing

/// Bare words in Chinese, Japanese and Greek (issue 44, item 8): a word inside a run of CJK
/// characters is found (`京都` in `東京都庁`), and Greek accents and case fold as Latin ones
/// do (`σαντορινη` finds `Σαντορίνη`), in SQLite and PostgreSQL catalogues alike; a catalogue
/// written before is migrated so that its texts are found the same way.
@Suite struct SearchFoldingTests {
  /// Texts whose words follow other characters, in files whose names hold none of them.
  static let texts: [(name: String, text: String)] = [
    ("ja.txt", "私は東京都庁で働いています。\n"),
    ("zh.txt", "这是会议记录和计划。\n"),
    ("el.txt", "Ταξίδι στη Σαντορίνη, ΟΔΟΣ ΑΓΙΟΥ\n"),
    ("fr.txt", "Un café à Paris\n"),
    ("plain.txt", "nothing to see\n"),
  ]

  private func makeRoot(_ folder: TemporaryDirectory) throws -> String {
    for (name, text) in Self.texts { try folder.write("root/" + name, Array(text.utf8)) }
    return folder.path + "/root"
  }

  /// The names `ls` lists for `words`, in order.
  private func found(_ database: String, _ words: [String]) throws -> [String] {
    let result = try ShelfProcess.run(["--db", database, "ls", "-0"] + words)
    // Nothing found is exit 1 with nothing listed.
    #expect(result.status == (result.stdout.isEmpty ? 1 : 0), "\(words): \(result.stderr)")
    return result.stdout.split(separator: "\0").map { String($0.split(separator: "/").last ?? "") }
  }

  private func expectFolded(_ database: String) throws {
    // Words inside a CJK run, at its end, and one character alone.
    #expect(try found(database, ["京都"]) == ["ja.txt"])
    #expect(try found(database, ["都庁"]) == ["ja.txt"])
    #expect(try found(database, ["東京都庁"]) == ["ja.txt"])
    #expect(try found(database, ["庁"]) == ["ja.txt"])
    #expect(try found(database, ["记录"]) == ["zh.txt"])
    #expect(try found(database, ["会议记录"]) == ["zh.txt"])
    #expect(try found(database, ["计划"]) == ["zh.txt"])
    // Characters that are in the text but not side by side are no word of it.
    #expect(try found(database, ["京庁"]) == [])
    #expect(try found(database, ["录会"]) == [])
    // Greek accents and case, final sigma included; Latin as before.
    #expect(try found(database, ["σαντορινη"]) == ["el.txt"])
    #expect(try found(database, ["ΣΑΝΤΟΡΙΝΗ"]) == ["el.txt"])
    #expect(try found(database, ["ταξιδι"]) == ["el.txt"])
    #expect(try found(database, ["οδος"]) == ["el.txt"])
    #expect(try found(database, ["αγιου"]) == ["el.txt"])
    #expect(try found(database, ["cafe"]) == ["fr.txt"])
    #expect(try found(database, ["CAFÉ"]) == ["fr.txt"])
    #expect(try found(database, ["nothing"]) == ["plain.txt"])
  }

  @Test(arguments: TestCatalogues.kinds) func cjkWordsInsideARunAndGreekWithoutAccentsAreFound(
    store: CatalogueStoreKind
  ) throws {
    let folder = try TemporaryDirectory()
    let root = try makeRoot(folder)
    let database = try TestCatalogues.location(store, in: folder.path)
    let indexed = try ShelfProcess.run(["--db", database, "index", root])
    #expect(indexed.status == 0, "\(indexed.stderr)")
    try expectFolded(database)
  }

  @Test func aSQLiteCatalogueOfSchema16IsRefoldedByTheNextWriter() throws {
    let folder = try TemporaryDirectory()
    let root = try makeRoot(folder)
    let database = folder.path + "/catalog.sqlite"
    let settled = ["SHELF_TRUST_WINDOW": "0"]
    #expect(try ShelfProcess.run(["--db", database, "index", root], environment: settled).status == 0)
    // Back to schema 16: the full text as it was stored then, the texts unfolded.
    var statements = ["PRAGMA user_version = 16;"]
    for (name, text) in Self.texts {
      statements.append(
        "UPDATE files_fts SET body = '\(text)' WHERE rowid = (SELECT id FROM files WHERE name = '\(name)');")
    }
    let sqlite = try ExternalTool.run(["sqlite3", database, statements.joined(separator: "\n")])
    #expect(sqlite.status == 0, "\(sqlite.stderr)")
    let reader = try ShelfProcess.run(["--db", database, "ls"])
    #expect(reader.status == 65)
    #expect(reader.stderr.contains("the catalogue has schema 16, older than this shelf's schema"))
    let writer = try ShelfProcess.run(["--db", database, "index", root], environment: settled)
    #expect(writer.status == 0, "\(writer.stderr)")
    #expect(writer.stdout.contains("0 new, 0 updated, 5 unchanged"), "\(writer.stdout)")
    try expectFolded(database)
  }

  @Test(.enabled(if: TestCatalogues.postgresURL != nil, Comment(rawValue: TestCatalogues.skipMessage)))
  func aPostgreSQLCatalogueOfSchema16IsRefoldedByTheNextWriter() throws {
    let folder = try TemporaryDirectory()
    let root = try makeRoot(folder)
    let database = try TestCatalogues.createDatabase()
    let settled = ["SHELF_TRUST_WINDOW": "0"]
    #expect(try ShelfProcess.run(["--db", database, "index", root], environment: settled).status == 0)
    // Back to schema 16: each row's words and vector as shelf 16 wrote them (the server
    // folding the words that are not ASCII).
    var statements = ["UPDATE meta SET value = '16' WHERE key = 'schema_version';"]
    for (name, text) in Self.texts {
      let words = text.unicodeScalars.split {
        !($0.properties.isAlphabetic || $0.properties.numericType != nil)
      }
      .map { String(String.UnicodeScalarView($0)) }.joined(separator: " ")
      statements.append(
        "UPDATE files SET search_text = '\(words)', search = to_tsvector('simple', unaccent('\(words)')) WHERE name = '\(name)';"
      )
    }
    try TestCatalogues.psql(database, statements.joined(separator: "\n"))
    #expect(try ShelfProcess.run(["--db", database, "ls"]).status == 65)
    let writer = try ShelfProcess.run(["--db", database, "index", root], environment: settled)
    #expect(writer.status == 0, "\(writer.stderr)")
    try expectFolded(database)
  }
}
