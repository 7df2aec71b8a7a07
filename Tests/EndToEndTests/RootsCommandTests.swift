import Foundation
import ShelfTestSupport
import Testing

@Suite struct RootsCommandTests {
  /// A catalogue of two small roots, `one` (a.txt, b.tmp) and `two` (c.txt), in a scratch folder.
  private struct TwoRoots {
    let scratch: TemporaryDirectory
    let database: String
    var one: String { scratch.path + "/one" }
    var two: String { scratch.path + "/two" }

    init(_ store: CatalogueStoreKind = .sqlite) throws {
      scratch = try TemporaryDirectory()
      database = try TestCatalogues.location(store, in: scratch.path)
      _ = try scratch.write("one/a.txt", Array("alpha\n".utf8))
      _ = try scratch.write("one/b.tmp", Array("temporary\n".utf8))
      _ = try scratch.write("two/c.txt", Array("gamma\n".utf8))
    }

    func run(_ arguments: [String], environment: [String: String] = [:]) throws -> ShelfResult {
      try ShelfProcess.run(["--db", database] + arguments, environment: environment)
    }

    func listed() throws -> [String] {
      try run(["ls", "-0"]).stdoutBytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }
  }

  @Test(arguments: TestCatalogues.kinds) func rootsListsFilesSizeLastScanAndExcludes(
    store: CatalogueStoreKind
  ) throws {
    let sample = try TwoRoots(store)
    #expect(try sample.run(["index", "--exclude", "*.tmp", "--exclude", "cache/", sample.one]).status == 0)
    #expect(try sample.run(["index", sample.two]).status == 0)
    let result = try sample.run(["roots", "--json"])
    #expect(result.status == 0)
    let roots = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [[String: Any]])
    #expect(roots.map { $0["path"] as? String } == [sample.one, sample.two])
    #expect(roots.map { $0["files"] as? Int } == [1, 1])
    #expect(roots.map { $0["size"] as? Int } == [6, 6])
    #expect(roots.map { ($0["excludes"] as? [String]) ?? ["?"] } == [["*.tmp", "cache/"], []])
    #expect(roots.allSatisfy { ($0["last_scan"] as? String)?.hasSuffix("Z") == true })
    #expect(roots.map { $0["folder_gone"] as? Bool } == [false, false])
    let text = try sample.run(["roots"]).stdout.split(separator: "\n").map(String.init)
    #expect(
      text.first?.split(separator: " ", omittingEmptySubsequences: true) == [
        "root", "files", "size", "last", "scan", "excludes",
      ])
    #expect(text[1].hasPrefix(sample.one + " ") && text[1].hasSuffix(" *.tmp cache/"))
    #expect(text.count == 3)
  }

  @Test(arguments: TestCatalogues.kinds) func excludesStayWithTheRootUntilReplaced(store: CatalogueStoreKind)
    throws
  {
    let sample = try TwoRoots(store)
    #expect(try sample.run(["index", "--exclude", "*.tmp", sample.one]).status == 0)
    // Rescans, with or without naming the root, keep skipping what was excluded.
    #expect(try sample.run(["index"]).stdout.contains("1 excluded"))
    #expect(try sample.run(["index", sample.one]).stdout.contains("1 excluded"))
    #expect(try sample.listed() == [sample.one + "/a.txt"])
    #expect(try sample.run(["index", "--exclude", "*.txt", sample.one]).status == 0)
    #expect(try sample.listed() == [sample.one + "/b.tmp"])
    #expect(try sample.run(["index", "--exclude", "", sample.one]).status == 0)
    #expect(try sample.listed() == [sample.one + "/a.txt", sample.one + "/b.tmp"])
    let withoutRoot = try sample.run(["index", "--exclude", "*.tmp"])
    #expect(withoutRoot.status == 64)
    #expect(
      withoutRoot.stderr.hasPrefix(
        "error: --exclude needs a ROOT: patterns are stored with the roots named\n"))
  }

  @Test(arguments: TestCatalogues.kinds) func forgetDropsTheRootAndItsEntriesNotTheFiles(
    store: CatalogueStoreKind
  ) throws {
    let sample = try TwoRoots(store)
    #expect(try sample.run(["index", sample.one]).status == 0)
    #expect(try sample.run(["index", sample.two]).status == 0)
    let result = try sample.run(["forget", sample.one])
    #expect(result.status == 0)
    #expect(result.stdout == "\(sample.one): forgot the root and its 2 entries\n")
    #expect(try sample.listed() == [sample.two + "/c.txt"])
    #expect(
      try sample.run(["roots", "--json"]).stdout.hasPrefix("[{\"path\":\"\(sample.two)\",\"files\":1,"))
    #expect(FileManager.default.contents(atPath: sample.one + "/a.txt") == Data("alpha\n".utf8))
    let unknown = try sample.run(["forget", sample.one])
    #expect(unknown.status == 66)
    #expect(unknown.stderr == "error: \(sample.one): not a catalogued root (see `shelf roots`)\n")
    let mixed = try sample.run(["forget", sample.one, sample.two])
    #expect(mixed.status == 1)
    #expect(try sample.listed().isEmpty)
  }

  @Test(arguments: TestCatalogues.kinds) func aRootWhoseFolderIsGoneIsSkippedUntilPruned(
    store: CatalogueStoreKind
  ) throws {
    let sample = try TwoRoots(store)
    #expect(try sample.run(["index", sample.one]).status == 0)
    #expect(try sample.run(["index", sample.two]).status == 0)
    try FileManager.default.removeItem(atPath: sample.one)
    let rescan = try sample.run(["index"])
    #expect(rescan.status == 1)
    #expect(
      rescan.stderr
        == "warning: \(sample.one): folder is gone; skipped (its entries stay until 'shelf forget' or 'index --prune')\n"
    )
    #expect(rescan.stdout.hasPrefix("\(sample.two): 1 file"))
    #expect(try sample.listed() == [sample.one + "/a.txt", sample.one + "/b.tmp", sample.two + "/c.txt"])
    #expect(try sample.run(["roots", "--json"]).stdout.contains("\"folder_gone\":true"))
    let pruned = try sample.run(["index", "--prune"])
    #expect(pruned.status == 0)
    #expect(pruned.stdout.hasPrefix("\(sample.one): folder is gone; forgot the root and its 2 entries\n"))
    #expect(try sample.listed() == [sample.two + "/c.txt"])
  }

  /// One writer at a time in a SQLite catalogue (a PostgreSQL one locks each root: see
  /// `PostgresCatalogueTests`).
  @Test func forgetIsAWriterAndWaitsForTheLock() throws {
    let sample = try TwoRoots()
    for n in 0..<200 { _ = try sample.scratch.write("one/many/\(n).txt", Array("\(n)\n".utf8)) }
    #expect(try sample.run(["index", sample.two]).status == 0)
    let writer = try BackgroundShelf(
      ["--db", sample.database, "index", sample.one],
      environment: ["SHELF_INDEX_BATCH": "10", "SHELF_INDEX_PAUSE": "0.3"])
    defer {
      writer.kill(SIGKILL)
      _ = writer.wait()
    }
    // Wait until the writer has committed its first batch (it holds the lock from the start).
    var waited = 0
    while try sample.listed().count < 2 && waited < 300 {
      usleep(20_000)
      waited += 1
    }
    let busy = try sample.run(["forget", sample.two], environment: ["SHELF_LOCK_WAIT": "0.2"])
    #expect(busy.status == 75)
    #expect(try sample.listed().contains(sample.two + "/c.txt"))
  }
}
