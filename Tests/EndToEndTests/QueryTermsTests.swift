import Foundation
import ShelfTestSupport
import Testing

/// One query language (issue 22, item 4): `ls`, `stats`, `extract` and `play` take the same
/// terms, a term naming a field is never a file name, mistakes are usage errors that point
/// at the fix, and bare words rank alike on SQLite and PostgreSQL.
@Suite struct QueryTermsTests {
  /// A root with two sounds (one under Documents/), a text file that mentions holiday and
  /// one that does not, indexed into a SQLite catalogue.
  static func catalogue() throws -> IndexedRoot {
    try IndexedRoot { folder, _ in
      try folder.makeDirectory("root/Documents")
      try folder.makeDirectory("root/Other")
      _ = try AudioE2E.makeSignal(folder, "root/Documents/a.wav", seconds: 0.2)
      _ = try AudioE2E.makeSignal(folder, "root/Other/b.wav", seconds: 0.2, channels: 1)
      try folder.write("root/notes/holiday.txt", Array("beach and sun\n".utf8))
      try folder.write("root/notes/work.txt", Array("meetings\n".utf8))
    }
  }

  /// The `start` events of `play --json`, by path.
  private func started(_ result: ShelfResult) -> [String] {
    result.stdout.split(separator: "\n").compactMap { line in
      guard line.contains("\"event\":\"start\""),
        let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      else { return nil }
      return object["path"] as? String
    }
  }

  @Test func playTakesRootAndPathTermsWithSlashesAsQueryTerms() throws {
    let catalogue = try Self.catalogue()
    let root = catalogue.root
    let result = try catalogue.run([
      "play", "-D", "null", "--json", "root:\(root)", "path:\(root)/Documents/*",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.isEmpty)
    #expect(started(result) == ["\(root)/Documents/a.wav"])
    // A file given by its path still plays as a file.
    let file = try catalogue.run(["play", "-D", "null", "--json", "\(root)/Other/b.wav"])
    #expect(file.status == 0, "\(file.stderr)")
    #expect(started(file) == ["\(root)/Other/b.wav"])
  }

  /// The commands that take a query.
  static let queryCommands = ["ls", "stats", "extract", "play"]

  /// `name` with what it needs besides its query: extract an output folder (in the scratch
  /// folder, which a query that matched would fill).
  private func invocation(_ name: String, _ catalogue: IndexedRoot) -> [String] {
    name == "extract" ? [name, "-o", catalogue.folder.path + "/out"] : [name]
  }

  @Test(arguments: queryCommands) func anUnknownValueOfAFixedListFieldIsAUsageErrorWithASuggestion(
    name: String
  ) throws {
    let catalogue = try Self.catalogue()
    let command = invocation(name, catalogue)
    let kind = try catalogue.run(command + ["kind:imag"])
    #expect(kind.status == 64)
    #expect(kind.stderr == "error: field 'kind' has no value 'imag' (did you mean 'image'?)\n")
    #expect(kind.stdout.isEmpty)
    let area = try catalogue.run(command + ["-area:docs"])
    #expect(area.status == 64)
    #expect(area.stderr == "error: field 'area' has no value 'docs' (did you mean 'documents'?)\n")
    let nothingNear = try catalogue.run(command + ["endings:unix"])
    #expect(nothingNear.status == 64)
    #expect(
      nothingNear.stderr
        == "error: field 'endings' has no value 'unix' (it takes lf, crlf, cr, mixed, none)\n")
  }

