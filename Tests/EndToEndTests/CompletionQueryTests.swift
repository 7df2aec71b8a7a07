import Foundation
import ShelfTestSupport
import Testing

/// The shell completions offer what a query takes (issue 44, item 15): the query fields
/// (`kind:`, `-kind:`) and the values of those with a fixed set, `--sort` fields and
/// directions, and the ALSA devices `shelf devices` lists for `-D`. Driven through bash's
/// completion function as bash calls it, and through fish's `complete -C`.
@Suite struct CompletionQueryTests {
  /// The bash script, and an ALSA configuration with a device of the test's own.
  private struct Scripts {
    let scratch: TemporaryDirectory
    let bash: String
    let fish: String
    let alsaConfig: String

    init() throws {
      scratch = try TemporaryDirectory()
      bash = try scratch.write("shelf.bash", try ShelfProcess.run(["completions", "bash"]).stdoutBytes)
      fish = try scratch.write("shelf.fish", try ShelfProcess.run(["completions", "fish"]).stdoutBytes)
      alsaConfig = try AudioE2E.alsaConfig(in: scratch)
    }

    /// What `_shelf` offers for `words`, the last being completed. With `line`, the words are
    /// as bash splits a command line (at `:` and `=` too) and `COMP_LINE` is set, as in a
    /// shell; without it, as the words are given.
    func bash(_ words: [String], line: String? = nil) throws -> [String] {
      let quoted = words.map { "'\($0)'" }.joined(separator: " ")
      var program = "source \(bash); COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); "
      if let line { program += "COMP_LINE='\(line)'; COMP_POINT=${#COMP_LINE}; " }
      program += "_shelf; printf '%s\\n' \"${COMPREPLY[@]}\""
      return try run(["bash", "-c", program])
    }

    /// What fish offers for a command line, without the descriptions.
    func fish(_ line: String) throws -> [String] {
      try run(["fish", "-c", "source \(fish); complete -C '\(line)'"]).map {
        String($0.prefix { $0 != "\t" })
      }
    }

    /// Runs a shell in an empty folder with the built shelf first on PATH.
    private func run(_ arguments: [String]) throws -> [String] {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
      let binaries = (ShelfProcess.binary as NSString).deletingLastPathComponent
      let path = binaries + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
      process.arguments = ["PATH=\(path)", "ALSA_CONFIG_PATH=\(alsaConfig)"] + arguments
      try FileManager.default.createDirectory(
        atPath: scratch.path + "/empty", withIntermediateDirectories: true)
      process.currentDirectoryURL = URL(fileURLWithPath: scratch.path + "/empty")
      let output = Pipe()
      process.standardOutput = output
      process.standardError = FileHandle.nullDevice
      try process.run()
      let data = output.fileHandleForReading.readDataToEndOfFile()
      process.waitUntilExit()
      return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }
  }

  @Test func bashOffersQueryFieldsAndTheirValues() throws {
    let scripts = try Scripts()
    #expect(try scripts.bash(["shelf", "ls", "ki"]) == ["kind:"])
    #expect(try scripts.bash(["shelf", "ls", "kind:im"]) == ["kind:image"])
    #expect(try scripts.bash(["shelf", "stats", "-are"]) == ["-area:"])
    #expect(try scripts.bash(["shelf", "extract", "alpha:"]) == ["alpha:yes", "alpha:no"])
    #expect(
      try scripts.bash(["shelf", "dupes", "co"]) == ["codec:", "color:", "comment:", "copies:", "copy-in:"])
    #expect(try scripts.bash(["shelf", "ls", "--j"]) == ["--json", "--jsonl"])
    // play and gain take files or terms: with no file of that name, the fields.
    #expect(try scripts.bash(["shelf", "play", "ki"]) == ["kind:"])
    #expect(try scripts.bash(["shelf", "gain", "albu"]) == ["album:", "album_artist:"])
    // As bash splits `kind:im` (kind, :, im), readline replaces only what follows the colon.
    #expect(try scripts.bash(["shelf", "ls", "kind", ":", "im"], line: "shelf ls kind:im") == ["image"])
    #expect(
      try scripts.bash(["shelf", "ls", "kind", ":"], line: "shelf ls kind:")
        == ["image", "audio", "video", "text", "plist", "other"])
  }

  @Test func everyFieldOfferedIsOneTheQueryTakes() throws {
    let scripts = try Scripts()
    let fields = try scripts.bash(["shelf", "ls", ""]).filter { $0.hasSuffix(":") }
    #expect(fields.count > 60)
    for field in fields {
      let result = try ShelfProcess.run(["ls", field + "1"])
      #expect(!result.stderr.contains("unknown query field"), "\(field) \(result.stderr)")
    }
  }

  @Test func bashOffersSortFieldsAndDirections() throws {
    let scripts = try Scripts()
    #expect(try scripts.bash(["shelf", "ls", "--sort", "ar"]) == ["area", "artist", "artwork"])
    #expect(try scripts.bash(["shelf", "ls", "--sort", "artist:d"]) == ["artist:desc"])
    #expect(
      try scripts.bash(["shelf", "ls", "--sort", "artist", ":", ""], line: "shelf ls --sort artist:")
        == ["asc", "desc"])
    // copies and copy-in cannot sort: they are not offered, and every field offered sorts.
    #expect(
      try scripts.bash(["shelf", "ls", "--sort", "=", "artist", ":", "d"], line: "shelf ls --sort=artist:d")
        == ["desc"])
    #expect(try scripts.bash(["shelf", "ls", "--sort", "cop"]) == [])
    let fields = try scripts.bash(["shelf", "ls", "--sort", ""])
    #expect(fields.count > 60)
    let scratch = try TemporaryDirectory()
    let database = scratch.path + "/catalog.sqlite"
    _ = try scratch.write("media/note.txt", Array("hello\n".utf8))
    #expect(try ShelfProcess.run(["--db", database, "index", scratch.path + "/media"]).status == 0)
    let sorted = try ShelfProcess.run(["--db", database, "ls"] + fields.flatMap { ["--sort", $0] })
    #expect(sorted.status == 0, "\(sorted.stderr)")
  }

  @Test func bashOffersTheDevicesShelfDevicesLists() throws {
    let scripts = try Scripts()
    let offered = try scripts.bash(["shelf", "play", "-D", ""])
    #expect(offered.first == "default")
    #expect(Set(offered).isSuperset(of: ["default", "null", "shelftest"]), "\(offered)")
    #expect(try scripts.bash(["shelf", "record", "-D", "shelft"]) == ["shelftest"])
    #expect(try scripts.bash(["shelf", "record", "--device", "nu"]) == ["null"])
    #expect(
      try scripts.bash(["shelf", "play", "--device", "=", "shelft"], line: "shelf play --device=shelft")
        == ["shelftest"])
  }

  @Test func fishOffersTheSameFieldsSortKeysAndDevices() throws {
    try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/fish"), "needs fish")
    let scripts = try Scripts()
    #expect(try scripts.fish("shelf ls ki") == ["kind:"])
    #expect(try scripts.fish("shelf ls kind:im") == ["kind:image"])
    #expect(try scripts.fish("shelf ls --sort artist:d") == ["artist:desc"])
    #expect(try scripts.fish("shelf play -D shelft") == ["shelftest"])
  }
}
