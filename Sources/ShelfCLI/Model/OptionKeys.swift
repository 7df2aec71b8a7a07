/// The typed key of one option: declared once per command, listed in its `Command` table
/// (help, man page, completions) and used again to read the option, so that a misspelt
/// option is a compile error rather than a silent `false`.
package protocol OptionKey: Sendable {
  /// What help, the man pages, the completions and the parser know of the option.
  var spec: OptionSpec { get }
}

/// A flag (`--json`): given or not, read as a `Bool`.
package struct Flag: OptionKey {
  package let spec: OptionSpec

  package init(_ long: String, short: Character? = nil, help: String) {
    spec = OptionSpec(long, short: short, help: help)
  }
}

/// An option with a value (`--level 4`): read as a `String?`, or through the typed readers of
/// `ParsedArguments` (integer in a range, duration, byte size, path, every value).
package struct Option: OptionKey {
  package let spec: OptionSpec

  package init(
    _ long: String, short: Character? = nil, value valueName: String, help: String, choices: [String] = [],
    defaultValue: String? = nil, repeatable: Bool = false, completion: Completion? = nil
  ) {
    spec = OptionSpec(
      long, short: short, value: valueName, help: help, choices: choices, defaultValue: defaultValue,
      repeatable: repeatable, completion: completion)
  }
}
