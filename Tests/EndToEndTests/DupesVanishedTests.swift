import Foundation
import ShelfTestSupport
import Testing

/// `shelf dupes` says what it could not compare and when it found nothing.
@Suite struct DupesVanishedTests {
  /// The paths of each group, as sets.
  private static func pathSets(_ stdout: [UInt8]) throws -> Set<Set<String>> {
    let groups = try #require(try JSONSerialization.jsonObject(with: Data(stdout)) as? [[String: Any]])
    return Set(
      groups.map { Set((($0["files"] as? [[String: Any]]) ?? []).compactMap { $0["path"] as? String }) })
  }

  @Test(arguments: TestCatalogues.kinds) func aFileGoneSinceTheIndexIsNamedAndTheRestGrouped(
    store: CatalogueStoreKind
  ) throws {
    let scratch = try TemporaryDirectory()
    let database = try TestCatalogues.location(store, in: scratch.path)
    let gpl3 = try Array(Data(contentsOf: URL(fileURLWithPath: "/usr/share/common-licenses/GPL-3")))
    let root = scratch.path + "/tree"
    _ = try scratch.write("tree/a/gpl3", gpl3)
    _ = try scratch.write("tree/b/gpl3 copy", gpl3)
    _ = try scratch.write("tree/b/c/gpl3", gpl3)
    _ = try scratch.write("tree/a/hello", Array("hello\n".utf8))
    _ = try scratch.write("tree/b/hello", Array("hello\n".utf8))
    _ = try scratch.write("tree/a/single", Array("only one\n".utf8))
    #expect(try ShelfProcess.run(["--db", database, "index", root]).status == 0)
    #expect(unlink(root + "/b/c/gpl3") == 0)
    #expect(unlink(root + "/a/hello") == 0)
    #expect(unlink(root + "/a/single") == 0)

    let result = try ShelfProcess.run(["--db", database, "dupes", "--json"])
    #expect(result.status == 0)
    // The two that had copies are named (smallest size first); the lone one had none.
    #expect(
      result.stderr
        == "warning: \(root)/a/hello: gone since it was catalogued; skipped\n"
        + "warning: \(root)/b/c/gpl3: gone since it was catalogued; skipped\n")
    #expect(try Self.pathSets(result.stdoutBytes) == [[root + "/a/gpl3", root + "/b/gpl3 copy"]])
  }

  @Test func noDuplicatesIsSaidOnStderrWithExitStatusOne() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.path + "/catalog.sqlite"
    let root = scratch.path + "/tree"
    _ = try scratch.write("tree/one", Array("one\n".utf8))
    _ = try scratch.write("tree/two", Array("two, not the same\n".utf8))
    _ = try scratch.write("tree/three", Array("three\n".utf8))
    #expect(try ShelfProcess.run(["--db", database, "index", root]).status == 0)

    let table = try ShelfProcess.run(["--db", database, "dupes"])
    #expect(table.status == 1)
    #expect(table.stdout == "")
    #expect(table.stderr == "no duplicates among 3 files\n")
    let json = try ShelfProcess.run(["--db", database, "dupes", "--json", "name:one"])
    #expect(json.status == 1)
    #expect(json.stdout == "[]\n")
    #expect(json.stderr == "no duplicates among 1 file\n")
    let action = try ShelfProcess.run(["--db", database, "dupes", "--link", "hard"])
    #expect(action.status == 1)
    #expect(action.stderr == "no duplicates among 3 files\n")
  }
}
