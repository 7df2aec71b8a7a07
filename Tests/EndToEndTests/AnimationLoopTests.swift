import Foundation
import ShelfTestSupport
import Testing

/// The loop count of GIF and WebP animations made by ImageMagick and gif2webp, checked against
/// Pillow's `info['loop']` (GIF) and webpmux's Loop Count (WebP), through `info`, the catalogue
/// (`ls --json`, the `loop:` field) and `info`'s table.
@Suite struct AnimationLoopTests {
  /// Pillow's `info['loop']` of each file, nil where it has none.
  static func pillowLoops(_ paths: [String]) throws -> [String: Int?] {
    let script = """
      import json, sys
      from PIL import Image
      print(json.dumps({p: Image.open(p).info.get("loop") for p in sys.argv[1:]}))
      """
    let outcome = try ExternalTool.run(["python3", "-c", script] + paths)
    try #require(outcome.status == 0, "\(outcome.stderr)")
    let json = try #require(try JSONSerialization.jsonObject(with: outcome.stdout) as? [String: Any])
    return json.mapValues { $0 as? Int }
  }

  /// webpmux's `Loop Count` of an animated WebP.
  static func webpmuxLoop(_ path: String) throws -> Int? {
    let outcome = try ExternalTool.run(["webpmux", "-info", path])
    let text = String(decoding: outcome.stdout, as: UTF8.self)
    guard let range = text.range(of: "Loop Count : ") else { return nil }
    return Int(text[range.upperBound...].prefix { $0.isNumber })
  }

  @Test func loopCountsMatchPillowAndWebpmux() throws {
    let scratch = try TemporaryDirectory()
    let folder = scratch.path + "/anim"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    // ImageMagick's -loop N is N plays: it writes N - 1 repeats into the NETSCAPE2.0 extension.
    let frames = ["-size", "8x8", "xc:red", "xc:blue"]
    for (name, arguments) in [
      ("forever.gif", frames + ["-loop", "0"]), ("three.gif", frames + ["-loop", "3"]),
      ("still.gif", ["-size", "8x8", "xc:red"]),
    ] {
      let made = try ExternalTool.run(["convert"] + arguments + [folder + "/" + name])
      try #require(made.status == 0, "\(made.stderr)")
    }
    for name in ["forever", "three"] {
      let made = try ExternalTool.run([
        "gif2webp", "-quiet", "\(folder)/\(name).gif", "-o", "\(folder)/\(name).webp",
      ])
      try #require(made.status == 0, "\(made.stderr)")
    }
    let gifs = ["forever.gif", "three.gif", "still.gif"].map { folder + "/" + $0 }
    let pillow = try Self.pillowLoops(gifs)
    #expect(pillow[gifs[0]] == 0 && pillow[gifs[1]] == 2 && pillow[gifs[2]] == .some(nil), "\(pillow)")
    // A GIF's repeats after the first play, plus one; 0 stays forever; none stays none.
    var expected: [String: Int?] = pillow.mapValues { $0.map { $0 == 0 ? 0 : $0 + 1 } }
    for name in ["forever.webp", "three.webp"] {
      expected[folder + "/" + name] = try Self.webpmuxLoop(folder + "/" + name)
    }
    #expect(expected[folder + "/forever.webp"] == 0 && expected[folder + "/three.webp"] == 3)

    // Read live by info, and from the catalogue by ls.
    let database = scratch.path + "/catalog.sqlite"
    let indexed = try ShelfProcess.run(["--db", database, "index", folder])
    #expect(indexed.status == 0, "\(indexed.stderr)")
    let listed = try ShelfProcess.run(["--db", database, "ls", "--json", "ext:gif,ext:webp"])
    let records = try #require(
      try JSONSerialization.jsonObject(with: Data(listed.stdoutBytes)) as? [[String: Any]])
    #expect(records.count == 5)
    for (path, loop) in expected {
      let live = try ShelfProcess.run(["info", "--json", path])
      let fact = try #require(
        try JSONSerialization.jsonObject(with: Data(live.stdoutBytes)) as? [String: Any])
      let image = try #require(fact["image"] as? [String: Any])
      #expect(image["loop"] as? Int == loop, "info --json \(path): \(image["loop"] ?? "nil")")
      let record = try #require(records.first { $0["path"] as? String == path })
      #expect((record["image"] as? [String: Any])?["loop"] as? Int == loop, "ls --json \(path)")
    }
    for (query, names) in [
      ("loop:0", ["forever.gif", "forever.webp"]), ("loop:3", ["three.gif", "three.webp"]),
      ("loop>1", ["three.gif", "three.webp"]), ("ext:gif loop>=0", ["forever.gif", "three.gif"]),
    ] {
      let result = try ShelfProcess.run(
        ["--db", database, "ls", "-f", "{name}", "--sort", "name"]
          + query.split(separator: " ").map(String.init))
      #expect(result.stdout == names.map { $0 + "\n" }.joined(), "\(query): \(result.stdout)")
    }
    let table = try ShelfProcess.run(["info", folder + "/three.gif"])
    #expect(table.stdout.contains("\nloop:         3 plays\n"), "\(table.stdout)")
    let forever = try ShelfProcess.run(["info", folder + "/forever.webp"])
    #expect(forever.stdout.contains("\nloop:         forever (0)\n"), "\(forever.stdout)")
  }
}
