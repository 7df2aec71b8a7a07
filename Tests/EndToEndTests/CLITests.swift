import Foundation
import ShelfTestSupport
import Testing

/// The command-line interface as a user meets it: help, version, usage errors, completions.
@Suite struct CLITests {
  static let commandNames = [
    "index", "ls", "info", "show", "stats", "roots", "forget", "catalog", "crush", "extract", "dupes", "gain",
    "play", "record",
    "devices",
    "completions",
  ]

  @Test func rootHelpListsEveryCommandOnStdout() throws {
    // `shelf` alone prints a short usage on stderr instead (EntryPointTests).
    for arguments in [["--help"], ["-h"], ["help"]] {
      let result = try ShelfProcess.run(arguments)
      #expect(result.status == 0)
      #expect(result.stderr.isEmpty)
      #expect(result.stdout.hasPrefix("OVERVIEW: "))
      #expect(result.stdout.contains("USAGE: shelf [--db <path>] [-v] <command>"))
      for name in Self.commandNames {
        #expect(result.stdout.contains("\n  \(name) "), "help lacks \(name)")
      }
    }
  }

  @Test(arguments: commandNames)
  func everyCommandHasHelpThreeWays(_ name: String) throws {
    let viaFlag = try ShelfProcess.run([name, "--help"])
    let viaHelp = try ShelfProcess.run(["help", name])
    let viaShort = try ShelfProcess.run([name, "-h"])
    #expect(viaFlag.status == 0)
    #expect(viaFlag.stdout.contains("USAGE: shelf \(name)"))
    #expect(viaFlag.stdout.contains("OPTIONS:") || viaFlag.stdout.contains("ARGUMENTS:"))
    #expect(viaFlag.stdout.contains("EXAMPLES:"))
    #expect(viaFlag.stdout == viaHelp.stdout)
    #expect(viaFlag.stdout == viaShort.stdout)
  }

  @Test func helpWrapsToColumns() throws {
    let narrow = try ShelfProcess.run(["help", "info"], environment: ["COLUMNS": "50"])
    // Prose lines fit in 50 columns; only a single word too long for its column may overflow.
    let prose = narrow.stdout.split(separator: "\n").filter { line in
      line.trimmingCharacters(in: .whitespaces).contains(" ") && !line.hasPrefix("OVERVIEW")
        && !line.hasPrefix("USAGE") && !line.hasPrefix("  shelf ") && !line.hasPrefix("  curl")
    }
    #expect(prose.count > 10)
    #expect(prose.allSatisfy { $0.count <= 50 }, "\(prose.filter { $0.count > 50 })")
  }

  @Test func versionPrintsTheVersion() throws {
    for flag in ["--version", "-V"] {
      let result = try ShelfProcess.run([flag])
      #expect(result.status == 0, "\(flag)")
      #expect(result.stdout == "shelf 0.1.0\n", "\(flag)")
      #expect(result.stderr.isEmpty, "\(flag)")
    }
  }

