import ShelfCore

/// Renders the man pages (`shelf.1`, `shelf-<command>.1`) from the command table, so that
/// every option documented in `--help` is in the manual too.
struct ManPageRenderer {
  let commands: [Command]

  /// File names and contents of every page.
  func pages() -> [(name: String, content: String)] {
    [("shelf.1", rootPage())] + commands.map { ("shelf-\($0.name).1", page(for: $0)) }
  }

  func rootPage() -> String {
    var out = header(title: "SHELF")
    out += ".SH NAME\nshelf \\- \(Self.escape(lowercasedFirst(ShelfInfo.abstract)))\n"
    out += ".SH SYNOPSIS\n.B shelf\n[\\fB\\-\\-db\\fR \\fIpath\\fR] [\\fB\\-v\\fR]\n"
    out += "\\fIcommand\\fR [\\fIoptions\\fR] [\\fIarguments\\fR]\n"
    out += ".SH DESCRIPTION\n" + Self.escape(ShelfInfo.discussion) + "\n"
    out += sections(GeneralManual.sections)
    out += ".SH COMMANDS\n"
    for command in commands {
      out += ".TP\n.B \(command.name)\n\(Self.escape(command.abstract))\n"
      out += "See \\fBshelf\\-\(command.name)\\fR(1).\n"
    }
    out += ".TP\n.B \(HelpTopic.name)\n\(HelpTopic.abstract)\n"
    out += ".SH GLOBAL OPTIONS\n" + options(GlobalOptions.specs)
    out += exitStatus()
    out += ".SH ENVIRONMENT\n"
    let environment = [
      ("SHELF_DB", "The catalogue database, unless \\fB\\-\\-db\\fR is given."),
      (
        "XDG_DATA_HOME",
        "The default catalogue is \\fI$XDG_DATA_HOME/shelf/catalog.sqlite\\fR (\\fI~/.local/share/shelf/catalog.sqlite\\fR when unset)."
      ),
      ("NO_COLOR", "When set and not empty, output carries no colour."),
      ("COLUMNS", "The width that help and tables are wrapped to."),
      ("PAGER", "The pager \\fBshelf show\\fR uses for text on a terminal."),
    ]
    for (name, text) in environment { out += ".TP\n.B \(name)\n\(text)\n" }
    for (name, text) in GeneralManual.environment {
      out += ".TP\n.B \(Self.escape(name))\n\(Self.escape(text))\n"
    }
    out += ".SH SEE ALSO\n"
    out += commands.map { "\\fBshelf\\-\($0.name)\\fR(1)" }.joined(separator: ",\n") + "\n"
    return out
  }

  func page(for command: Command) -> String {
    var out = header(title: "SHELF-\(command.name.uppercased())")
    out += ".SH NAME\nshelf\\-\(command.name) \\- \(Self.escape(lowercasedFirst(command.abstract)))\n"
    out += ".SH SYNOPSIS\n.B shelf \(command.name)\n"
    if !command.options.isEmpty { out += "[\\fIoptions\\fR]\n" }
    for argument in command.arguments {
      var text = "\\fI\(argument.name)\\fR" + (argument.isRepeating ? " .\\|.\\|." : "")
      if argument.isOptional { text = "[" + text + "]" }
      out += text + "\n"
    }
    out += ".SH DESCRIPTION\n" + Self.escape(command.abstract) + "\n"
    out += paragraphs(command.discussion)
    if !command.arguments.isEmpty {
      out += ".SH ARGUMENTS\n"
      for argument in command.arguments {
        out += ".TP\n.I \(argument.name)\n\(Self.escape(argument.help))\n"
      }
    }
    if !command.options.isEmpty {
      out += ".SH OPTIONS\n" + options(command.options)
    }
    out += ".SH GLOBAL OPTIONS\n" + options(GlobalOptions.specs)
    out += sections(command.manSections)
    if !command.examples.isEmpty {
      out += ".SH EXAMPLES\n"
      for example in command.examples {
        out += ".TP\n.B \(Self.escape(example.commandLine))\n\(Self.escape(example.explanation))\n"
      }
    }
    out += exitStatus()
    out += ".SH SEE ALSO\n\\fBshelf\\fR(1)\n"
    return out
  }

  /// Extra sections, each a `.SH` heading in capitals over its paragraphs.
  private func sections(_ sections: [ManSection]) -> String {
    sections.map { ".SH \($0.title.uppercased())\n" + paragraphs($0.body) }.joined()
  }

  private func header(title: String) -> String {
    ".\\\" Generated from shelf's command table by `make man`; do not edit.\n"
      + ".TH \(title) 1 \"\" \"shelf \(ShelfInfo.version)\" \"shelf manual\"\n"
  }

  private func options(_ specs: [OptionSpec]) -> String {
    specs.map { spec in
      var synopsis = spec.short.map { "\\fB\\-\($0)\\fR, " } ?? ""
      synopsis += "\\fB\\-\\-\(Self.escape(spec.long, dashes: false))\\fR"
      if let valueName = spec.valueName { synopsis += " \\fI\(valueName)\\fR" }
      var help = spec.help
      if let defaultValue = spec.defaultValue { help += " Default: \(defaultValue)." }
      if !spec.choices.isEmpty { help += " Values: \(spec.choices.joined(separator: ", "))." }
      return ".TP\n\(synopsis)\n\(Self.escape(help))\n"
    }.joined()
  }

  private func exitStatus() -> String {
    ".SH EXIT STATUS\n"
      + ExitStatus.documented.map { ".TP\n.B \($0.0.code)\n\(Self.escape($0.1))\n" }.joined()
  }

  /// Prose paragraphs as `.PP`; paragraphs whose lines start with two spaces stay verbatim.
  private func paragraphs(_ text: String) -> String {
    HelpRenderer.paragraphs(text).map { paragraph in
      if paragraph.hasPrefix("  ") {
        let lines = paragraph.split(separator: "\n").map { Self.escape(String($0.dropFirst(2))) }
        return ".PP\n.RS 4\n.nf\n" + lines.joined(separator: "\n") + "\n.fi\n.RE\n"
      }
      return ".PP\n" + Self.escape(paragraph.split(separator: "\n").joined(separator: " ")) + "\n"
    }.joined()
  }

  private func lowercasedFirst(_ text: String) -> String {
    var text = text
    if text.hasSuffix(".") { text.removeLast() }
    guard let first = text.first, !(text.dropFirst().first?.isUppercase ?? false) else { return text }
    return first.lowercased() + text.dropFirst()
  }

  /// Escapes text for roff: backslashes, hyphens (as `\-` so they copy as ASCII), and a
  /// leading `.` or `'` that would read as a request.
  static func escape(_ text: String, dashes: Bool = true) -> String {
    var out = text.replacingAll("\\", with: "\\e")
    if dashes { out = out.replacingAll("-", with: "\\-") }
    if out.hasPrefix(".") || out.hasPrefix("'") { out = "\\&" + out }
    return out
  }
}
