import ShelfCore

/// The options and positional arguments of one command invocation, after parsing.
public struct ParsedArguments: Sendable {
  /// Values by long option name, in command-line order, with their exact bytes; flags store
  /// an empty value per use.
  private var values: [String: [CommandLineArgument]] = [:]
  /// Positional arguments in order, with their exact bytes.
  public private(set) var positionals: [CommandLineArgument] = []
  /// The command name, for error messages.
  let commandName: String

  init(commandName: String) { self.commandName = commandName }

  mutating func record(_ option: OptionSpec, value: CommandLineArgument?) {
    values[option.long, default: []].append(value ?? CommandLineArgument(""))
  }

  mutating func append(positional: CommandLineArgument) { positionals.append(positional) }

  /// True when the flag was given.
  public func flag(_ long: String) -> Bool { values[long] != nil }

  /// The last value given for the option, or nil.
  public func value(_ long: String) -> String? { values[long]?.last?.string }

  /// The last value given for the option as a path with its exact bytes, or nil.
  public func pathValue(_ long: String) -> RawPath? { values[long]?.last?.path }

  /// Every value given for a repeatable option, in order.
  public func values(_ long: String) -> [String] { values[long]?.map(\.string) ?? [] }

  /// The option's value as an integer within `range`; nil when not given.
  public func integer(_ long: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
    guard let text = value(long) else { return nil }
    guard let number = Int(text), range.contains(number) else {
      throw invalid(long, text, expected: "an integer from \(range.lowerBound) to \(range.upperBound)")
    }
    return number
  }

  /// The option's value as a duration in seconds (`90`, `1:30`, `2m`); nil when not given.
  public func duration(_ long: String) throws(UsageError) -> Double? {
    guard let text = value(long) else { return nil }
    guard let seconds = Quantities.parseDuration(text) else {
      throw invalid(long, text, expected: "a duration such as 90, 1:30 or 2m")
    }
    return seconds
  }

  /// The option's value as a byte size (`512`, `10M`, `1.5G`); nil when not given.
  public func byteSize(_ long: String) throws(UsageError) -> Int64? {
    guard let text = value(long) else { return nil }
    guard let bytes = Quantities.parseByteSize(text) else {
      throw invalid(long, text, expected: "a size such as 512, 10M or 2G")
    }
    return bytes
  }

  /// A usage error for a bad value of `--long`.
  public func invalid(_ long: String, _ text: String, expected: String) -> UsageError {
    UsageError("invalid value '\(text)' for '--\(long)': expected \(expected)", command: commandName)
  }
}
