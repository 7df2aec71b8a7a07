import ShelfCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

extension PathGlob {
  /// The glob as a looser PostgreSQL regular expression over the text form of a path,
  /// anchored at both ends, for the trigram indexes to answer: each character written as an
  /// escape (`\U0000002A`) unless an ASCII letter or digit, so nothing is taken for regex
  /// syntax; when case folds, every character that folds alike (`[k\U0000212a]`); a set or a
  /// byte that is not UTF-8 as `.`. Every valid UTF-8 path the glob matches matches this too.
  var textExpression: String {
    func escape(_ unit: UInt32) -> String {
      if let character = Unicode.Scalar(unit), character.isASCII,
        character.properties.isAlphabetic || character.properties.numericType != nil
      {
        return String(character)
      }
      let hex = String(unit, radix: 16)
      return "\\U" + String(repeating: "0", count: max(0, 8 - hex.count)) + hex
    }
    var out = "^"
    for element in elements {
      switch element {
      case .unit(let unit) where unit <= 0x10FFFF:
        let members = foldCase ? ByteExpression.foldMembers(unit) : [unit]
        out += members.count == 1 ? escape(members[0]) : "[" + members.map(escape).joined() + "]"
      case .unit, .anyUnit, .set: out += "."
      case .anySequence: out += ".*"
      }
    }
    return out + "$"
  }

  /// True when `textExpression` matches a path whose text form has no U+FFFD exactly as the
  /// glob does: ASCII only, no set, and no `k` folded (which KELVIN SIGN folds to, while the
  /// server's case-insensitive match may not).
  var textExpressionIsExact: Bool {
    elements.allSatisfy { element in
      switch element {
      case .unit(let unit): unit < 0x80 && !(foldCase && (unit == 0x6B || unit == 0x4B))
      case .anyUnit, .anySequence: true
      case .set: false
      }
    }
  }

  /// The glob as a PostgreSQL regular expression over a path's bytes read as LATIN1, each byte
  /// the character of the same number (`convert_from(path, 'LATIN1')`), matching what
  /// `matches` does: units are decoded as there (a valid UTF-8 sequence, else one byte that
  /// starts none), case folds as there (every scalar whose simple lowercase is the pattern's).
  /// With `lastComponent`, only what follows the path's last `/` is matched.
  func byteExpression(lastComponent: Bool) -> String {
    typealias Bytes = Self.ByteExpression
    let unit = lastComponent ? "(?:(?!/)\(Bytes.unit))" : Bytes.unit
    func member(_ expression: String) -> String { lastComponent ? "(?:(?!/)\(expression))" : expression }
    var out = lastComponent ? "^.*/" : "^"
    for (index, element) in elements.enumerated() {
      switch element {
      case .unit(let value):
        out += member(Bytes.alternatives(foldCase ? Bytes.foldMembers(value) : [value]))
      case .anyUnit: out += unit
      case .anySequence:
        // Before an ASCII character (never inside a sequence) or the end, any bytes are
        // whole units: the plain `.*` spares the engine a lookahead per byte.
        let next = index + 1 < elements.count ? elements[index + 1] : nil
        if case .unit(let value)? = next, value < 0x80, !lastComponent || value != 0x2F {
          out += lastComponent ? "[^/]*" : ".*"
        } else if next == nil {
          out += lastComponent ? "[^/]*" : ".*"
        } else {
          out += unit + "*"
        }
      case .set(let negated, let ranges):
        let inSet = member(Bytes.set(ranges, foldCase: foldCase))
        out += negated ? "(?:(?!\(inSet))\(unit))" : inSet
      }
    }
    return out + "$"
  }

  /// The pieces of `byteExpression`.
  enum ByteExpression {
    /// One byte, as the LATIN1 character `\u00XX`.
    static func byte(_ value: UInt8) -> String {
      let hex = String(value, radix: 16)
      return "\\u00" + (hex.count == 1 ? "0" : "") + hex
    }

    static func bytes(_ range: ClosedRange<UInt8>) -> String {
      range.lowerBound == range.upperBound
        ? byte(range.lowerBound) : "[\(byte(range.lowerBound))-\(byte(range.upperBound))]"
    }

    /// A valid UTF-8 sequence (no NUL, which no path holds): as `PathGlob.units` accepts them.
    static let valid =
      "(?:[\\u0001-\\u007f]|[\\u00c2-\\u00df][\\u0080-\\u00bf]|\\u00e0[\\u00a0-\\u00bf][\\u0080-\\u00bf]|[\\u00e1-\\u00ec\\u00ee\\u00ef][\\u0080-\\u00bf]{2}|\\u00ed[\\u0080-\\u009f][\\u0080-\\u00bf]|\\u00f0[\\u0090-\\u00bf][\\u0080-\\u00bf]{2}|[\\u00f1-\\u00f3][\\u0080-\\u00bf]{3}|\\u00f4[\\u0080-\\u008f][\\u0080-\\u00bf]{2})"

    /// One of `bytes` (all 0x80 or above) where it starts no valid sequence: a unit of its own.
    static func invalid(_ bytes: String) -> String { "(?:(?!\(valid))\(bytes))" }

    /// Any one unit.
    static let unit = "(?:\(valid)|\(invalid("[\\u0080-\\u00ff]")))"

    /// Matches nothing: no LATIN1 text holds a character above U+00FF.
    static let nothing = "[^\\u0001-\\u00ff]"

