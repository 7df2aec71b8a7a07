import ShelfCore

/// The options and positional arguments of one command invocation, after parsing.
package struct ParsedArguments: Sendable {
  /// Values by long option name, in command-line order, with their exact bytes; flags store
  /// an empty value per use.
  private var values: [String: [CommandLineArgument]] = [:]
  /// The last value of each typed option given, as its parser made it.
  private var typedValues: [String: any Sendable] = [:]
  /// Positional arguments in order, with their exact bytes.
  package private(set) var positionals: [CommandLineArgument] = []
  /// The command name, for error messages.
  let commandName: String

  init(commandName: String) { self.commandName = commandName }

  mutating func record(_ option: OptionSpec, value: CommandLineArgument?, typed: (any Sendable)? = nil) {
    values[option.long, default: []].append(value ?? CommandLineArgument(""))
    if let typed { typedValues[option.long] = typed }
  }

  mutating func append(positional: CommandLineArgument) { positionals.append(positional) }

  /// True when the option was given (a flag, or an option with any value, empty included).
  package func isGiven(_ option: any OptionKey) -> Bool { values[option.spec.long] != nil }

  /// True when the flag was given.
  package subscript(_ flag: Flag) -> Bool { isGiven(flag) }

  /// The last value given for the option, or nil.
  package subscript(_ option: Option) -> String? { values[option.spec.long]?.last?.string }

  /// The typed option's last value given, else its default.
  package subscript<Value>(_ option: TypedOption<Value>) -> Value {
    typedValues[option.spec.long] as? Value ?? option.defaultValue
  }

  /// The last value given for the option as a path with its exact bytes, or nil.
  package func path(_ option: Option) -> RawPath? { values[option.spec.long]?.last?.path }

  /// Every path given for a repeatable option, in order.
  package func paths(_ option: Option) -> [RawPath] { values[option.spec.long]?.map(\.path) ?? [] }

  /// Every value given for a repeatable option, in order.
  package func values(_ option: Option) -> [String] { values[option.spec.long]?.map(\.string) ?? [] }

  /// A usage error for a value the option's type takes but this invocation cannot (a codec
  /// the format does not offer).
  package func invalid(_ option: any OptionKey, expected: String) -> UsageError {
    UsageError(
      "invalid value '\(values[option.spec.long]?.last?.string ?? "")' for '--\(option.spec.long)': expected \(expected)",
      command: commandName)
  }
}
