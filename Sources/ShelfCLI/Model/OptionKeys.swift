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

/// An option whose value is text or a path (`--out-dir DIR`, `--exclude GLOB`): read as a
/// `String?`, a `RawPath` with its exact bytes, or every value given.
package struct Option: OptionKey {
  package let spec: OptionSpec

  package init(
    _ long: String, short: Character? = nil, value valueName: String, help: String, repeatable: Bool = false,
    completion: Completion? = nil
  ) {
    spec = OptionSpec(
      long, short: short, value: valueName, help: help, repeatable: repeatable, completion: completion)
  }
}

/// An option with a typed value (`--level 4`, `--strip safe`, `--jobs 8`), as
/// swift-argument-parser declares one: the parser turns its text into a `Value` once, while it
/// reads the command line, and refuses a bad value with a usage error (64) that names the
/// option, the value and what is expected. The default is written here once: it is the value
/// when the option is not given, and what help and the man page show.
package struct TypedOption<Value: Sendable>: OptionKey {
  package let spec: OptionSpec
  /// The value when the option is not given.
  package let defaultValue: Value

  /// An option with a default.
  package init(
    _ long: String, short: Character? = nil, value valueName: String, help: String,
    parser: OptionValueParser<Value>, default defaultValue: Value, completion: Completion? = nil
  ) {
    self.defaultValue = defaultValue
    spec = OptionSpec(
      long, short: short, value: valueName, help: help, choices: parser.choices,
      defaultValue: parser.format(defaultValue), completion: completion,
      parse: { text throws(InvalidOptionValue) in try parser.parse(text) })
  }

  /// An option that is nil when not given: what it then means is the command's to decide
  /// (all processors, the format's own rate) and its help's to say. `shownDefault` is the
  /// value help shows when the command usually takes it.
  package init<Wrapped: Sendable>(
    _ long: String, short: Character? = nil, value valueName: String, help: String,
    parser: OptionValueParser<Wrapped>, shownDefault: Wrapped? = nil, completion: Completion? = nil
  ) where Value == Wrapped? {
    self.defaultValue = nil
    spec = OptionSpec(
      long, short: short, value: valueName, help: help, choices: parser.choices,
      defaultValue: shownDefault.map(parser.format), completion: completion,
      parse: { text throws(InvalidOptionValue) -> Value in try parser.parse(text) })
  }
}