    /// The bytes of one unit (a scalar, or `UTF8Scalars.invalidByteBase + byte` for a byte
    /// that is not UTF-8).
    static func encoded(_ unit: UInt32) -> String {
      let base = UTF8Scalars.invalidByteBase
      if unit >= base { return invalid(byte(UInt8(truncatingIfNeeded: unit - base))) }
      guard let scalar = Unicode.Scalar(unit) else { return nothing }
      return String(scalar).utf8.map(byte).joined()
    }

    static func alternatives(_ units: [UInt32]) -> String {
      switch units.count {
      case 0: nothing
      case 1: encoded(units[0])
      default: "(?:" + units.map(encoded).joined(separator: "|") + ")"
      }
    }

    /// Every scalar that changes when folded, by what it folds to: worked out once, from the
    /// same folding as `PathGlob.folded` (no cased letter lies beyond U+1FFFF).
    static let foldedFrom: [UInt32: [UInt32]] = {
      var table: [UInt32: [UInt32]] = [:]
      for value in UInt32(0x41)...0x1FFFF where !(0xD800...0xDFFF).contains(value) {
        let folded = PathGlob.folded(value)
        if folded != value { table[folded, default: []].append(value) }
      }
      return table
    }()

    /// The units whose folding is `unit` (itself when folding keeps it).
    static func foldMembers(_ unit: UInt32) -> [UInt32] {
      (PathGlob.folded(unit) == unit ? [unit] : []) + (foldedFrom[unit] ?? [])
    }

    /// One unit of a `[…]` set: one whose (folded) value lies in `ranges`.
    static func set(_ ranges: [ClosedRange<UInt32>], foldCase: Bool) -> String {
      var choices = ranges.flatMap(rangeExpressions)
      guard foldCase else { return choices.isEmpty ? nothing : "(?:" + choices.joined(separator: "|") + ")" }
      func inSet(_ value: UInt32) -> Bool { ranges.contains { $0.contains(value) } }
      // In the ranges but folding out of them; out of them but folding in.
      var leaving: [UInt32] = []
      var entering: [UInt32] = []
      for (folded, units) in foldedFrom {
        for unit in units where inSet(unit) != inSet(folded) {
          if inSet(unit) { leaving.append(unit) } else { entering.append(unit) }
        }
      }
      if !leaving.isEmpty && !choices.isEmpty {
        choices = ["(?:(?!\(alternatives(leaving.sorted())))(?:\(choices.joined(separator: "|"))))"]
      }
      choices += entering.sorted().map(encoded)
      return choices.isEmpty ? nothing : "(?:" + choices.joined(separator: "|") + ")"
    }

    /// The units of a range of units, as alternatives: UTF-8 sequences byte range by byte
    /// range, and bytes that are not UTF-8.
    static func rangeExpressions(_ range: ClosedRange<UInt32>) -> [String] {
      var out: [String] = []
      var scalarRanges: [ClosedRange<UInt32>] = []
      let low = max(range.lowerBound, 1)
      let high = min(range.upperBound, 0x10FFFF)
      if low <= high {
        // Surrogates are not scalars.
        if low < 0xD800 { scalarRanges.append(low...min(high, 0xD7FF)) }
        if high > 0xDFFF { scalarRanges.append(max(low, 0xE000)...high) }
      }
      for scalars in scalarRanges {
        for sequence in utf8Sequences(scalars) { out.append(sequence.map(bytes).joined()) }
      }
      let base = UTF8Scalars.invalidByteBase
      if range.upperBound >= base + 0x80 {
        let first = UInt8(max(range.lowerBound, base + 0x80) - base)
        let last = UInt8(min(range.upperBound, base + 0xFF) - base)
        out.append(invalid(bytes(first...last)))
      }
      return out
    }

    /// A range of scalars of one encoded length or more, as sequences of byte ranges (each
    /// sequence every combination of its ranges), split where the leading bytes change.
    static func utf8Sequences(_ range: ClosedRange<UInt32>) -> [[ClosedRange<UInt8>]] {
      for boundary: UInt32 in [0x7F, 0x7FF, 0xFFFF]
      where range.lowerBound <= boundary && range.upperBound > boundary {
        return utf8Sequences(range.lowerBound...boundary) + utf8Sequences(boundary + 1...range.upperBound)
      }
      let length =
        range.upperBound <= 0x7F ? 1 : range.upperBound <= 0x7FF ? 2 : range.upperBound <= 0xFFFF ? 3 : 4
      for position in 1..<length {
        let mask: UInt32 = (1 << (6 * UInt32(position))) - 1
        if range.lowerBound & ~mask != range.upperBound & ~mask {
          if range.lowerBound & mask != 0 {
            return utf8Sequences(range.lowerBound...(range.lowerBound | mask))
              + utf8Sequences((range.lowerBound | mask) + 1...range.upperBound)
          }
          if range.upperBound & mask != mask {
            return utf8Sequences(range.lowerBound...(range.upperBound & ~mask) - 1)
              + utf8Sequences((range.upperBound & ~mask)...range.upperBound)
          }
        }
      }
      let low = Array(String(Unicode.Scalar(range.lowerBound)!).utf8)
      let high = Array(String(Unicode.Scalar(range.upperBound)!).utf8)
      return [zip(low, high).map { $0...$1 }]
    }
  }
}
