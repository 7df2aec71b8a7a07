import ShelfCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Points in time in queries: parsed from `2024-05-17` or `-7d`, shown as ISO 8601, counted in
/// days of the proleptic Gregorian calendar.
extension CatalogQuery {
  static func currentTime() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
  }

  /// The farthest a time in a query reaches either side of 1970, in seconds (about 300,000
  /// years): beyond it the day arithmetic and the conversion to whole seconds would overflow.
  static let timeLimit: Double = 1e13

  /// Parses a point in time as an interval of seconds since the epoch: `2024`, `2024-05`,
  /// `2024-05-17`, `2024-05-17T10:30[:00]`, or relative `-7d`, `-12h`, `-2w`, `-30min`, `-1y`
  /// (an instant). A calendar time is a label as a clock shows it (read as UTC); with
  /// `inLocalZone` its two ends become the instants at which this machine's clock showed them,
  /// as `ls` prints modification times in the local zone (a day is the local day, 23 or 25
  /// hours long where the clocks change).
  static func parseTime(_ text: String, now: Double, inLocalZone: Bool = false) -> (Double, Double)? {
    guard let (start, end) = parseTimeLabel(text, now: now) else { return nil }
    if !inLocalZone || text.hasPrefix("-") || text.hasPrefix("+") { return (start, end) }
    return (instant(showingLocally: start), instant(showingLocally: end))
  }

  /// The instant at which the local clock showed `label` (seconds since the epoch read as
  /// UTC): mktime of the label's broken-down time, the zone's daylight saving decided by it.
  static func instant(showingLocally label: Double) -> Double {
    var whole = time_t(label.rounded(.down))
    var parts = tm()
    guard gmtime_r(&whole, &parts) != nil else { return label }
    parts.tm_isdst = -1
    let local = mktime(&parts)
    return local == -1 ? label : Double(local) + (label - label.rounded(.down))
  }

  private static func parseTimeLabel(_ text: String, now: Double) -> (Double, Double)? {
    if text.hasPrefix("-") || text.hasPrefix("+") {
      let body = text.dropFirst()
      let digits = body.prefix { $0.isNumber || $0 == "." }
      let unit = body.dropFirst(digits.count).lowercased()
      guard let amount = Double(digits) else { return nil }
      let factor: Double
      switch unit {
      case "s", "sec": factor = 1
      case "m", "min": factor = 60
      case "h": factor = 3600
      case "d", "": factor = 86400
      case "w": factor = 7 * 86400
      case "mo": factor = 30 * 86400
      case "y": factor = 365 * 86400
      default: return nil
      }
      let instant = text.hasPrefix("-") ? now - amount * factor : now + amount * factor
      guard instant.isFinite, abs(instant) <= timeLimit else { return nil }
      return (instant, instant)
    }
    let separators: Set<Character> = ["-", "T", ":", " "]
    let fields = text.split(whereSeparator: { separators.contains($0) }).map(String.init)
    guard (1...6).contains(fields.count), let numbers = Optional(fields.compactMap { Int($0) }),
      numbers.count == fields.count
    else {
      return nil
    }
    var parts = numbers + Array(repeating: 0, count: 6 - numbers.count)
    if numbers.count < 2 { parts[1] = 1 }
    if numbers.count < 3 { parts[2] = 1 }
    // Years of four digits (ISO 8601), so that the day arithmetic stays in range.
    guard (0...9999).contains(parts[0]), (1...12).contains(parts[1]), (1...31).contains(parts[2]),
      parts[3] < 24, parts[4] < 60,
      parts[5] < 61
    else {
      return nil
    }
    let start = Double(
      daysFromCivil(parts[0], parts[1], parts[2]) * 86400 + parts[3] * 3600 + parts[4] * 60 + parts[5])
    let end: Double
    switch numbers.count {
    case 1: end = Double(daysFromCivil(parts[0] + 1, 1, 1) * 86400)
    case 2:
      end = Double(
        (parts[1] == 12 ? daysFromCivil(parts[0] + 1, 1, 1) : daysFromCivil(parts[0], parts[1] + 1, 1))
          * 86400)
    case 3: end = start + 86400
    case 4: end = start + 3600
    case 5: end = start + 60
    default: end = start + 1
    }
    return (start, end)
  }

  /// `2024-05-17T10:30:00` for a count of seconds since the epoch, read as UTC.
  static func isoLocalTime(seconds: Double) -> String {
    // parseTime keeps its results within timeLimit; anything else is not a time.
    let whole = seconds.isFinite && abs(seconds) <= timeLimit ? Int(seconds.rounded(.down)) : 0
    let days = whole >= 0 ? whole / 86400 : (whole - 86399) / 86400
    let second = whole - days * 86400
    let (year, month, day) = civilFromDays(days)
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
    return
      "\(yearText)-\(two(month))-\(two(day))T\(two(second / 3600)):\(two(second / 60 % 60)):\(two(second % 60))"
  }

  /// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
  static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
    let z = days + 719468
    let era = (z >= 0 ? z : z - 146096) / 146097
    let doe = z - era * 146097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let day = doy - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }

  /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
  static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146097 + doe - 719468
  }
}
