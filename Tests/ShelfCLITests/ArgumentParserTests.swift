import ShelfCore
import Testing

@testable import ShelfCLI

/// The options of the small command tables below.
private enum Keys {
  static let outDir = Option("out-dir", short: "o", value: "dir", help: "Output.")
  static let recursive = Flag("recursive", short: "r", help: "Recurse.")
  static let jobs = TypedOption<Int?>(
    "jobs", short: "j", value: "n", help: "Workers.", parser: .integer(in: 1...64))
  static let level = TypedOption(
    "level", value: "level", help: "Level.", parser: .choices(["0", "1", "2", "max"], named: { $0 }),
    default: "2")
  static let exclude = Option("exclude", value: "glob", help: "Skip.", repeatable: true)
  static let long = Flag("long", short: "l", help: "Long.")
  static let format = Option("format", short: "F", value: "t", help: "Format.")
}

/// A small command table to exercise the parser without running anything.
private let sample = Command(
  name: "crush", abstract: "Crush.",
  arguments: [ArgumentSpec("file", help: "Files.", repeating: true)],
  options: [Keys.outDir, Keys.recursive, Keys.jobs, Keys.level, Keys.exclude],
  run: { _ in .success })

private let query = Command(
  name: "ls", abstract: "List.",
  arguments: [ArgumentSpec("query", help: "Terms.", optional: true, repeating: true)],
  options: [Keys.long, Keys.format], acceptsNegatedTerms: true,
  run: { _ in .success })

private func parse(_ words: [String]) throws(UsageError) -> (ParseResult, ParsedArguments) {
  var globals = ParsedArguments(commandName: "shelf")
  let result = try ArgumentParser(commands: [sample, query]).parse(
    words.map(CommandLineArgument.init), globals: &globals)
  return (result, globals)
}

private func parsedOptions(_ words: [String]) throws -> ParsedArguments {
  guard case .run(_, let parsed) = try parse(words).0 else {
    Issue.record("expected a command to run")
    return ParsedArguments(commandName: "")
  }
  return parsed
}

@Test func longOptionsTakeValuesWithOrWithoutEquals() throws {
  let parsed = try parsedOptions(["crush", "--out-dir=out", "--jobs", "4", "a.png"])
  #expect(parsed[Keys.outDir] == "out")
  #expect(parsed[Keys.jobs] == 4)
  #expect(parsed.positionals.map(\.string) == ["a.png"])
}

@Test func groupedShortFlagsAndAttachedValues() throws {
  let parsed = try parsedOptions(["crush", "-rj3", "-o", "dir", "x.png"])
  #expect(parsed[Keys.recursive])
  #expect(parsed[Keys.jobs] == 3)
  #expect(parsed[Keys.outDir] == "dir")
}

@Test func doubleDashEndsOptionsAndDashIsAnArgument() throws {
  let parsed = try parsedOptions(["crush", "--", "-r", "-"])
  #expect(!parsed[Keys.recursive])
  #expect(parsed.positionals.map(\.string) == ["-r", "-"])
  #expect(try parsedOptions(["crush", "-"]).positionals.map(\.string) == ["-"])
}

@Test func repeatableOptionsKeepEveryValue() throws {
  let parsed = try parsedOptions(["crush", "--exclude", "*.tmp", "--exclude=cache", "a"])
  #expect(parsed.values(Keys.exclude) == ["*.tmp", "cache"])
}

@Test func globalOptionsAreAcceptedBeforeAndAfterTheCommand() throws {
  let (_, before) = try parse(["--db", "/tmp/a.sqlite", "crush", "x"])
  #expect(before[GlobalOptions.db] == "/tmp/a.sqlite")
  let (_, after) = try parse(["crush", "x", "--db=/tmp/b.sqlite", "-v"])
  #expect(after[GlobalOptions.db] == "/tmp/b.sqlite")
  #expect(after[GlobalOptions.verbose])
}

@Test func negatedQueryTermsArePositionals() throws {
  let parsed = try parsedOptions(["ls", "-kind:image", "-l", "size>1M"])
  #expect(parsed.positionals.map(\.string) == ["-kind:image", "size>1M"])
  #expect(parsed[Keys.long])
}

@Test func aDashWordInAQueryIsAnUnknownOptionThatSaysHowToExcludeIt() throws {
  for word in ["-holiday", "-lhx", "-2024"] {
    #expect(
      throws: UsageError("unknown option '\(word)'; to exclude a word, write -- \(word)", command: "ls")
    ) { try parse(["ls", word]) }
  }
  #expect(try parsedOptions(["ls", "-ll"])[Keys.long])
  // An option whose value is attached, letters or not.
  #expect(try parsedOptions(["ls", "-Ffish"])[Keys.format] == "fish")
  #expect(try parsedOptions(["ls", "-lF{name}"])[Keys.format] == "{name}")
  #expect(throws: UsageError("unknown option '-lFx'; to exclude a word, write -- -lFx", command: "ls")) {
    try parse(["ls", "-lFx"])
  }
  #expect(try parsedOptions(["ls", "--", "-holiday"]).positionals.map(\.string) == ["-holiday"])
  // Commands without a query keep getopt's grouping: -holiday would be -h -o liday there.
  #expect(throws: UsageError("unknown option '-a'", command: "crush")) { try parse(["crush", "-ra", "x"]) }
}