  @Test func helpOfHelpIsShownBothWays() throws {
    let viaHelp = try ShelfProcess.run(["help", "help"])
    let viaFlag = try ShelfProcess.run(["help", "--help"])
    let viaShort = try ShelfProcess.run(["help", "-h"])
    #expect(viaHelp.status == 0)
    #expect(viaHelp.stderr.isEmpty)
    #expect(viaHelp.stdout.hasPrefix("OVERVIEW: Show help for a command.\n"))
    #expect(viaHelp.stdout.contains("USAGE: shelf help [<command>]\n"))
    // The names, in table order, wrapped to the width.
    let commands = viaHelp.stdout.components(separatedBy: "COMMANDS:\n").last?.components(separatedBy: "\n\n")
      .first
    #expect(commands?.split(whereSeparator: \.isWhitespace).map(String.init) == Self.commandNames)
    #expect(viaFlag.status == 0)
    #expect(viaFlag.stdout == viaHelp.stdout)
    #expect(viaShort.stdout == viaHelp.stdout)
    // A command's page is the same however it is asked for, also with a trailing --help.
    #expect(
      try ShelfProcess.run(["help", "ls", "--help"]).stdout == ShelfProcess.run(["ls", "--help"]).stdout)
  }

  @Test func globalOptionsWithoutACommandAreAUsageError() throws {
    let scratch = try TemporaryDirectory()
    for arguments in [["--db", scratch.file("c.sqlite")], ["-v"]] {
      let result = try ShelfProcess.run(arguments)
      #expect(result.status == 64, "\(arguments)")
      #expect(result.stdout.isEmpty, "\(arguments)")
      #expect(
        result.stderr == """
          error: missing <command> after the global options
          usage: shelf [--db <path>] [-v] <command> [<options>] [<arguments>]
          hint: run 'shelf --help' to list the commands

          """, "\(arguments)")
    }
    // Nothing was created at the --db path.
    #expect(!FileManager.default.fileExists(atPath: scratch.file("c.sqlite")))
  }

  @Test func unknownHelpTopicsAreOneLineErrorsWithSuggestions() throws {
    let cases: [([String], String)] = [
      (["help", "nosuch"], "error: unknown command 'nosuch'\n"),
      (["nosuch", "--help"], "error: unknown command 'nosuch'\n"),
      (["help", "inof"], "error: unknown command 'inof'; did you mean 'info'?\n"),
      (["hlep"], "error: unknown command 'hlep'; did you mean 'help'?\n"),
    ]
    for (arguments, message) in cases {
      let result = try ShelfProcess.run(arguments)
      #expect(result.status == 64, "\(arguments)")
      #expect(result.stdout.isEmpty, "\(arguments)")
      #expect(
        result.stderr == message + """
          usage: shelf [--db <path>] [-v] <command> [<options>] [<arguments>]
          hint: run 'shelf --help' to list the commands

          """, "\(arguments)")
    }
    let extra = try ShelfProcess.run(["help", "ls", "extra"])
    #expect(extra.status == 64)
    #expect(
      extra.stderr == """
        error: unexpected argument 'extra'
        usage: shelf help [<command>]
        hint: run 'shelf help --help' for more information

        """)
  }

  @Test func queryFieldTyposUseTheSameSuggesterAsCommands() throws {
    let scratch = try TemporaryDirectory()
    // Two swaps and a doubled letter: three edits, a typo by the one rule for a 7-letter word
    // (the query language's own rule stopped at two).
    let result = try ShelfProcess.run(["--db", scratch.file("c.sqlite"), "ls", "atrsitt:x"])
    #expect(result.status == 64)
    #expect(result.stderr.hasPrefix("error: unknown query field 'atrsitt' (did you mean 'artist'?)\n"))
  }

  @Test func missingSoundDeviceErrorsSayHowToPlayAndRecordWithoutACard() throws {
    let scratch = try TemporaryDirectory()
    let track = try scratch.write("a.wav", Self.silentWAV(frames: 100))
    // A configuration that knows only the null device: no `default`, as on a machine without
    // a card.
    let config = try scratch.write("asound.conf", Array("pcm.null { type null }\n".utf8))
    let environment = ["ALSA_CONFIG_PATH": config]
    let play = try ShelfProcess.run(["play", "--no-interactive", track], environment: environment)
    #expect(play.status == 66)
    #expect(
      play.stderr.hasSuffix(
        "error: device default: no such ALSA device (no sound card? try -D null, or -D file:/path/out.wav)\n")
    )
    let output = scratch.file("memo.wav")
    let record = try ShelfProcess.run(["record", "-d", "1", output], environment: environment)
    #expect(record.status == 66)
    #expect(
      record.stderr
        == "error: device default: no such ALSA device (no sound card? try -D null, which records silence)\n")
    #expect(!FileManager.default.fileExists(atPath: output))
    // The advice is true: -D null plays without a card.
    let null = try ShelfProcess.run(
      ["play", "--no-interactive", "-D", "null", track], environment: environment)
    #expect(null.status == 0)
  }

  @Test func wavWithADataChunkLongerThanTheFileIsBadInputWithItsFramesShown() throws {
    let scratch = try TemporaryDirectory()
    try scratch.makeDirectory("music")
    var bytes = Self.silentWAV(frames: 8000)
    // The header claims four times the samples the file holds (a copy cut short).
    bytes.replaceSubrange(40..<44, with: [0x00, 0xFA, 0x00, 0x00])
    let path = try scratch.write("music/cut.wav", bytes)
    let live = try ShelfProcess.run(["--db", scratch.file("c.sqlite"), "info", path])
    #expect(live.status == 65)
    #expect(live.stderr == "error: \(path): truncated: data chunk declares 64000 bytes, file holds 16000\n")
    #expect(live.stdout.contains("\nframes:       8000\n"))
    #expect(
      live.stdout.contains("\nerror:        truncated: data chunk declares 64000 bytes, file holds 16000\n"))
    // The catalogue records the same error, and info shows it from there.
    let index = try ShelfProcess.run(["--db", scratch.file("c.sqlite"), "index", scratch.file("music")])
    #expect(index.status != 64)
    let catalogued = try ShelfProcess.run(["--db", scratch.file("c.sqlite"), "info", path])
    #expect(catalogued.status == 65)
    #expect(catalogued.stdout.contains("\ncatalogue:    root "))
    #expect(catalogued.stderr == live.stderr)
    #expect(catalogued.stdout.contains("\nframes:       8000\n"))
  }

  /// A 16-bit mono 8 kHz WAV of `frames` zero samples.
  static func silentWAV(frames: Int) -> [UInt8] {
    func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    let data = [UInt8](repeating: 0, count: frames * 2)
    return Array("RIFF".utf8) + le32(36 + data.count) + Array("WAVEfmt ".utf8) + le32(16)
      + [1, 0, 1, 0] + le32(8000) + le32(16000) + [2, 0, 16, 0] + Array("data".utf8) + le32(data.count)
      + data
  }

  @Test func unknownCommandSuggestsAndExits64() throws {
    let result = try ShelfProcess.run(["inof", "x"])
    #expect(result.status == 64)
    #expect(result.stdout.isEmpty)
    #expect(
      result.stderr == """
        error: unknown command 'inof'; did you mean 'info'?
        usage: shelf [--db <path>] [-v] <command> [<options>] [<arguments>]
        hint: run 'shelf --help' to list the commands

        """)
  }

  @Test func unknownOptionSuggestsAndPrintsTheCommandUsage() throws {
    let result = try ShelfProcess.run(["info", "--jsno", "a"])
    #expect(result.status == 64)
    #expect(
      result.stderr == """
        error: unknown option '--jsno'; did you mean '--json'?
        usage: shelf info [<options>] <file> ...
        hint: run 'shelf info --help' for more information

        """)
  }

  @Test func missingArgumentAndBadChoiceAreUsageErrors() throws {
    let missing = try ShelfProcess.run(["info"])
    #expect(missing.status == 64)
    #expect(missing.stderr.hasPrefix("error: missing argument <file>\n"))
    let shell = try ShelfProcess.run(["completions", "tcsh"])
    #expect(shell.status == 64)
    #expect(shell.stderr.hasPrefix("error: unknown shell 'tcsh': expected 'bash', 'zsh' or 'fish'\n"))
  }

  @Test func globalDatabaseOptionIsAcceptedBeforeAndAfterTheCommand() throws {
    let file = try TemporaryDirectory()
    let path = try file.write("a.txt", Array("hello\n".utf8))
    #expect(try ShelfProcess.run(["--db", file.path + "/c.sqlite", "info", path]).status == 0)
    #expect(try ShelfProcess.run(["info", path, "--db=" + file.path + "/c.sqlite"]).status == 0)
  }

  @Test func completionScriptsAreGeneratedForEveryShellAndParse() throws {
    for shell in ["bash", "zsh", "fish"] {
      let result = try ShelfProcess.run(["completions", shell])
      #expect(result.status == 0)
      for name in Self.commandNames {
        #expect(result.stdout.contains(name), "\(shell) completion lacks \(name)")
      }
      #expect(result.stdout.contains(shell == "fish" ? "-l json" : "--json"))
      let scratch = try TemporaryDirectory()
      let script = try scratch.write("completion", result.stdoutBytes)
      // Each shell checks its own script's syntax (`-n`), when that shell is installed.
      if let shellPath = ["/bin/\(shell)", "/usr/bin/\(shell)"].first(
        where: FileManager.default.isExecutableFile)
      {
        let check = Process()
        check.executableURL = URL(fileURLWithPath: shellPath)
        check.arguments = ["-n", script]
        try check.run()
        check.waitUntilExit()
        #expect(check.terminationStatus == 0, "\(shell) rejects its completion script")
      }
    }
  }

  @Test func bashCompletionOffersCommandsOptionsAndChoices() throws {
    let script = try ShelfProcess.run(["completions", "bash"]).stdout
    let scratch = try TemporaryDirectory()
    let file = try scratch.write("completion.bash", Array(script.utf8))
    func complete(_ words: [String]) throws -> [String] {
      let line = words.map { "'\($0)'" }.joined(separator: " ")
      let check = Process()
      let output = Pipe()
      check.executableURL = URL(fileURLWithPath: "/bin/bash")
      check.arguments = [
        "-c",
        "source \(file); COMP_WORDS=(\(line)); COMP_CWORD=\(words.count - 1); _shelf; printf '%s\\n' \"${COMPREPLY[@]}\"",
      ]
      check.standardOutput = output
      try check.run()
      check.waitUntilExit()
      return String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        .split(separator: "\n").map(String.init)
    }
    #expect(try complete(["shelf", "cr"]) == ["crush"])
    #expect(try complete(["shelf", "info", "--js"]) == ["--json"])
    #expect(try complete(["shelf", "completions", "z"]) == ["zsh"])
  }
}
