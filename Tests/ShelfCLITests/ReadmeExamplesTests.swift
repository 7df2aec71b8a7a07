import Foundation
import Testing

@testable import ShelfCLI

/// The README is what a newcomer reads first: every `shelf` command line in its examples must
/// parse against today's command table (a renamed option or command fails here), and it stays
/// short enough to read in five minutes.
@Suite struct ReadmeExamplesTests {
  static let readme: String = {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("README.md")
    return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
  }()

  /// The `shelf …` lines of the README's `sh` code blocks, without comments and pipes.
  static var exampleCommandLines: [String] {
    var lines: [String] = []
    var inShellBlock = false
    for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("```") {
        inShellBlock = !inShellBlock && line == "```sh"
        continue
      }
      guard inShellBlock, line.hasPrefix("shelf ") else { continue }
      lines.append(String(line))
    }
    return lines
  }

  @Test func theReadmeIsShortAndNamesTheFourJobsFirst() {
    let lines = Self.readme.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count <= 400, "README.md has \(lines.count) lines; the details belong in the man pages")
    let opening = lines.prefix(20).joined(separator: "\n")
    for job in ["Catalogue", "iPhone backups", "PNG", "Audio"] {
      #expect(opening.contains("**\(job)**"), "the first 20 lines of README.md do not name \(job)")
    }
  }

  @Test func theTourShowsEveryJob() {
    let commands = Set(Self.exampleCommandLines.compactMap { Self.words($0).dropFirst().first })
    for name in ["index", "ls", "info", "show", "stats", "roots", "extract", "crush", "play", "record"] {
      #expect(commands.contains(name), "the README's tour has no `shelf \(name)` example")
    }
  }

  @Test(arguments: exampleCommandLines)
  func exampleParses(_ line: String) throws {
    let words = Self.words(line).dropFirst().map(CommandLineArgument.init)
    var globals = ParsedArguments(commandName: "")
    let result = Result { () throws(UsageError) in
      try ArgumentParser(commands: CommandTable.commands).parse(Array(words), globals: &globals)
    }
    switch result {
    case .success(.run), .success(.help): break
    case .success(let other): Issue.record("`\(line)` parses as \(other), not as a command")
    case .failure(let error): Issue.record("`\(line)` is refused: \(error.message)")
    }
  }

  /// Splits a shell line into words as sh does for these examples: quotes, backslash escapes,
  /// and the end of the command at an unquoted `#`, `|`, `>` or `&&`.
  static func words(_ line: String) -> [String] {
    var words: [String] = []
    var word = ""
    var inWord = false
    var quote: Character?
    var escaped = false
    for character in line {
      if escaped {
        word.append(character)
        escaped = false
        continue
      }
      if let open = quote {
        if character == open {
          quote = nil
        } else if character == "\\" && open == "\"" {
          escaped = true
        } else {
          word.append(character)
        }
        continue
      }
      switch character {
      case "\\": escaped = true; inWord = true
      case "'", "\"": quote = character; inWord = true
      case " ", "\t":
        if inWord { words.append(word) }
        word = ""
        inWord = false
      case "#" where !inWord, "|", ">", "&":
        if inWord { words.append(word) }
        return words
      default:
        word.append(character)
        inWord = true
      }
    }
    if inWord { words.append(word) }
    return words
  }
}