@Test func misspelledCommandsAndOptionsGetSuggestions() {
  #expect(throws: UsageError("unknown command 'crsh'; did you mean 'crush'?")) {
    try parse(["crsh"])
  }
  #expect(throws: UsageError("unknown option '--recursiv'; did you mean '--recursive'?", command: "crush")) {
    try parse(["crush", "--recursiv", "a"])
  }
  #expect(
    throws: UsageError(
      "invalid value 'mx' for '--level': expected '0', '1', '2' or 'max'; did you mean 'max'?",
      command: "crush")
  ) {
    try parse(["crush", "--level", "mx", "a"])
  }
}

@Test func missingValuesAndArgumentsAreUsageErrors() {
  #expect(throws: UsageError("option '--out-dir' needs a value <dir>", command: "crush")) {
    try parse(["crush", "a", "--out-dir"])
  }
  #expect(throws: UsageError("missing argument <file>", command: "crush")) {
    try parse(["crush", "-r"])
  }
  #expect(throws: UsageError("option '--recursive' takes no value", command: "crush")) {
    try parse(["crush", "--recursive=yes", "a"])
  }
  #expect(
    throws: UsageError(
      "invalid value 'many' for '--jobs': expected an integer from 1 to 64", command: "crush")
  ) {
    try parse(["crush", "-j", "many", "a"])
  }
}

@Test func typedOptionsAreParsedOnceWithTheirDefaultWrittenOnce() throws {
  let given = try parsedOptions(["crush", "--level", "max", "-j", "7", "a"])
  #expect(given[Keys.level] == "max")
  #expect(given[Keys.jobs] == 7)
  let omitted = try parsedOptions(["crush", "a"])
  #expect(omitted[Keys.level] == "2")
  #expect(omitted[Keys.jobs] == nil)
  // The declaration's default and choices are what help, the man page and completions show.
  #expect(Keys.level.spec.defaultValue == "2")
  #expect(Keys.level.spec.choices == ["0", "1", "2", "max"])
  #expect(Keys.level.spec.completion == .choices(["0", "1", "2", "max"]))
  #expect(Keys.jobs.spec.defaultValue == nil)
  // The last of repeated values wins, as for text options.
  #expect(try parsedOptions(["crush", "-j", "2", "--jobs=3", "a"])[Keys.jobs] == 3)
}

@Test func helpAfterOptionsAndArgumentsStillShowsHelp() throws {
  guard case .help(let command) = try parse(["crush", "-r", "a.png", "--help"]).0 else {
    Issue.record("--help after arguments did not ask for help")
    return
  }
  #expect(command?.name == "crush")
}

@Test func helpCommandAndFlagsSelectTheRightPage() throws {
  if case .help(let command) = try parse(["help", "ls"]).0 {
    #expect(command?.name == "ls")
  } else {
    Issue.record("help ls did not ask for help")
  }
  if case .help(let command) = try parse(["ls", "-h"]).0 {
    #expect(command?.name == "ls")
  } else {
    Issue.record("ls -h did not ask for help")
  }
  if case .usageSummary = try parse([]).0 {
  } else {
    Issue.record("no arguments did not ask for the short usage")
  }
  if case .version = try parse(["--version"]).0 {} else { Issue.record("--version not recognised") }
  if case .version = try parse(["-V"]).0 {} else { Issue.record("-V not recognised") }
  for words in [["help", "help"], ["help", "--help"], ["help", "-h"]] {
    if case .helpOfHelp = try parse(words).0 {
    } else {
      Issue.record("\(words) did not show the help of help")
    }
  }
  if case .help(let command) = try parse(["help", "ls", "--help"]).0 {
    #expect(command?.name == "ls")
  } else {
    Issue.record("help ls --help did not ask for help")
  }
}

@Test func globalOptionsWithoutACommandAreAUsageError() {
  #expect(throws: UsageError("missing <command> after the global options")) { try parse(["--db", "x"]) }
  #expect(throws: UsageError("unknown command 'nosuch'")) { try parse(["help", "nosuch"]) }
  #expect(throws: UsageError("unexpected argument 'x'", command: "help")) { try parse(["help", "ls", "x"]) }
}

@Test func optionValuesKeepTheirExactBytes() throws {
  let name: [UInt8] = Array("out".utf8) + [0xFF, 0x0A]
  let forms: [[[UInt8]]] = [
    [Array("--out-dir=".utf8) + name], [Array("-o".utf8) + name], [Array("--out-dir".utf8), name],
    [Array("-ro".utf8) + name],
  ]
  for form in forms {
    var globals = ParsedArguments(commandName: "shelf")
    let words = [Array("crush".utf8)] + form + [Array("a.png".utf8)]
    let result = try ArgumentParser(commands: [sample, query]).parse(
      words.map(CommandLineArgument.init(bytes:)), globals: &globals)
    guard case .run(_, let parsed) = result else {
      Issue.record("expected a command to run")
      continue
    }
    #expect(parsed.path(Keys.outDir) == RawPath(bytes: name))
    #expect(parsed.positionals.map(\.string) == ["a.png"])
  }
}

/// Help, the man pages and completions show what the declarations say: every choice an option
/// lists, and the default it shows, is a value its parser takes, in every command of the table.
@Test func everyListedChoiceAndShownDefaultIsAValueTheOptionTakes() throws {
  for command in CommandTable.commands {
    for option in command.options {
      guard let parse = option.parse else {
        #expect(option.choices.isEmpty, "\(command.name) --\(option.long) lists choices it does not parse")
        continue
      }
      for text in option.choices + (option.defaultValue.map { [$0] } ?? []) {
        #expect(throws: Never.self, "\(command.name) --\(option.long) refuses its own '\(text)'") {
          _ = try parse(text)
        }
      }
      if let defaultValue = option.defaultValue, !option.choices.isEmpty {
        #expect(option.choices.contains(defaultValue), "\(command.name) --\(option.long)")
      }
    }
  }
}
