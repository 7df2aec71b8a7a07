import Foundation
import ShelfPNG
import ShelfTestSupport
import Testing

/// Nothing is overwritten without `--force`, and a batch where every input failed exits with
/// that failure's code (issue 22, item 5); `crush -o NUMBER` is taken for oxipng's level.
@Suite struct OverwriteAndExitCodeTests {
  static let fixture = "Tests/Fixtures/pngsuite/basn2c08.png"

  static func bytes(_ path: String) -> [UInt8] { Array(FileManager.default.contents(atPath: path) ?? Data()) }

  @Test func crushIntoAFolderRefusesAnExistingFileUnlessForced() throws {
    let dir = try TemporaryDirectory()
    let input = try dir.copy(fromRepository: Self.fixture)
    let mine = try dir.write("out/basn2c08.png", Array("mine".utf8))
    let refused = try ShelfProcess.run(["crush", "-o", dir.path + "/out", input])
    #expect(refused.status == 73)
    #expect(refused.stderr == "error: \(mine): file exists (use --force to overwrite)\n")
    #expect(refused.stdout == "Crushed 0 of 1 file; 1 failed (cannot create output)\n")
    #expect(Self.bytes(mine) == Array("mine".utf8))
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path + "/out") == ["basn2c08.png"])

    // One refused, one written: exit 1.
    let other = try dir.copy(fromRepository: "Tests/Fixtures/pngsuite/basn0g08.png")
    let partly = try ShelfProcess.run(["crush", "-o", dir.path + "/out", input, other])
    #expect(partly.status == 1)
    #expect(partly.stderr == "error: \(mine): file exists (use --force to overwrite)\n")
    #expect(Self.bytes(mine) == Array("mine".utf8))
    let written = try PNGDecoder().decode(bytes: Self.bytes(dir.path + "/out/basn0g08.png")).image
    #expect(try written.hasSamePixels(as: PNGDecoder().decode(bytes: Self.bytes(other)).image))

    let forced = try ShelfProcess.run(["crush", "--force", "-o", dir.path + "/out", input])
    #expect(forced.status == 0, "\(forced.stderr)")
    #expect(forced.stderr.isEmpty)
    let replaced = try PNGDecoder().decode(bytes: Self.bytes(mine)).image
    #expect(try replaced.hasSamePixels(as: PNGDecoder().decode(bytes: Self.bytes(input)).image))
  }

  @Test func aBatchWhereEveryInputFailedExitsWithTheMostSevereFailure() throws {
    let dir = try TemporaryDirectory()
    let text = try dir.write("text.png", Array("hello".utf8))
    let missing = dir.path + "/nope.png"
    let input = try dir.copy(fromRepository: Self.fixture)
    try dir.write("out/basn2c08.png", Array("mine".utf8))
    // Bad data alone: 65; bad data and a missing file: 66; and an output that exists: 73.
    let bad = try ShelfProcess.run(["crush", "-o", dir.path + "/out", text])
    #expect(bad.status == 65)
    let badAndMissing = try ShelfProcess.run(["crush", "-o", dir.path + "/out", text, missing])
    #expect(badAndMissing.status == 66)
    #expect(badAndMissing.stdout == "Crushed 0 of 2 files; 2 failed (1 missing or unreadable, 1 bad input)\n")
    let all = try ShelfProcess.run(["crush", "-o", dir.path + "/out", missing, input, text])
    #expect(all.status == 73)
    #expect(all.stderr.split(separator: "\n").count == 3)
  }

  @Test func aBareNumberAsTheOutputFolderSuggestsTheLevel() throws {
    let dir = try TemporaryDirectory()
    let input = try dir.copy(fromRepository: Self.fixture)
    let original = Self.bytes(input)
    let inFolder = ["/usr/bin/env", "-C", dir.path]
    let result = try ShelfProcess.run(["crush", "-o", "4", "basn2c08.png"], launcher: inFolder)
    #expect(result.status == 64)
    #expect(
      result.stderr == """
        error: -o 4 names an output folder that does not exist; did you mean --level 4? (write -o ./4 for a new folder)
        usage: shelf crush [<options>] <file> ...
        hint: run 'shelf crush --help' for more information

        """)
    #expect(!FileManager.default.fileExists(atPath: dir.path + "/4"))
    #expect(Self.bytes(input) == original)
    // An existing folder of that name, or one spelt as a path, is a folder.
    let spelt = try ShelfProcess.run(["crush", "-o", "./4", "basn2c08.png"], launcher: inFolder)
    #expect(spelt.status == 0, "\(spelt.stderr)")
    #expect(FileManager.default.fileExists(atPath: dir.path + "/4/basn2c08.png"))
    try dir.makeDirectory("5")
    let existing = try ShelfProcess.run(["crush", "-o", "5", "basn2c08.png"], launcher: inFolder)
    #expect(existing.status == 0, "\(existing.stderr)")
    #expect(FileManager.default.fileExists(atPath: dir.path + "/5/basn2c08.png"))
  }
}
