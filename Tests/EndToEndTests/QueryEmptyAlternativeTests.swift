import Foundation
import ShelfTestSupport
import Testing

/// An empty alternative in a query (issue 44, item 6): `kind:image,` once matched everything
/// that has a kind and `,kind:image` searched for the words "kind image", both silently. Each
/// is now a usage error (64) that quotes the term and says where the empty alternative lies,
/// in every command that takes a query, before anything is listed, written or moved.
@Suite struct QueryEmptyAlternativeTests {
  /// A root with a sound, a picture and a text file, indexed into a SQLite catalogue.
  static func catalogue() throws -> IndexedRoot {
    try IndexedRoot { folder, _ in
      _ = try AudioE2E.makeSignal(folder, "root/a.wav", seconds: 0.2)
      try folder.write("root/b.txt", Array("beach and sun\n".utf8))
      try folder.write("root/c.txt", Array("beach and sun\n".utf8))
    }
  }

  /// Each slip and the line it gets.
  static let slips: [(term: String, message: String)] = [
    ("kind:text,", "error: query term 'kind:text,' has an empty alternative after its last ','\n"),
    (",kind:text", "error: query term ',kind:text' has an empty alternative before its first ','\n"),
    (
      "kind:text,,audio", "error: query term 'kind:text,,audio' has an empty alternative between two commas\n"
    ),
    ("kind:,text", "error: query term 'kind:,text' has an empty alternative before its first ','\n"),
    ("-kind:audio,", "error: query term '-kind:audio,' has an empty alternative after its last ','\n"),
    ("ext:txt, ,wav", "error: query term 'ext:txt, ,wav' has an empty alternative between two commas\n"),
  ]

  @Test func lsRefusesAnEmptyAlternativeAnywhere() throws {
    let catalogue = try Self.catalogue()
    for slip in Self.slips {
      let result = try catalogue.run(["ls", slip.term])
      #expect(result.status == 64, "\(slip.term)")
      #expect(result.stdout.isEmpty, "\(slip.term)")
      #expect(result.stderr == slip.message)
    }
    // Among other terms the slip is found too, and nothing is listed.
    let among = try catalogue.run(["ls", "beach ,kind:text"])
    #expect(among.status == 64)
    #expect(among.stderr == "error: query term ',kind:text' has an empty alternative before its first ','\n")
    // What stays valid: alternatives with values, and one field alone with an empty value.
    let both = try catalogue.run(["ls", "-0", "kind:text,audio"])
    #expect(both.status == 0, "\(both.stderr)")
    #expect(
      both.stdout == "\(catalogue.root)/a.wav\u{0}\(catalogue.root)/b.txt\u{0}\(catalogue.root)/c.txt\u{0}")
    let hasOne = try catalogue.run(["ls", "-0", "kind:audio,title:"])
    #expect(hasOne.status == 0, "\(hasOne.stderr)")
    #expect(hasOne.stdout == "\(catalogue.root)/a.wav\u{0}")
  }

  @Test func extractRefusesAnEmptyAlternativeAndWritesNothing() throws {
    let catalogue = try Self.catalogue()
    let output = catalogue.folder.path + "/out"
    for slip in Self.slips {
      let result = try catalogue.run(["extract", "-o", output, slip.term])
      #expect(result.status == 64, "\(slip.term)")
      #expect(result.stderr == slip.message)
      #expect(!FileManager.default.fileExists(atPath: output))
    }
  }

  @Test func playAndDupesTrashRefuseAnEmptyAlternative() throws {
    let catalogue = try Self.catalogue()
    let play = try catalogue.run(["play", "-D", "null", "kind:audio,"])
    #expect(play.status == 64)
    #expect(play.stderr == "error: query term 'kind:audio,' has an empty alternative after its last ','\n")
    let dupes = try catalogue.run(["dupes", "--trash", "kind:text,"])
    #expect(dupes.status == 64)
    #expect(dupes.stderr == "error: query term 'kind:text,' has an empty alternative after its last ','\n")
    // The duplicates the slip would have reached are still there.
    #expect(FileManager.default.fileExists(atPath: catalogue.root + "/b.txt"))
    #expect(FileManager.default.fileExists(atPath: catalogue.root + "/c.txt"))
  }
}
