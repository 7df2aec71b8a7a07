import ShelfCore

/// What the command line asks for.
enum ParseResult: Sendable {
  case run(Command, ParsedArguments)
  case help(Command?)
  /// `shelf help help`, `shelf help --help`: the help of the help command itself.
  case helpOfHelp
  case version
  /// `shelf` alone: the short usage (the commands, one line each) on stderr, exit 64.
  case usageSummary
}

/// Parses `shelf [global options] COMMAND [options and arguments]` against the command table,
/// with the conventions of swift-argument-parser and getopt_long: `--name value`,
/// `--name=value`, grouped short flags (`-rv`), attached short values (`-j4`), `--` to end
/// options, `-` as an ordinary argument, and "did you mean" suggestions.
struct ArgumentParser {
  let commands: [Command]

  /// Parses the arguments after the program name; global options land in `globals`.
  func parse(_ arguments: [CommandLineArgument], globals: inout ParsedArguments)
    throws(UsageError) -> ParseResult
  {
    var index = 0
    while index < arguments.count, Self.looksLikeOption(arguments[index].string) {
      let token = arguments[index].string
      if token == "--" { index += 1; break }
      var ignoredOptions = ParsedArguments(commandName: "")
      try consumeOption(
        at: &index, in: arguments, specs: GlobalOptions.specs, command: nil,
        into: &globals, commandOptions: &ignoredOptions)
    }
    if globals[GlobalOptions.help] { return .help(nil) }
    if globals[GlobalOptions.version] { return .version }
    guard index < arguments.count else {
      // `shelf` alone is a usage error that lists the commands; `shelf --db X` alone forgot
      // the command.
      if index == 0 { return .usageSummary }
      throw UsageError("missing <command> after the global options")
    }

    let name = arguments[index].string
    index += 1
    if name == HelpTopic.name {
      return try parseHelp(Array(arguments[index...]))
    }
    let command = try command(named: name)
    var parsed = ParsedArguments(commandName: command.name)
    let specs = command.options + GlobalOptions.specs
    var optionsEnded = false
    while index < arguments.count {
      let argument = arguments[index]
      let token = argument.string
      if optionsEnded || !Self.looksLikeOption(token)
        || (command.acceptsNegatedTerms && Self.isNegatedTerm(token, specs: specs))
      {
        parsed.append(positional: argument)
        index += 1
      } else if token == "--" {
        optionsEnded = true
        index += 1
      } else if command.acceptsNegatedTerms, let word = Self.excludedWord(token, specs: specs) {
        throw UsageError(
          "unknown option '\(word)'; to exclude a word, write -- \(word)", command: command.name)
      } else {
        try consumeOption(
          at: &index, in: arguments, specs: specs, command: command, into: &globals,
          commandOptions: &parsed)
      }
    }
    if globals[GlobalOptions.help] { return .help(command) }
    if globals[GlobalOptions.version] { return .version }
    try checkPositionals(parsed.positionals, of: command)
    return .run(command, parsed)
  }

  /// `shelf help [<command>]`: the overview, a command's page, or (for `help help` and
  /// `help --help`) the page of `help` itself.
  private func parseHelp(_ arguments: [CommandLineArgument]) throws(UsageError) -> ParseResult {
    let asksForHelp = arguments.contains { $0.string == "--help" || $0.string == "-h" }
    let topics = arguments.filter { $0.string != "--help" && $0.string != "-h" }
    if let option = topics.first(where: { Self.looksLikeOption($0.string) }) {
      throw UsageError("unknown option '\(option.string)'", command: HelpTopic.name)
    }
    if topics.count > 1 {
      throw UsageError("unexpected argument '\(topics[1].path.escaped)'", command: HelpTopic.name)
    }
    guard let topic = topics.first else { return asksForHelp ? .helpOfHelp : .help(nil) }
    if topic.string == HelpTopic.name { return .helpOfHelp }
    return .help(try command(named: topic.string))
  }

  private func command(named name: String) throws(UsageError) -> Command {
    if let command = commands.first(where: { $0.name == name }) { return command }
    var message = "unknown command '\(name)'"
    if let suggestion = Suggestions.closest(to: name, among: commands.map(\.name) + [HelpTopic.name]) {
      message += "; did you mean '\(suggestion)'?"
    }
    throw UsageError(message)
  }

  /// Consumes one option token (and its value) at `index`. Options of `GlobalOptions.specs`
  /// go to `globals`, the command's own to `commandOptions`.
  private func consumeOption(
    at index: inout Int, in arguments: [CommandLineArgument], specs: [OptionSpec],
    command: Command?, into globals: inout ParsedArguments, commandOptions parsed: inout ParsedArguments
  ) throws(UsageError) {
    let argument = arguments[index]
    let token = argument.string
    index += 1
    if token.hasPrefix("--") {
      let name = String(token.dropFirst(2).prefix { $0 != "=" })
      // The value after `=` is cut from the raw bytes, so paths that are not UTF-8 survive.
      let attached = argument.path.bytes.firstIndex(of: UInt8(ascii: "=")).map {
        CommandLineArgument(bytes: Array(argument.path.bytes[($0 + 1)...]))
      }
      guard let spec = specs.first(where: { $0.long == name }) else {
        throw unknownOption("--" + name, specs: specs, command: command)
      }
      if spec.isFlag {
        if attached != nil {
          throw UsageError("option '--\(name)' takes no value", command: command?.name)
        }
        try record(spec, value: nil, command: command, globals: &globals, parsed: &parsed)
      } else {
        var value: CommandLineArgument
        if let attached {
          value = attached
        } else {
          value = try takeValue(for: spec, at: &index, in: arguments, command: command)
        }
        try record(spec, value: value, command: command, globals: &globals, parsed: &parsed)
      }
      return
    }
    // Grouped short options: -rv, -j4, -o dir.
    var characters = Substring(token.dropFirst())
    while let character = characters.first {
      characters = characters.dropFirst()
      guard let spec = specs.first(where: { $0.short == character }) else {
        throw unknownOption("-" + String(character), specs: specs, command: command)
      }
      if spec.isFlag {
        try record(spec, value: nil, command: command, globals: &globals, parsed: &parsed)
      } else {
        // An attached value (`-j4`, `-odir`) starts after the ASCII flag characters.
        let offset = token[..<characters.startIndex].utf8.count
        var value = CommandLineArgument(bytes: Array(argument.path.bytes[offset...]))
        if characters.isEmpty {
          value = try takeValue(for: spec, at: &index, in: arguments, command: command)
        }
        try record(spec, value: value, command: command, globals: &globals, parsed: &parsed)
        return
      }
    }
  }

