/// Parsing and formatting of the quantities users type and read: sizes, durations, times.
public enum Quantities {
  /// Parses a byte size such as `512`, `10K`, `1.5M`, `2G`, `3MiB`, `4kb` (binary multiples,
  /// as `du` and `fd` use). Returns nil for anything else.
  public static func parseByteSize(_ text: String) -> Int64? {
    var digits = Substring(text.trimmingWhitespace())
    var multiplier: Double = 1
    let (kibi, mebi, gibi, tebi): (Double, Double, Double, Double) = (
      1024, 1_048_576, 1_073_741_824, 1_099_511_627_776
    )
    let units: [(String, Double)] = [
      ("tib", tebi), ("gib", gibi), ("mib", mebi), ("kib", kibi),
      ("tb", tebi), ("gb", gibi), ("mb", mebi), ("kb", kibi),
      ("t", tebi), ("g", gibi), ("m", mebi), ("k", kibi), ("b", 1),
    ]
    let lower = digits.lowercased()
    for (suffix, factor) in units where lower.hasSuffix(suffix) {
      digits = digits.dropLast(suffix.count)
      multiplier = factor
      break
    }
    guard !digits.isEmpty, let value = Double(digits), value >= 0, value.isFinite else { return nil }
    let bytes = value * multiplier
    guard bytes < 9.2e18 else { return nil }
    return Int64(bytes.rounded())
  }

  /// Parses a duration: seconds (`90`, `1.5`, `90s`), `MM:SS`, `HH:MM:SS` (fractions allowed
  /// in the last field), or with units `2m`, `1h30m`, `500ms`. Returns seconds, or nil.
  public static func parseDuration(_ text: String) -> Double? {
    let trimmed = text.trimmingWhitespace()
    guard !trimmed.isEmpty else { return nil }
    if trimmed.contains(":") {
      let fields = trimmed.split(separator: ":", omittingEmptySubsequences: false)
      guard fields.count <= 3 else { return nil }
      var total = 0.0
      for (index, field) in fields.enumerated() {
        guard let value = Double(field), value >= 0, field.allSatisfy({ $0.isNumber || $0 == "." })
        else { return nil }
        if index < fields.count - 1 && value != value.rounded() { return nil }
        total = total * 60 + value
      }
      return total
    }
    if let plain = Double(trimmed), plain >= 0, plain.isFinite,
      trimmed.allSatisfy({ $0.isNumber || $0 == "." })
    {
      return plain
    }
    // Unit form: a sequence of number+unit pairs.
    var total = 0.0
    var number = ""
    var unit = ""
    func flush() -> Bool {
      guard let value = Double(number) else { return false }
      let factor: Double
      switch unit {
      case "h": factor = 3600
      case "m", "min": factor = 60
      case "s", "sec": factor = 1
      case "ms": factor = 0.001
      default: return false
      }
      total += value * factor
      number = ""
      unit = ""
      return true
    }
    for character in trimmed.lowercased() {
      if character.isNumber || character == "." {
        if !unit.isEmpty { guard flush() else { return nil } }
        number.append(character)
      } else if character.isLetter {
        guard !number.isEmpty else { return nil }
        unit.append(character)
      } else {
        return nil
      }
    }
    guard !number.isEmpty, !unit.isEmpty, flush() else { return nil }
    return total
  }

  /// Formats a byte count for people: `532 B`, `12.3 KiB`, `4.0 MiB`.
  public static func formatByteSize(_ bytes: Int64) -> String {
    if bytes < 1024 { return "\(bytes) B" }
    let units = ["KiB", "MiB", "GiB", "TiB", "PiB"]
    var value = Double(bytes) / 1024
    var index = 0
    while value >= 1024 && index < units.count - 1 {
      value /= 1024
      index += 1
    }
    return formatFixed(value, decimals: value < 10 ? 1 : 0) + " " + units[index]
  }

  /// Formats seconds as `M:SS`, or `H:MM:SS` from an hour up; fractions are truncated.
  public static func formatDuration(_ seconds: Double) -> String {
    // Beyond 10^15 s (a lying header's length) the conversion to Int could trap.
    guard seconds.isFinite, seconds >= 0, seconds < 1e15 else { return "-:--" }
    let whole = Int(seconds)
    let (hours, minutes, secs) = (whole / 3600, whole / 60 % 60, whole % 60)
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    return hours > 0 ? "\(hours):\(two(minutes)):\(two(secs))" : "\(minutes):\(two(secs))"
  }

  /// Formats a number with a fixed number of decimals, without Foundation.
  public static func formatFixed(_ value: Double, decimals: Int) -> String {
    guard value.isFinite else { return "\(value)" }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    let integerPart = Int64(scaled / scale)
    var text = (value < 0 && scaled > 0 ? "-" : "") + String(integerPart)
    if decimals > 0 {
      let fraction = Int64(scaled) - integerPart * Int64(scale)
      var digits = String(fraction)
      while digits.count < decimals { digits = "0" + digits }
      text += "." + digits
    }
    return text
  }
}

extension String {
  /// The string without leading and trailing spaces, tabs and newlines.
  public func trimmingWhitespace() -> String {
    let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
    guard let start = firstIndex(where: { !isSpace($0) }) else { return "" }
    let end = lastIndex(where: { !isSpace($0) })!
    return String(self[start...end])
  }
}
