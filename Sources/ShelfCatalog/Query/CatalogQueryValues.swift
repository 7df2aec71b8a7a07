import ShelfCore

/// The values a query compares with: numbers, sizes, bit rates, durations, times, yes or no.
extension CatalogQuery {
  /// An interval a value stands for: a point for numbers, a whole day for a date.
  struct Interval {
    var low: Double
    var high: Double
    /// True when `high` is excluded (dates), false when included (points).
    var halfOpen: Bool
  }

  /// The interval `text` names for a field of `type`; nil when it is not such a value.
  func parseValue(_ text: String, type: FieldType) -> Interval? {
    switch type {
    case .number:
      guard let number = Double(text) else { return nil }
      return Interval(low: number, high: number, halfOpen: false)
    case .size:
      guard let bytes = Quantities.parseByteSize(text) else { return nil }
      return Interval(low: Double(bytes), high: Double(bytes), halfOpen: false)
    case .bitrate:
      guard let bits = Self.parseBitrate(text) else { return nil }
      return Interval(low: bits, high: bits, halfOpen: false)
    case .duration:
      guard let seconds = Quantities.parseDuration(text) else { return nil }
      return Interval(low: seconds, high: seconds, halfOpen: false)
    case .time:
      guard let (start, end) = Self.parseTime(text, now: now ?? Self.currentTime(), inLocalZone: true)
      else { return nil }
      return Interval(low: start * 1e9, high: end * 1e9, halfOpen: true)
    case .localTime:
      guard let (start, end) = Self.parseTime(text, now: now ?? Self.currentTime()) else { return nil }
      return Interval(low: start, high: end, halfOpen: true)
    default:
      return nil
    }
  }

  /// Bits per second from `256k`, `256kbps`, `1.4M`, `1.4mbps` or a plain number (decimal
  /// multiples, as bit rates are counted).
  static func parseBitrate(_ text: String) -> Double? {
    var body = text.lowercased()
    if body.hasSuffix("bps") { body.removeLast(3) }
    if body.hasSuffix("b/s") { body.removeLast(3) }
    var factor = 1.0
    if body.hasSuffix("k") {
      factor = 1000
      body.removeLast()
    } else if body.hasSuffix("m") {
      factor = 1_000_000
      body.removeLast()
    }
    guard let number = Double(body), number >= 0 else { return nil }
    return number * factor
  }

  static func parseBoolean(_ text: String) -> Bool? {
    switch text.lowercased() {
    case "yes", "y", "true", "1", "on": true
    case "no", "n", "false", "0", "off": false
    default: nil
    }
  }
}
