import Foundation
import ShelfTestSupport
import Testing

/// The entry points (issue 22, item 9): `shelf` alone, `--db` values that cannot be a
/// catalogue, and `-f` meaning `--format` in every command.
@Suite struct EntryPointTests {
  @Test func shelfAlonePrintsTheCommandsOnStderrAndExits64() throws {
    let result = try ShelfProcess.run([])
    #expect(result.status == 64)
    #expect(result.stdout.isEmpty)
    let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(
      String.init)
    #expect(lines.count <= 30)
    #expect(lines.first == "usage: shelf [--db <path>] [-v] <command> [<options>] [<arguments>]")
    #expect(lines.last == "See 'shelf --help' for the overview and 'shelf help <command>' for a command.")
    let help = try ShelfProcess.run(["--help"])
    for name in CLITests.commandNames + ["help"] {
      let entries = lines.filter { $0.hasPrefix("  \(name) ") }
      #expect(entries.count == 1, "\(name)")
      // Its abstract follows on the same line, as `shelf --help` words it.
      if let entry = entries.first {
        let abstract = entry.dropFirst(2 + name.count).drop { $0 == " " }
        #expect(!abstract.isEmpty)
        #expect(help.stdout.contains(String(abstract.prefix(30))), "\(name)")
      }
    }
    // The overview is still what --help prints, on stdout.
    #expect(help.status == 0)
    #expect(help.stdout.hasPrefix("OVERVIEW: "))
  }

  @Test func anEmptyDatabaseIsAUsageError() throws {
    let folder = try TemporaryDirectory()
    for arguments in [["--db", "", "ls"], ["--db=", "stats"], ["index", "--db", "", folder.path]] {
      let result = try ShelfProcess.run(arguments)
      #expect(result.status == 64, "\(arguments)")
      #expect(
        result.stderr == """
          error: option '--db' needs a catalogue file or a postgresql:// URL, not an empty value
          usage: shelf [--db <path>] [-v] <command> [<options>] [<arguments>]
          hint: run 'shelf --help' to list the commands

          """)
    }
  }

  @Test func aFolderAsTheDatabaseSaysItIsADirectory() throws {
    let folder = try TemporaryDirectory()
    let message =
      "error: \(folder.path): is a directory; the catalogue is a file (e.g. \(folder.path)/catalog.sqlite)\n"
    let reader = try ShelfProcess.run(["--db", folder.path, "ls"])
    #expect(reader.status == 66)
    #expect(reader.stderr == message)
    let media = try folder.write("media/a.txt", Array("hello\n".utf8))
    let writer = try ShelfProcess.run([
      "--db", folder.path, "index", (media as NSString).deletingLastPathComponent,
    ])
    #expect(writer.status == 73)
    #expect(writer.stderr == message)
    let player = try ShelfProcess.run(["--db", folder.path, "play", "kind:audio"])
    #expect(player.status == 66)
    #expect(player.stderr == message)
    let fromEnvironment = try ShelfProcess.run(["stats"], environment: ["SHELF_DB": folder.path])
    #expect(fromEnvironment.status == 66)
    #expect(fromEnvironment.stderr == message)
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["media"])
  }

  @Test func dashFIsFormatInEveryCommandAndForceHasNoShortForm() throws {
    for name in CLITests.commandNames {
      let help = try ShelfProcess.run([name, "--help"]).stdout
      #expect(!help.contains("-f, --force"), "\(name)")
      for line in help.split(separator: "\n") where line.drop(while: { $0 == " " }).hasPrefix("-f, ") {
        #expect(line.drop(while: { $0 == " " }).hasPrefix("-f, --format "), "\(name): \(line)")
      }
    }
    // `record -f wav` names the format of an output without an extension.
    let (folder, env) = try AudioE2E.captureFolder()
    let output = folder.path + "/take"
    let recorded = try ShelfProcess.run(["record", "-d", "0.1", "-f", "wav", output], environment: env)
    #expect(recorded.status == 0, "\(recorded.stderr)")
    #expect(Array(AudioE2E.bytes(output).prefix(4)) == Array("RIFF".utf8))
    #expect(try AudioE2E.decoded(output).count == 4410 * 4)
    // `--force` still replaces it.
    let again = try ShelfProcess.run(["record", "-d", "0.1", "-f", "wav", output], environment: env)
    #expect(again.status == 73)
    let forced = try ShelfProcess.run(
      ["record", "-d", "0.1", "--format", "wav", "--force", output], environment: env)
    #expect(forced.status == 0, "\(forced.stderr)")
  }
}
