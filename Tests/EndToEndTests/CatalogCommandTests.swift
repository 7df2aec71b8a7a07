import Foundation
import ShelfTestSupport
import Testing

@Suite struct CatalogCommandTests {
  /// `ls --json` of a catalogue, as bytes.
  private func listing(_ database: String, _ query: [String] = []) throws -> [UInt8] {
    try ShelfProcess.run(["--db", database, "ls", "--json"] + query).stdoutBytes
  }

  @Test(arguments: TestCatalogues.kinds) func copyThereAndBackKeepsEveryEntryAndItsFacts(
    through store: CatalogueStoreKind
  ) throws {
    let sample = try IndexedSample()
    let middleFolder = try TemporaryDirectory()
    let middle = try TestCatalogues.location(store, in: middleFolder.path)
    let there = try ShelfProcess.run(["catalog", "copy", sample.database, middle])
    #expect(there.status == 0)
    let count = SampleMediaManifest.entries.count
    #expect(there.stdout == "\(sample.database) → \(middle): copied \(count) entries\n")
    let back = sample.scratch.path + "/back.sqlite"
    #expect(try ShelfProcess.run(["catalog", "copy", middle, back]).status == 0)
    for query in [[], ["chord"], ["kind:audio", "--sort", "duration:desc"], ["name:*.PNG"]] {
      let original = try listing(sample.database, query)
      #expect(try listing(middle, query) == original, "\(query)")
      #expect(try listing(back, query) == original, "\(query)")
    }
    #expect(
      try ShelfProcess.run(["--db", back, "roots", "--json"]).stdout
        == (try sample.run(["roots", "--json"]).stdout))
    // The copy's next scan reads nothing again.
    let rescan = try ShelfProcess.run(["--db", back, "index", sample.root])
    #expect(rescan.stdout.hasPrefix("\(sample.root): \(count) files\n  0 new, 0 updated, \(count) unchanged"))
  }

  @Test(arguments: TestCatalogues.kinds) func aCatalogueThatIsNotEmptyIsRefusedAndLeftAsItWas(
    store: CatalogueStoreKind
  ) throws {
    let sample = try IndexedSample()
    let other = try TemporaryDirectory()
    _ = try other.write("m/a.txt", Array("alpha\n".utf8))
    let destination = try TestCatalogues.location(store, in: other.path)
    #expect(try ShelfProcess.run(["--db", destination, "index", other.path + "/m"]).status == 0)
    let before = try listing(destination)
    let file = store == .sqlite ? FileManager.default.contents(atPath: destination) : nil
    let result = try ShelfProcess.run(["catalog", "copy", sample.database, destination])
    #expect(result.status == 73)
    #expect(
      result.stderr
        == "error: \(store == .sqlite ? destination : "catalogue " + destination): the catalogue is not empty: a copy goes into a new or empty catalogue only\n"
    )
    #expect(try listing(destination) == before)
    if store == .sqlite { #expect(FileManager.default.contents(atPath: destination) == file) }
  }

  @Test func unknownActionsAreUsageErrors() throws {
    let result = try ShelfProcess.run(["catalog", "move", "a.sqlite", "b.sqlite"])
    #expect(result.status == 64)
    #expect(result.stderr.hasPrefix("error: unknown action 'move': expected 'copy'"))
  }
}
