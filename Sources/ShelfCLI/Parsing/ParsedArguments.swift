import ShelfCore

/// The options and positional arguments of one command invocation, after parsing.
package struct ParsedArguments: Sendable {
  /// Values by long option name, in command-line order, with their exact bytes; flags store
  /// an empty value per use.
  private var values: [String: [CommandLineArgument]] = [:]
  /// Positional arguments in order, with their exact bytes.
  package private(set) var positionals: [CommandLineArgument] = []
  /// The command name, for error messages.
  let commandName: String

  init(commandName: String) { self.commandName = commandName }

  mutating func record(_ option: OptionSpec, value: CommandLineArgument?) {
    values[option.long, default: []].append(value ?? CommandLineArgument(""))
  }

  mutating func append(positional: CommandLineArgument) { positionals.append(positional) }

  /// True when the option was given (a flag, or an option with any value, empty included).
  package func isGiven(_ option: any OptionKey) -> Bool { values[option.spec.long] != nil }

  /// True when the flag was given.
  package subscript(_ flag: Flag) -> Bool { isGiven(flag) }

  /// The last value given for the option, or nil.
  package subscript(_ option: Option) -> String? { values[option.spec.long]?.last?.string }

  /// The last value given for the option as a path with its exact bytes, or nil.
  package func path(_ option: Option) -> RawPath? { values[option.spec.long]?.last?.path }

  /// Every value given for a repeatable option, in order.
  /// Every path given for a repeatable option, in order.
  package func paths(_ option: Option) -> [RawPath] { values[option.spec.long]?.map(\.path) ?? [] }

  package func values(_ option: Option) -> [String] { values[option.spec.long]?.map(\.string) ?? [] }

  /// The option's value as an integer within `range`; nil when not given.
  package func integer(_ option: Option, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
    guard let text = self[option] else { return nil }
    guard let number = Int(text), range.contains(number) else {
      throw invalid(option, text, expected: "an integer from \(range.lowerBound) to \(range.upperBound)")
    }
    return number
  }

  /// The option's value as a duration in seconds (`90`, `1:30`, `2m`); nil when not given.
  package func duration(_ option: Option) throws(UsageError) -> Double? {
    guard let text = self[option] else { return nil }
    guard let seconds = Quantities.parseDuration(text) else {
      throw invalid(option, text, expected: "a duration such as 90, 1:30 or 2m")
    }
    return seconds
  }

  /// The option's value as a byte size (`512`, `10M`, `1.5G`); nil when not given.
  package func byteSize(_ option: Option) throws(UsageError) -> Int64? {
    guard let text = self[option] else { return nil }
    guard let bytes = Quantities.parseByteSize(text) else {
      throw invalid(option, text, expected: "a size such as 512, 10M or 2G")
    }
    return bytes
  }

  /// A usage error for a bad value of the option.
  package func invalid(_ option: Option, _ text: String, expected: String) -> UsageError {
    UsageError(
      "invalid value '\(text)' for '--\(option.spec.long)': expected \(expected)", command: commandName)
  }
}
