/// One `shelf` command: its documentation, its arguments and options, and what it runs.
///
/// Help, man pages and shell completions are all generated from these values, so the
/// command table is the single source of truth for the interface.
package struct Command: Sendable {
  package let name: String
  /// One line, shown in command lists and as the help overview.
  package let abstract: String
  /// Paragraphs separated by blank lines.
  package let discussion: String
  package let arguments: [ArgumentSpec]
  package let options: [OptionSpec]
  package let examples: [Example]
  /// Extra man-page sections (e.g. the query syntax of `ls`).
  package let manSections: [ManSection]
  /// When true, tokens such as `-kind:image` are query terms, not options.
  package let acceptsNegatedTerms: Bool
  package let run: @Sendable (Invocation) async throws -> ExitStatus

  package init(
    name: String, abstract: String, discussion: String = "", arguments: [ArgumentSpec] = [],
    options: [any OptionKey] = [], examples: [Example] = [], manSections: [ManSection] = [],
    acceptsNegatedTerms: Bool = false,
    run: @escaping @Sendable (Invocation) async throws -> ExitStatus
  ) {
    self.name = name
    self.abstract = abstract
    self.discussion = discussion
    self.arguments = arguments
    self.options = options.map(\.spec)
    self.examples = examples
    self.manSections = manSections
    self.acceptsNegatedTerms = acceptsNegatedTerms
    self.run = run
  }

  /// The usage line, e.g. `shelf crush [<options>] <file> ...`.
  package var usage: String {
    var parts = ["shelf", name]
    if !options.isEmpty { parts.append("[<options>]") }
    for argument in arguments { parts.append(argument.usage) }
    return parts.joined(separator: " ")
  }
}

/// How a shell should complete a value.
package enum Completion: Sendable, Equatable {
  case none
  case file
  case directory
  case choices([String])
  /// Query terms: the query fields (`kind:`, `-kind:`), then the values of those that take a
  /// fixed set (`kind:image`).
  case queryTerms
  /// Files and folders, or query terms (`play`, `gain`).
  case filesOrQueryTerms
  /// A `--sort` key: a field entries can be sorted by, then `:asc` or `:desc`.
  case sortKeys
  /// An ALSA device for playback (else capture), as `shelf devices` lists them when asked.
  case devices(playback: Bool)
}

/// A named option: a flag (`--json`) or an option with a value (`--level 4`), as declared by
/// its key (`Flag`, `Option`, `TypedOption`).
package struct OptionSpec: Sendable {
  /// The long name without dashes.
  package let long: String
  package let short: Character?
  /// The value's placeholder name; nil for a flag.
  package let valueName: String?
  package let help: String
  /// Allowed values, from the value's type (help, man page, completions); empty means any.
  package let choices: [String]
  /// The default, shown in help.
  package let defaultValue: String?
  /// A typed option's value from its text, run once by the parser; nil for text and paths.
  let parse: (@Sendable (String) throws(InvalidOptionValue) -> any Sendable)?
  /// True when the option may be given more than once and every value counts.
  package let repeatable: Bool
  package let completion: Completion

  init(
    _ long: String, short: Character? = nil, value valueName: String? = nil, help: String,
    choices: [String] = [], defaultValue: String? = nil, repeatable: Bool = false,
    completion: Completion? = nil,
    parse: (@Sendable (String) throws(InvalidOptionValue) -> any Sendable)? = nil
  ) {
    self.parse = parse
    self.long = long
    self.short = short
    self.valueName = valueName
    self.help = help
    self.choices = choices
    self.defaultValue = defaultValue
    self.repeatable = repeatable
    if let completion {
      self.completion = completion
    } else if !choices.isEmpty {
      self.completion = .choices(choices)
    } else {
      self.completion = valueName == nil ? .none : .file
    }
  }

  /// True for a flag, which takes no value.
  package var isFlag: Bool { valueName == nil }

  /// The option as shown in help: `-o, --out-dir <dir>`.
  package var synopsis: String {
    var text = short.map { "-\($0), " } ?? ""
    text += "--\(long)"
    if let valueName { text += " <\(valueName)>" }
    return text
  }
}

/// A positional argument.
package struct ArgumentSpec: Sendable {
  package let name: String
  package let help: String
  package let isOptional: Bool
  package let isRepeating: Bool
  package let completion: Completion

  package init(
    _ name: String, help: String, optional: Bool = false, repeating: Bool = false,
    completion: Completion = .file
  ) {
    self.name = name
    self.help = help
    self.isOptional = optional
    self.isRepeating = repeating
    self.completion = completion
  }

  var usage: String {
    let base = isRepeating ? "<\(name)> ..." : "<\(name)>"
    return isOptional ? "[\(base)]" : base
  }
}

/// A usage example: the command line and what it does.
package struct Example: Sendable {
  package let commandLine: String
  package let explanation: String

  package init(_ commandLine: String, _ explanation: String) {
    self.commandLine = commandLine
    self.explanation = explanation
  }
}

/// An extra section of a command's man page.
package struct ManSection: Sendable {
  package let title: String
  /// Paragraphs separated by blank lines; lines starting with two spaces are kept verbatim.
  package let body: String

  package init(_ title: String, _ body: String) {
    self.title = title
    self.body = body
  }
}