  private func takeValue(
    for spec: OptionSpec, at index: inout Int, in arguments: [CommandLineArgument],
    command: Command?
  ) throws(UsageError) -> CommandLineArgument {
    guard index < arguments.count else {
      throw UsageError(
        "option '--\(spec.long)' needs a value <\(spec.valueName ?? "value")>", command: command?.name)
    }
    index += 1
    return arguments[index - 1]
  }

  /// Records one option; a typed option's value is parsed here, once, and a bad one is a
  /// usage error naming the option, the value and what it expects.
  private func record(
    _ spec: OptionSpec, value argument: CommandLineArgument?, command: Command?,
    globals: inout ParsedArguments, parsed: inout ParsedArguments
  ) throws(UsageError) {
    var typed: (any Sendable)? = nil
    if let argument, let parse = spec.parse {
      do {
        typed = try parse(argument.string)
      } catch {
        var message = "invalid value '\(argument.string)' for '--\(spec.long)': expected \(error.expected)"
        if let suggestion = error.suggestion { message += "; did you mean '\(suggestion)'?" }
        throw UsageError(message, command: command?.name)
      }
    }
    if GlobalOptions.specs.contains(where: { $0.long == spec.long }) {
      globals.record(spec, value: argument, typed: typed)
    } else {
      parsed.record(spec, value: argument, typed: typed)
    }
  }

  private func unknownOption(_ option: String, specs: [OptionSpec], command: Command?) -> UsageError {
    var message = "unknown option '\(option)'"
    let candidates = specs.flatMap { spec in ["--" + spec.long] + (spec.short.map { ["-\($0)"] } ?? []) }
    if option.hasPrefix("--"),
      let suggestion = Suggestions.closest(to: option, among: candidates.filter { $0.hasPrefix("--") })
    {
      message += "; did you mean '\(suggestion)'?"
    } else if command == nil,
      commands.contains(where: { command in command.options.contains { "--" + $0.long == option } })
    {
      message += "; options of a command go after its name"
    }
    return UsageError(message, command: command?.name)
  }

  private func checkPositionals(_ positionals: [CommandLineArgument], of command: Command)
    throws(UsageError)
  {
    let required = command.arguments.filter { !$0.isOptional }
    if positionals.count < required.count {
      let missing = required[positionals.count]
      throw UsageError("missing argument <\(missing.name)>", command: command.name)
    }
    if !command.arguments.contains(where: \.isRepeating), positionals.count > command.arguments.count {
      throw UsageError(
        "unexpected argument '\(positionals[command.arguments.count].path.escaped)'",
        command: command.name)
    }
  }

  /// True for `-x`, `--xyz` and `--`, false for `-` (standard input) and plain words.
  static func looksLikeOption(_ token: String) -> Bool {
    token.hasPrefix("-") && token != "-"
  }

  /// A query term such as `-kind:image` or `-size>1M` rather than grouped short flags.
  static func isNegatedTerm(_ token: String, specs: [OptionSpec]) -> Bool {
    guard token.hasPrefix("-"), !token.hasPrefix("--"), token.count > 2 else { return false }
    return token.contains { ":<>=".contains($0) }
  }

  /// For a command that takes a query, a token such as `-holiday` that is not grouped short
  /// options of `specs`: most likely a word meant to be excluded, which only `--` can tell
  /// from options (as `rg -- -e` does). A token is options when it is flags that may end with
  /// an option taking the rest as its value (`-l0`, `-j4`, `-o/tmp`), except that among
  /// letters alone a value must follow the first (`-Dnull`): `-holiday` is never help (`-h`)
  /// and a value `liday` for `-o`. Nil when the token is options.
  static func excludedWord(_ token: String, specs: [OptionSpec]) -> String? {
    guard !token.hasPrefix("--"), token.count > 2 else { return nil }
    let characters = token.dropFirst()
    func spec(_ character: Character) -> OptionSpec? { specs.first { $0.short == character } }
    let lettersAlone = characters.allSatisfy(\.isLetter)
    for (offset, character) in characters.enumerated() {
      guard let found = spec(character) else { return token }
      if !found.isFlag { return lettersAlone && offset > 0 ? token : nil }
    }
    return nil
  }

  /// "a, b or c".
  static func list(_ items: [String], conjunction: String) -> String {
    guard items.count > 1 else { return items.first ?? "" }
    return items.dropLast().joined(separator: ", ") + " \(conjunction) " + items.last!
  }
}
