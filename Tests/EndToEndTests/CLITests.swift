import Foundation
import ShelfTestSupport
import Testing

/// The command-line interface as a user meets it: help, version, usage errors, completions.
@Suite struct CLITests {
  static let commandNames = [
    "index", "ls", "info", "show", "stats", "crush", "play", "record", "devices", "completions",
  ]

  @Test func rootHelpListsEveryCommandOnStdout() throws {
    for arguments in [["--help"], ["-h"], ["help"], []] {
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
    let result = try ShelfProcess.run(["--version"])
    #expect(result.status == 0)
    #expect(result.stdout == "shelf 0.1.0\n")
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
