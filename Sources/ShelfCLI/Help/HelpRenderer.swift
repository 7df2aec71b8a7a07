/// Renders `--help` text from the command table, wrapped to the terminal width, in the
/// layout swift-argument-parser users know (OVERVIEW, USAGE, ARGUMENTS, OPTIONS, EXAMPLES).
struct HelpRenderer {
  let commands: [Command]
  let width: Int

  /// Column where option descriptions start.
  private let helpColumn = 26

  /// The top-level help: every command with its abstract.
  func rootHelp() -> String {
    var out = overview(ShelfInfo.abstract)
    out += TextLayout.wrap(ShelfInfo.discussion, width: width) + "\n\n"
    out += "USAGE: \(ShelfInfo.usage)\n\n"
    out += "COMMANDS:\n"
    for command in commands {
      out += entry(command.name, command.abstract) + "\n"
    }
    out += entry(HelpTopic.name, HelpTopic.abstract) + "\n\n"
    out += "GLOBAL OPTIONS:\n" + options(GlobalOptions.specs) + "\n"
    out += "EXIT STATUS:\n"
    for (status, meaning) in ExitStatus.documented {
      out += entry(String(status.code), meaning) + "\n"
    }
    out += "\n  See 'shelf help <command>' for detailed help.\n"
    return out
  }

  /// The help of one command.
  func help(for command: Command) -> String {
    var out = overview(command.abstract)
    for paragraph in Self.paragraphs(command.discussion) {
      out += render(paragraph) + "\n\n"
    }
    out += "USAGE: \(command.usage)\n\n"
    if !command.arguments.isEmpty {
      out += "ARGUMENTS:\n"
      for argument in command.arguments {
        out += entry("<\(argument.name)>", argument.help) + "\n"
      }
      out += "\n"
    }
    if !command.options.isEmpty {
      out += "OPTIONS:\n" + options(command.options) + "\n"
    }
    out += "GLOBAL OPTIONS:\n" + options(GlobalOptions.specs) + "\n"
    if !command.examples.isEmpty {
      out += "EXAMPLES:\n"
      for example in command.examples {
        out += commandLine(example.commandLine) + "\n"
        out += TextLayout.wrap(example.explanation, width: width, indent: 6) + "\n"
      }
      out += "\n"
    }
    out += "  See 'man shelf-\(command.name)' for the full manual.\n"
    return out
  }

  /// The help of `help` itself (`shelf help help`, `shelf help --help`).
  func helpOfHelp() -> String {
    var out = overview(HelpTopic.abstract)
    out += TextLayout.wrap(HelpTopic.discussion, width: width) + "\n\n"
    out += "USAGE: \(HelpTopic.usage)\n\n"
    out += "ARGUMENTS:\n" + entry("<command>", HelpTopic.argumentHelp) + "\n\n"
    out +=
      "COMMANDS:\n" + TextLayout.wrap(commands.map(\.name).joined(separator: " "), width: width, indent: 2)
    out += "\n\nEXAMPLES:\n"
    for example in HelpTopic.examples {
      out += commandLine(example.commandLine) + "\n"
      out += TextLayout.wrap(example.explanation, width: width, indent: 6) + "\n"
    }
    out += "\n  See 'man shelf' for the full manual.\n"
    return out
  }

  /// The OVERVIEW line, wrapped, and the blank line after it.
  private func overview(_ abstract: String) -> String {
    TextLayout.wrap("OVERVIEW: " + abstract, width: width) + "\n\n"
  }

  /// An example's command line, indented, broken where the shell would split it with a
  /// trailing backslash when it is wider than the page, so that it can still be pasted.
  private func commandLine(_ line: String) -> String {
    var lines: [String] = []
    var current = "  "
    for word in Self.shellWords(line) {
      if current != "  " && current.count + 1 + word.count + 2 > width {
        lines.append(current + " \\")
        current = "    "
      } else if current != "  " && current != "    " {
        current += " "
      }
      current += word
    }
    return (lines + [current]).joined(separator: "\n")
  }

  /// `line` split at the spaces the shell splits at: not inside quotes, not after a backslash.
  static func shellWords(_ line: String) -> [String] {
    var words: [String] = []
    var word = ""
    var quote: Character?
    var escaped = false
    for character in line {
      if escaped {
        escaped = false
      } else if character == "\\" && quote != "'" {
        escaped = true
      } else if let open = quote {
        if character == open { quote = nil }
      } else if character == "'" || character == "\"" {
        quote = character
      } else if character == " " {
        if !word.isEmpty { words.append(word) }
        word = ""
        continue
      }
      word.append(character)
    }
    if !word.isEmpty { words.append(word) }
    return words
  }

  private func options(_ specs: [OptionSpec]) -> String {
    specs.map { spec in
      var help = spec.help
      if let defaultValue = spec.defaultValue { help += " (default: \(defaultValue))" }
      if !spec.choices.isEmpty && !help.contains(spec.choices.joined(separator: "|")) {
        help += " (values: \(spec.choices.joined(separator: ", ")))"
      }
      return entry(spec.synopsis, help) + "\n"
    }.joined()
  }

  /// An indented name with its description in a second column, wrapped.
  private func entry(_ name: String, _ help: String) -> String {
    let label = "  " + name
    if label.count + 2 > helpColumn {
      return label + "\n" + TextLayout.wrap(help, width: width, indent: helpColumn)
    }
    let wrapped = TextLayout.wrap(help, width: width, indent: helpColumn)
    return label + wrapped.dropFirst(label.count)
  }

  /// A paragraph: wrapped prose, or verbatim lines when it starts with two spaces.
  private func render(_ paragraph: String) -> String {
    if paragraph.hasPrefix("  ") { return paragraph }
    return TextLayout.wrap(paragraph.split(separator: "\n").joined(separator: " "), width: width)
  }

  /// Splits text at blank lines.
  static func paragraphs(_ text: String) -> [String] {
    var result: [String] = []
    var current: [Substring] = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.allSatisfy({ $0 == " " }) {
        if !current.isEmpty { result.append(current.joined(separator: "\n")) }
        current = []
      } else {
        current.append(line)
      }
    }
    if !current.isEmpty { result.append(current.joined(separator: "\n")) }
    return result
  }
}

/// Facts about the program as a whole.
enum ShelfInfo {
  static let version = "0.1.0"
  static let abstract =
    "Catalogue, crush, play and record the media in an app sandbox or any media folder."
  static let discussion =
    "shelf walks an application sandbox (an app bundle beside Documents/, Library/ and tmp/) or "
    + "any media folder, detects each file's type by content, keeps what it learns in an SQLite "
    + "catalogue, crushes PNG files losslessly (including Apple's iPhone-optimized CgBI form), "
    + "and plays and records audio through ALSA."
  static let usage = "shelf [--db <path>] [-v] <command> [<options>] [<arguments>]"
}
