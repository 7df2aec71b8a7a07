import Foundation
import ShelfTestSupport
import Testing

/// Option values are typed where they are declared: parsed once, while the command line is
/// read, so a bad value is a usage error (64) that names the option, the value and what it
/// takes, whatever else the command line says, and never a silent default.
@Suite struct TypedOptionValueTests {
  /// The three lines of a usage error of `command`.
  private static func usageError(_ message: String, command: String, usage: String) -> String {
    "error: \(message)\nusage: shelf \(command) \(usage)\nhint: run 'shelf \(command) --help' for more information\n"
  }

  @Test func aValueOutsideTheEnumIsRefusedWithEveryChoice() throws {
    let cases: [([String], String, String)] = [
      (
        ["crush", "--level", "9", "-n", "x.png"], "crush",
        "invalid value '9' for '--level': expected '0', '1', '2', '3', '4', '5', '6' or 'max'; did you mean '0'?"
      ),
      (
        ["crush", "--strip", "bogus", "-n", "x.png"], "crush",
        "invalid value 'bogus' for '--strip': expected 'none', 'safe' or 'all'"
      ),
      (
        ["show", "--graphics", "sixl", "x.png"], "show",
        "invalid value 'sixl' for '--graphics': expected 'auto', 'kitty', 'sixel', 'blocks' or 'none'; did you mean 'sixel'?"
      ),
      (
        ["index", "--progress", "sometimes", "/nonexistent"], "index",
        "invalid value 'sometimes' for '--progress': expected 'auto', 'always' or 'never'"
      ),
      (
        ["dupes", "--link", "soft"], "dupes",
        "invalid value 'soft' for '--link': expected 'hard' or 'reflink'"
      ),
    ]
    for (arguments, command, message) in cases {
      let result = try ShelfProcess.run(arguments)
      #expect(result.status == 64, "\(arguments)")
      #expect(result.stdout.isEmpty)
      let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      #expect(lines.first == "error: \(message)", "\(arguments)")
      #expect(lines.count == 4 && lines[1].hasPrefix("usage: shelf \(command) [<options>]"))
      #expect(lines.dropFirst(2) == ["hint: run 'shelf \(command) --help' for more information", ""])
    }
  }

  /// Values used to be parsed only where a branch read them: a bad `--jobs` hid behind a
  /// missing destination, a bad `--distance` behind a missing `--similar`, and a size's error
  /// quoted the number it made of the text rather than the text.
  @Test func aBadValueIsRefusedBeforeAnyOtherCheck() throws {
    let jobs = try ShelfProcess.run(["crush", "--jobs", "0", "x.png"])
    #expect(jobs.status == 64)
    #expect(
      jobs.stderr.hasPrefix("error: invalid value '0' for '--jobs': expected an integer from 1 to 256\n"))
    let distance = try ShelfProcess.run(["dupes", "--distance", "many"])
    #expect(distance.status == 64)
    #expect(
      distance.stderr.hasPrefix(
        "error: invalid value 'many' for '--distance': expected an integer from 0 to 64\n"))
    let size = try ShelfProcess.run(["show", "--max-decoded-bytes", "0K", "x.png"])
    #expect(size.status == 64)
    #expect(
      size.stderr.hasPrefix(
        "error: invalid value '0K' for '--max-decoded-bytes': expected a size of at least 1 byte\n"))
  }

  /// A default is written once, in the option's declaration, and help shows it from there.
  @Test func helpShowsTheDeclaredDefaults() throws {
    /// Help's text with its lines joined, as wrapping at any width leaves it.
    func help(_ command: String) throws -> String {
      try ShelfProcess.run([command, "--help"]).stdout.split(whereSeparator: \.isWhitespace).joined(
        separator: " ")
    }
    let crush = try help("crush")
    #expect(crush.contains("pixels before decoding. (default: 67108864)"))
    #expect(crush.contains("from the header, before decoding. (default: 1G)"))
    #expect(try help("dupes").contains("two images' hashes may differ. (default: 6)"))
  }

  /// `SHELF_LOCK_WAIT` is read once; a value that is no number of seconds used to wait the
  /// default 2 s and go on. Now the command that would wait refuses it and changes nothing,
  /// and a command that never waits does not care.
  @Test func aBadLockWaitIsAUsageErrorOfTheCommandsThatWait() throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.path + "/c.sqlite"
    let root = scratch.path + "/root"
    _ = try scratch.write("root/a.txt", Array("alpha\n".utf8))
    #expect(try ShelfProcess.run(["--db", database, "index", root]).status == 0)

    let forget = try ShelfProcess.run(
      ["--db", database, "forget", root], environment: ["SHELF_LOCK_WAIT": "soon"])
    #expect(forget.status == 64)
    #expect(
      forget.stderr
        == Self.usageError(
          "invalid value 'soon' for SHELF_LOCK_WAIT: expected a number of seconds, such as 2 or 0.5",
          command: "forget", usage: "<root> ..."))
    let index = try ShelfProcess.run(
      ["--db", database, "index", root], environment: ["SHELF_LOCK_WAIT": "-1"])
    #expect(index.status == 64)
    #expect(
      index.stderr.hasPrefix("error: invalid value '-1' for SHELF_LOCK_WAIT: expected a number of seconds"))

    let listed = try ShelfProcess.run(
      ["--db", database, "ls", "-0"], environment: ["SHELF_LOCK_WAIT": "soon"])
    #expect(listed.status == 0)
    #expect(listed.stdout == root + "/a.txt\0")
  }
}
