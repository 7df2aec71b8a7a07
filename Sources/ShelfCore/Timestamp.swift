#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A calendar time as shelf prints it: RFC 3339 (`2024-05-01T14:30:00+02:00`, `Z` for UTC),
/// whole seconds. Moments the system knows exactly (modification and scan times, backup
/// dates) are told in the local zone with its offset; a camera's time recorded without an
/// offset is a wall-clock time and stays without one, since any zone put on it would be a guess.
public struct Timestamp: Sendable, Equatable {
  public var year: Int
  public var month: Int
  public var day: Int
  public var hour: Int
  public var minute: Int
  public var second: Int
  /// Seconds east of UTC; nil for a wall-clock time with no zone.
  public var offset: Int?

  /// The moment `seconds` after the epoch in the local zone (`TZ`, else /etc/localtime).
  public init(localSeconds seconds: Int64) {
    var time = time_t(seconds)
    var parts = tm()
    if localtime_r(&time, &parts) == nil { gmtime_r(&time, &parts) }
    year = Int(parts.tm_year) + 1900
    month = Int(parts.tm_mon) + 1
    day = Int(parts.tm_mday)
    hour = Int(parts.tm_hour)
    minute = Int(parts.tm_min)
    second = Int(parts.tm_sec)
    offset = parts.tm_gmtoff
  }

  /// The moment `nanoseconds` after the epoch in the local zone, cut to the whole second
  /// it falls in (so a time just before the epoch is 1969-12-31T23:59:59Z, not the epoch).
  public init(localNanoseconds nanoseconds: Int64) {
    var seconds = nanoseconds / 1_000_000_000
    if nanoseconds < 0 && nanoseconds % 1_000_000_000 != 0 { seconds -= 1 }
    self.init(localSeconds: seconds)
  }

  /// Reads the ways files write a date and time: `2024-05-01T14:30:00`, with a space or `T`,
  /// `-` or `:` between the date's numbers (EXIF), a fraction of a second (dropped), and an
  /// offset `Z`, `+02:00`, `+0200` or `+02` (QuickTime writes `+0200`). Nil for anything else,
  /// and for dates no calendar has (month 13, hour 25).
  public init?(parsing text: String) {
    let bytes = Array(text.utf8)
    guard bytes.count >= 19, bytes.count <= 40 else { return nil }
    let digitPositions = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]
    guard digitPositions.allSatisfy({ Self.isDigit(bytes[$0]) }),
      bytes[4] == UInt8(ascii: "-") || bytes[4] == UInt8(ascii: ":"), bytes[7] == bytes[4],
      bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "),
      bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":")
    else { return nil }
    func number(_ start: Int, _ count: Int) -> Int {
      bytes[start..<start + count].reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }
    year = number(0, 4)
    month = number(5, 2)
    day = number(8, 2)
    hour = number(11, 2)
    minute = number(14, 2)
    second = number(17, 2)
    guard (1...12).contains(month), (1...Self.days(inMonth: month, of: year)).contains(day), hour < 24,
      minute < 60, second < 61
    else { return nil }
    var rest = bytes[19...]
    if rest.first == UInt8(ascii: ".") || rest.first == UInt8(ascii: ",") {
      rest = rest.dropFirst()
      guard let first = rest.first, Self.isDigit(first) else { return nil }
      rest = rest.drop(while: Self.isDigit)
    }
    guard let sign = rest.first else {
      offset = nil
      return
    }
    if sign == UInt8(ascii: "Z") || sign == UInt8(ascii: "z") {
      guard rest.count == 1 else { return nil }
      offset = 0
      return
    }
    guard sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return nil }
    let zone = Array(rest.dropFirst())
    let digits = zone.count == 5 && zone[2] == UInt8(ascii: ":") ? Array(zone[0..<2] + zone[3...]) : zone
    guard digits.count == 4 || digits.count == 2, digits.allSatisfy(Self.isDigit) else { return nil }
    let hours = Int(digits[0] - 0x30) * 10 + Int(digits[1] - 0x30)
    let minutes = digits.count == 4 ? Int(digits[2] - 0x30) * 10 + Int(digits[3] - 0x30) : 0
    guard hours < 24, minutes < 60 else { return nil }
    offset = (sign == UInt8(ascii: "-") ? -1 : 1) * (hours * 3600 + minutes * 60)
  }

  /// `2024-05-01T14:30:00+02:00`; `Z` for offset zero; no offset for a wall-clock time.
  public var rfc3339: String {
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    var year = "\(self.year)"
    while year.count < 4 { year = "0" + year }
    var text = "\(year)-\(two(month))-\(two(day))T\(two(hour)):\(two(minute)):\(two(second))"
    guard let offset else { return text }
    if offset == 0 { return text + "Z" }
    let minutes = abs(offset) / 60
    text += (offset < 0 ? "-" : "+") + two(minutes / 60) + ":" + two(minutes % 60)
    return text
  }

  /// Seconds since the epoch; nil for a wall-clock time (it names no single moment).
  public var epochSeconds: Int64? {
    guard let offset else { return nil }
    // Days from the civil date (Howard Hinnant's algorithm): no time_t range or zone involved.
    let shifted = month <= 2 ? year - 1 : year
    let era = (shifted >= 0 ? shifted : shifted - 399) / 400
    let yearOfEra = shifted - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    let days = Int64(era) * 146_097 + Int64(dayOfEra) - 719_468
    return days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offset)
  }

  /// The same moment told in the local zone; a wall-clock time as it is.
  public var local: Timestamp {
    guard let seconds = epochSeconds else { return self }
    return Timestamp(localSeconds: seconds)
  }

  /// The time through strftime(3) (`%Y`, `%m`, `%d`, `%H`, `%B`, `%a`…): the format of
  /// `{taken:%Y-%m}` in templates. `%z` and `%Z` print nothing for a wall-clock time, where
  /// any zone would be made up. A result beyond 4,096 bytes is empty, as strftime gives it.
  public func formatted(_ format: String) -> String {
    var parts = tm()
    parts.tm_year = Int32(year - 1900)
    parts.tm_mon = Int32(month - 1)
    parts.tm_mday = Int32(day)
    parts.tm_hour = Int32(hour)
    parts.tm_min = Int32(minute)
    parts.tm_sec = Int32(second)
    // timegm fills in the weekday and the day of the year from the date.
    var copy = parts
    _ = timegm(&copy)
    parts.tm_wday = copy.tm_wday
    parts.tm_yday = copy.tm_yday
    parts.tm_gmtoff = offset ?? 0
    var pattern = format
    if offset == nil {
      for zone in ["%z", "%Z", "%:z"] { pattern = pattern.replacing(zone, with: "") }
    }
    if pattern.isEmpty { return "" }
    var buffer = [CChar](repeating: 0, count: 4097)
    let count = strftime(&buffer, buffer.count, pattern, &parts)
    return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// A modification or scan time (ns since the epoch) in RFC 3339 in the local zone.
  public static func local(nanoseconds: Int64) -> String {
    Timestamp(localNanoseconds: nanoseconds).rfc3339
  }

  /// A date and time as a file recorded it, in RFC 3339: a moment with an offset in the
  /// local zone when `toLocal`, else with its own offset (a camera's); without one as it is.
  /// Text that is no date is returned unchanged, so nothing recorded is lost.
  public static func normalized(_ text: String, toLocal: Bool = false) -> String {
    guard let time = Timestamp(parsing: text) else { return text }
    return (toLocal ? time.local : time).rfc3339
  }

  private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

  private static func days(inMonth month: Int, of year: Int) -> Int {
    switch month {
    case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }
}
