import ShelfCore

/// A shell glob (`*`, `?`, `[a-z]`, `[!…]`, `\` escapes) matched against raw path bytes.
///
/// File names need not be UTF-8, so matching works on units: a Unicode scalar where the bytes
/// are valid UTF-8, a single byte where they are not (`?` takes one of either). SQLite's own
/// GLOB is case-sensitive and reads text; this matcher folds case when asked (Unicode simple
/// lowercase) and never loses a byte.
package struct PathGlob: Sendable, Equatable {
  /// One element of a compiled pattern.
  enum Element: Sendable, Equatable {
    case unit(UInt32)
    case anyUnit
    case anySequence
    case set(negated: Bool, ranges: [ClosedRange<UInt32>])
  }

  let elements: [Element]
  let foldCase: Bool

  /// Compiles `pattern`; with `literal`, every character stands for itself.
  package init(pattern: [UInt8], foldCase: Bool, literal: Bool = false) {
    self.foldCase = foldCase
    let units = Self.units(pattern).map { foldCase ? Self.folded($0) : $0 }
    guard !literal else {
      elements = units.map { .unit($0) }
      return
    }
    var elements: [Element] = []
    var index = 0
    while index < units.count {
      let unit = units[index]
      switch unit {
      case UInt32(UInt8(ascii: "*")):
        if elements.last != .anySequence { elements.append(.anySequence) }
      case UInt32(UInt8(ascii: "?")):
        elements.append(.anyUnit)
      case UInt32(UInt8(ascii: "\\")) where index + 1 < units.count:
        index += 1
        elements.append(.unit(units[index]))
      case UInt32(UInt8(ascii: "[")):
        if let (set, end) = Self.parseSet(units, from: index + 1) {
          elements.append(set)
          index = end
        } else {
          elements.append(.unit(unit))
        }
      default:
        elements.append(.unit(unit))
      }
      index += 1
    }
    self.elements = elements
  }

  /// True when `pattern` holds a capital letter: fd's smart case, which makes the match
  /// case-sensitive.
  package static func hasCapitals(_ pattern: String) -> Bool {
    pattern.unicodeScalars.contains { $0.properties.isUppercase }
  }

  /// A `[…]` set starting after its `[`: the element and the index of its `]`, or nil when the
  /// set is not closed (then `[` is an ordinary character).
  private static func parseSet(_ units: [UInt32], from start: Int) -> (Element, Int)? {
    var index = start
    var negated = false
    if index < units.count
      && (units[index] == UInt32(UInt8(ascii: "!")) || units[index] == UInt32(UInt8(ascii: "^")))
    {
      negated = true
      index += 1
    }
    var ranges: [ClosedRange<UInt32>] = []
    var first = true
    while index < units.count {
      var low = units[index]
      if low == UInt32(UInt8(ascii: "]")) && !first { return (.set(negated: negated, ranges: ranges), index) }
      first = false
      if low == UInt32(UInt8(ascii: "\\")) && index + 1 < units.count {
        index += 1
        low = units[index]
      }
      if index + 2 < units.count && units[index + 1] == UInt32(UInt8(ascii: "-"))
        && units[index + 2] != UInt32(UInt8(ascii: "]"))
      {
        let high = units[index + 2]
        if low <= high { ranges.append(low...high) }
        index += 3
      } else {
        ranges.append(low...low)
        index += 1
      }
    }
    return nil
  }

  /// True when the whole of `subject` matches.
  package func matches(_ subject: [UInt8]) -> Bool { subject.withUnsafeBufferPointer { matches($0) } }

  /// True when the whole of `subject` matches.
  func matches(_ subject: UnsafeBufferPointer<UInt8>) -> Bool {
    let units = Self.units(subject).map { foldCase ? Self.folded($0) : $0 }
    var pattern = 0
    var position = 0
    // Where the last `*` was, and how much of the subject it has taken so far.
    var starPattern = -1
    var starPosition = 0
    while position < units.count {
      if pattern < elements.count {
        switch elements[pattern] {
        case .anySequence:
          starPattern = pattern
          starPosition = position
          pattern += 1
          continue
        case .anyUnit:
          pattern += 1
          position += 1
          continue
        case .unit(let unit) where unit == units[position]:
          pattern += 1
          position += 1
          continue
        case .set(let negated, let ranges) where ranges.contains { $0.contains(units[position]) } != negated:
          pattern += 1
          position += 1
          continue
        default:
          break
        }
      }
      guard starPattern >= 0 else { return false }
      starPosition += 1
      position = starPosition
      pattern = starPattern + 1
    }
    while pattern < elements.count && elements[pattern] == .anySequence { pattern += 1 }
    return pattern == elements.count
  }

  /// Decodes bytes into units: scalars of valid UTF-8, and `UTF8Scalars.invalidByteBase + byte`
  /// (outside Unicode) for each byte that is not.
  static func units<Bytes: RandomAccessCollection>(_ bytes: Bytes) -> [UInt32]
  where Bytes.Element == UInt8, Bytes.Index == Int {
    var units: [UInt32] = []
    UTF8Scalars.appendUnits(of: bytes, to: &units)
    return units
  }

  /// The simple lowercase of a unit (bytes that are not UTF-8 stay as they are).
  static func folded(_ unit: UInt32) -> UInt32 {
    if unit < 0x80 {
      return unit >= 0x41 && unit <= 0x5A ? unit + 0x20 : unit
    }
    guard let scalar = Unicode.Scalar(unit), scalar.properties.changesWhenLowercased else { return unit }
    let lower = scalar.properties.lowercaseMapping.unicodeScalars
    return lower.count == 1 ? lower.first!.value : unit
  }
}

/// What `shelf_glob(pattern, subject, mode)` compares: the mode bits of its third argument.
struct PathGlobMode: OptionSet, Sendable {
  let rawValue: Int32
  /// Letters match in either case.
  static let foldCase = PathGlobMode(rawValue: 1)
  /// Only the part of the subject after its last `/` (a file name from a path).
  static let lastComponent = PathGlobMode(rawValue: 2)
  /// The pattern is a plain string, its `*` and `?` literal.
  static let literal = PathGlobMode(rawValue: 4)
}