  @Test(arguments: queryCommands) func aDashWordIsAnUnknownOptionThatSaysHowToExcludeIt(name: String) throws {
    let catalogue = try Self.catalogue()
    let result = try catalogue.run(invocation(name, catalogue) + ["-holiday"])
    #expect(result.status == 64)
    let usage = [
      "ls": "shelf ls [<options>] [<query> ...]", "stats": "shelf stats [<options>] [<query> ...]",
      "extract": "shelf extract [<options>] <query> ...", "play": "shelf play [<options>] <item> ...",
    ]
    #expect(
      result.stderr == """
        error: unknown option '-holiday'; to exclude a word, write -- -holiday
        usage: \(usage[name]!)
        hint: run 'shelf \(name) --help' for more information

        """)
    #expect(result.stdout.isEmpty)
    #expect(!FileManager.default.fileExists(atPath: catalogue.folder.path + "/out"))
  }

  @Test func aDashWordAfterDoubleDashExcludesIt() throws {
    let catalogue = try Self.catalogue()
    let result = try catalogue.run(["ls", "-0", "kind:text", "--", "-holiday"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout == "\(catalogue.root)/notes/work.txt\u{0}")
    // Grouped flags are still flags.
    let flags = try catalogue.run(["ls", "-l0", "kind:text"])
    #expect(flags.status == 0)
    #expect(flags.stdout == "\(catalogue.root)/notes/holiday.txt\u{0}\(catalogue.root)/notes/work.txt\u{0}")
  }

  @Test func statsCountsTheEntriesOfAQueryAndListsTheirRoots() throws {
    let catalogue = try Self.catalogue()
    try catalogue.folder.write("elsewhere/readme.txt", Array("hello\n".utf8))
    #expect(try catalogue.run(["index", catalogue.folder.path + "/elsewhere"]).status == 0)
    let result = try catalogue.run(["stats", "--json", "kind:audio", "-name:b.wav"])
    #expect(result.status == 0, "\(result.stderr)")
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any])
    #expect(object["files"] as? Int == 1)
    let kinds = try #require(object["by_kind"] as? [String: [String: Any]])
    #expect(Array(kinds.keys) == ["audio"])
    #expect(kinds["audio"]?["files"] as? Int == 1)
    let roots = try #require(object["roots"] as? [[String: Any]])
    #expect(roots.map { $0["path"] as? String } == [catalogue.root])
    // Nothing matches: the empty summary, exit 1 as for ls.
    let none = try catalogue.run(["stats", "--json", "kind:video"])
    #expect(none.status == 1)
    let empty = try #require(try JSONSerialization.jsonObject(with: Data(none.stdoutBytes)) as? [String: Any])
    #expect(empty["files"] as? Int == 0)
    #expect((empty["roots"] as? [[String: Any]])?.isEmpty == true)
    // Without terms, everything, and every root.
    let all = try catalogue.run(["stats", "--json"])
    let everything = try #require(
      try JSONSerialization.jsonObject(with: Data(all.stdoutBytes)) as? [String: Any])
    #expect(everything["files"] as? Int == 5)
    #expect((everything["roots"] as? [[String: Any]])?.count == 2)
  }

  /// Files that bare words find in each way shelf ranks: in the name, in the text (short and
  /// longer ones), in the path alone.
  static func rankingFolder(_ scratch: TemporaryDirectory) throws -> String {
    let texts = [
      "notes/a.txt": "recording documents\n",
      "notes/b.txt": "documents of the recording session "
        + String(repeating: "lorem ipsum dolor sit amet ", count: 3) + "recording recording documents\n",
      "notes/c.txt": "the documents " + String(repeating: "word ", count: 40) + " recording\n",
      "notes/recording-documents.txt": "nothing here\n",
      "recording/documents/z.txt": "plain\n",
      "notes/unrelated.txt": "documents only\n",
    ]
    for (name, text) in texts { try scratch.write("root/" + name, Array(text.utf8)) }
    return scratch.path + "/root"
  }

  @Test(arguments: TestCatalogues.kinds) func bareWordsRankByShelfsOwnScoreOnEveryEngine(
    store: CatalogueStoreKind
  ) throws {
    let scratch = try TemporaryDirectory()
    let root = try Self.rankingFolder(scratch)
    let database = try TestCatalogues.location(store, in: scratch.path)
    #expect(try ShelfProcess.run(["--db", database, "index", root]).status == 0)
    func listed(_ arguments: [String]) throws -> [String] {
      let result = try ShelfProcess.run(["--db", database, "ls", "-0"] + arguments)
      return result.stdoutBytes.split(separator: 0).map {
        String(decoding: $0.dropFirst(root.utf8.count + 1), as: UTF8.self)
      }
    }
    // The name holds both words; then the texts that do, shortest first; then the path alone.
    let ranked = [
      "notes/recording-documents.txt", "notes/a.txt", "notes/b.txt", "notes/c.txt",
      "recording/documents/z.txt",
    ]
    #expect(try listed(["recording", "documents"]) == ranked)
    #expect(try listed(["recording", "documents", "--limit", "3"]) == Array(ranked.prefix(3)))
    #expect(try listed(["RECORDING", "Documents"]) == ranked)
  }

  @Test(.enabled(if: TestCatalogues.postgresURL != nil, Comment(rawValue: TestCatalogues.skipMessage)))
  func bareWordsListTheSameRecordsInTheSameOrderOnSQLiteAndPostgreSQL() throws {
    let scratch = try TemporaryDirectory()
    let root = try Self.rankingFolder(scratch)
    var listings: [String] = []
    for store in [CatalogueStoreKind.sqlite, .postgres] {
      let database = try TestCatalogues.location(store, in: scratch.path)
      #expect(try ShelfProcess.run(["--db", database, "index", root]).status == 0)
      let result = try ShelfProcess.run([
        "--db", database, "ls", "--format", "{path} {kind} {size} {lines} {words}", "recording", "documents",
      ])
      #expect(result.status == 0, "\(result.stderr)")
      listings.append(result.stdout)
    }
    #expect(listings[0].split(separator: "\n").count == 5)
    #expect(listings[0] == listings[1])
  }
}
