import ShelfCore

/// Why an option's text is not a value: what was expected instead, and the nearest choice.
package struct InvalidOptionValue: Error {
  /// "an integer from 1 to 256", "'none', 'safe' or 'all'".
  let expected: String
  /// The choice a mistyped value most likely meant.
  var suggestion: String? = nil
}

/// How an option's text becomes its typed value: parsed once, while the command line is read,
/// with the closed set of spellings (for help, the man page and completions) and the way help
/// writes a value (the default) from the same declaration.
package struct OptionValueParser<Value: Sendable>: Sendable {
  /// The value of a text, or what was expected instead.
  let parse: @Sendable (String) throws(InvalidOptionValue) -> Value
  /// Every spelling the option takes, when the set is closed; empty when it is open.
  let choices: [String]
  /// How help and the man page write a value.
  let format: @Sendable (Value) -> String
}

extension OptionValueParser {
  /// One of `cases`, spelt as `name` gives: the choices help lists, in that order.
  package static func choices(_ cases: [Value], named name: @escaping @Sendable (Value) -> String) -> Self {
    let names = cases.map(name)
    return Self(
      parse: { text throws(InvalidOptionValue) in
        guard let index = names.firstIndex(of: text) else {
          throw InvalidOptionValue(
            expected: ArgumentParser.list(names.map { "'\($0)'" }, conjunction: "or"),
            suggestion: Suggestions.closest(to: text, among: names))
        }
        return cases[index]
      },
      choices: names, format: name)
  }
}

extension OptionValueParser where Value: CaseIterable & RawRepresentable, Value.RawValue == String {
  /// One of the enum's cases, by raw value.
  package static var cases: Self { .choices(Array(Value.allCases), named: { $0.rawValue }) }
}

extension OptionValueParser where Value == String {
  /// Any text (a device name).
  package static var text: Self { Self(parse: { $0 }, choices: [], format: { $0 }) }
}

extension OptionValueParser where Value == Int {
  /// A whole number within `range`.
  package static func integer(in range: ClosedRange<Int>) -> Self {
    Self(
      parse: { text throws(InvalidOptionValue) in
        guard let number = Int(text), range.contains(number) else {
          throw InvalidOptionValue(expected: "an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
      },
      choices: [], format: { String($0) })
  }
}

extension OptionValueParser where Value == Double {
  /// A duration in seconds (`90`, `1:30`, `2m`); with `aboveZero`, zero is refused.
  package static func duration(aboveZero: Bool = false) -> Self {
    Self(
      parse: { text throws(InvalidOptionValue) in
        guard let seconds = Quantities.parseDuration(text) else {
          throw InvalidOptionValue(expected: "a duration such as 90, 1:30 or 2m")
        }
        guard !aboveZero || seconds > 0 else { throw InvalidOptionValue(expected: "a duration above zero") }
        return seconds
      },
      choices: [], format: { Quantities.formatFixed($0, decimals: 0) })
  }

  /// A number of decibels within `range`, with an optional sign and `dB` (`-6`, `+3.5`, `2dB`).
  package static func decibels(in range: ClosedRange<Double>) -> Self {
    let bounds =
      "\(Quantities.formatFixed(range.lowerBound, decimals: 0)) to \(Quantities.formatFixed(range.upperBound, decimals: 0))"
    return Self(
      parse: { text throws(InvalidOptionValue) in
        let number = text.lowercased().hasSuffix("db") ? String(text.dropLast(2)) : text
        guard let value = Double(number.hasPrefix("+") ? String(number.dropFirst()) : number), value.isFinite,
          range.contains(value)
        else { throw InvalidOptionValue(expected: "a number of dB from \(bounds)") }
        return value
      },
      choices: [], format: { Quantities.formatFixed($0, decimals: 0) })
  }
}

extension OptionValueParser where Value == Int64 {
  /// A byte size (`512`, `10M`, `1.5G`) of at least `minimum` bytes.
  package static func byteSize(atLeast minimum: Int64 = 0) -> Self {
    Self(
      parse: { text throws(InvalidOptionValue) in
        guard let bytes = Quantities.parseByteSize(text) else {
          throw InvalidOptionValue(expected: "a size such as 512, 10M or 2G")
        }
        guard bytes >= minimum else {
          throw InvalidOptionValue(expected: "a size of at least \(minimum) byte\(minimum == 1 ? "" : "s")")
        }
        return bytes
      },
      choices: [], format: Self.sizeName)
  }

  /// A size as it would be typed: `1G`, `512M`, `4K`, or bytes.
  private static func sizeName(_ bytes: Int64) -> String {
    for (shift, unit) in [(40, "T"), (30, "G"), (20, "M"), (10, "K")]
    where bytes != 0 && bytes % (Int64(1) << shift) == 0 {
      return "\(bytes >> shift)\(unit)"
    }
    return String(bytes)
  }
}
