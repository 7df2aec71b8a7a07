/// The 7-bit encodings that shift into another character set with a printable mark: UTF-7 (RFC
/// 2152: `+`, base64 of UTF-16, an optional `-`) and HZ (RFC 1843: `~{`, GB2312 pairs, `~}`).
/// Their files are all ASCII bytes, so they are told from ASCII text by their shifts alone: a
/// file is one of them only when every shift in it decodes and one gives a character beyond
/// ASCII that chance would not (`SevenBitText.isTelling`), so that `C++`, `a+b`, `~/bin`, a
/// shell's `~{a,b}` or a regular expression's `[+1yY]` in plain text stay ASCII.
enum SevenBitText {
  /// UTF-7 or HZ when the sample reads so, else nil. Segments after the first are judged from
  /// their first line feed (a shift never spans lines), and a segment cut before the end of
  /// the file up to its last one.
  static func encoding(of sample: TextSample) -> TextEncoding? {
    var lines: [ArraySlice<UInt8>] = []
    for (number, segment) in sample.segments.enumerated() {
      var start = segment.startIndex
      if number > 0 {
        guard let feed = segment.firstIndex(of: 0x0A) else { continue }
        start = feed + 1
      }
      var end = segment.endIndex
      if !(sample.reachesEnd && number == sample.segments.count - 1) {
        guard let feed = segment.lastIndex(of: 0x0A), feed >= start else { continue }
        end = feed + 1
      }
      lines.append(segment[start..<end])
    }
    if readsAsUTF7(lines) { return .utf7 }
    if readsAsHZ(lines) { return .hzGB2312 }
    return nil
  }

  // MARK: UTF-7

  /// True when every `+` begins `+-` or a base64 run that a UTF-7 encoder could have written,
  /// and at least one run is telling (see `isTelling`).
  static func readsAsUTF7(_ parts: [ArraySlice<UInt8>]) -> Bool {
    var telling = false
    for part in parts {
      var index = part.startIndex
      while let plus = part[index...].firstIndex(of: UInt8(ascii: "+")) {
        var end = plus + 1
        while end < part.endIndex && base64Value(part[end]) != nil { end += 1 }
        let run = part[(plus + 1)..<end]
        let closed = end < part.endIndex && part[end] == UInt8(ascii: "-")
        if run.isEmpty {
          guard closed else { return false }
        } else {
          guard let scalars = utf16Run(run) else { return false }
          telling = telling || isTelling(run, scalars, closed: closed)
        }
        index = closed ? end + 1 : end
      }
    }
    return telling
  }

  /// The characters a base64 run encodes as UTF-16, or nil when an encoder would not have
  /// written it: whole units with fewer than six bits left over, those bits zero, surrogates
  /// in pairs, and only characters outside the set UTF-7 writes directly (letters, digits and
  /// white space never go into a run).
  static func utf16Run(_ run: ArraySlice<UInt8>) -> [Unicode.Scalar]? {
    var bits: UInt32 = 0
    var bitCount = 0
    var units: [UInt16] = []
    for byte in run {
      guard let value = base64Value(byte) else { return nil }
      bits = (bits << 6 | UInt32(value)) & 0x3F_FFFF
      bitCount += 6
      if bitCount >= 16 {
        bitCount -= 16
        units.append(UInt16(truncatingIfNeeded: bits >> UInt32(bitCount)))
      }
    }
    guard !units.isEmpty, bitCount < 6, bits & ((1 << UInt32(bitCount)) - 1) == 0 else { return nil }
    var scalars: [Unicode.Scalar] = []
    var iterator = units.makeIterator()
    var decoder = UTF16()
    while true {
      switch decoder.decode(&iterator) {
      case .scalarValue(let scalar):
        let value = scalar.value
        if value < 0x80 {
          let isLetterOrDigit = (0x30...0x39).contains(value) || (0x61...0x7A).contains(value | 0x20)
          guard !isLetterOrDigit, TextSniffer.isTextControlOK(value) else { return nil }
        } else if !TextSniffer.isTextScalar(value) || !isAssigned(scalar) {
          return nil
        }
        scalars.append(scalar)
      case .emptyInput: return scalars
      case .error: return nil
      }
    }
  }

  /// True when a run is evidence of UTF-7 rather than a chance `+word` of ASCII text: it gives
  /// a character beyond ASCII, it is not a plain lower-case word or number, and what it gives
  /// is more than chance gives. Any three letters after a `+` decode to some character, a
  /// quarter of the time with the two spare bits zero: `^[+1yY]` of a regular expression (in
  /// glibc's locale files) reads as `^[휦]`. Chance seldom gives a run closed by `-` (which an
  /// encoder writes before a letter, digit or `-`), characters below U+0800 (the alphabets:
  /// Latin, Greek, Cyrillic, Hebrew, Arabic, which need the run to start with `A` or `B`), or a
  /// word of two characters or more in one script (CJK ideographs and kana, or Hangul) from a
  /// run that is not itself a word in capitals or capitalised (`vim +MANPAGER` reads as
  /// `〃伀愑`; the base64 of real ideographs mixes cases and digits); one ideograph or
  /// syllable alone, unclosed, is not evidence.
  static func isTelling(_ run: ArraySlice<UInt8>, _ scalars: [Unicode.Scalar], closed: Bool) -> Bool {
    let beyondASCII = scalars.filter { !$0.isASCII }
    guard !beyondASCII.isEmpty else { return false }
    let lower = 0x61...0x7A as ClosedRange<UInt8>
    let upper = 0x41...0x5A as ClosedRange<UInt8>
    let plainWord = run.allSatisfy { lower.contains($0) } || run.allSatisfy { (0x30...0x39).contains($0) }
    if plainWord { return false }
    if closed || beyondASCII.allSatisfy({ $0.value < 0x800 }) { return true }
    let capitalWord =
      run.allSatisfy { upper.contains($0) }
      || (run.first.map { upper.contains($0) } == true && run.dropFirst().allSatisfy { lower.contains($0) })
    guard !capitalWord, beyondASCII.count >= 2, let script = eastAsianScript(beyondASCII[0]) else {
      return false
    }
    return beyondASCII.allSatisfy { eastAsianScript($0) == script }
  }

  /// Which East Asian writing a character belongs to, as one text mixes them: Chinese and
  /// Japanese (ideographs, kana, CJK punctuation and full-width forms), or Korean (Hangul).
  private static func eastAsianScript(_ scalar: Unicode.Scalar) -> Int? {
    switch scalar.value {
    case 0x3000...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0xFF00...0xFFEF: 1
    case 0x1100...0x11FF, 0x3130...0x318F, 0xAC00...0xD7A3: 2
    default: nil
    }
  }

  private static func isAssigned(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .unassigned, .privateUse, .surrogate, .control: false
    default: true
    }
  }

  /// The value of a base64 digit (RFC 2152's modified alphabet: no `=`), or nil.
  @inline(__always)
  static func base64Value(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 0x41...0x5A: byte - 0x41
    case 0x61...0x7A: byte - 0x61 + 26
    case 0x30...0x39: byte - 0x30 + 52
    case UInt8(ascii: "+"): 62
    case UInt8(ascii: "/"): 63
    default: nil
    }
  }

  // MARK: HZ

  /// True when every tilde is one of HZ's escapes (`~~`, `~` before a line feed, `~{`), every
  /// `~{` is closed by `~}` on its line, and the pairs between are GB2312 characters: at least
  /// one such pair.
  static func readsAsHZ(_ parts: [ArraySlice<UInt8>]) -> Bool {
    guard let decoder = try? TextDecoder(.hzGB2312) else { return false }
    var sawPair = false
    for part in parts {
      var index = part.startIndex
      while let tilde = part[index...].firstIndex(of: UInt8(ascii: "~")) {
        guard tilde + 1 < part.endIndex else { return false }
        switch part[tilde + 1] {
        case UInt8(ascii: "~"), 0x0A:
          index = tilde + 2
        case UInt8(ascii: "{"):
          guard let close = closingIndex(part, from: tilde + 2) else { return false }
          let pairs = part[(tilde + 2)..<close]
          guard pairs.count % 2 == 0 else { return false }
          var scalars: [UInt32] = []
          decoder.decode(part[tilde..<(close + 2)], final: true, into: &scalars)
          guard scalars.allSatisfy({ $0 < TextDecoder.invalidByteBase && TextSniffer.isTextScalar($0) })
          else {
            return false
          }
          sawPair = sawPair || !pairs.isEmpty
          index = close + 2
        default:
          return false
        }
      }
    }
    return sawPair
  }

  /// Where the `~}` closing GB mode begins (pairs are consumed two bytes at a time, so a `~`
  /// inside a pair does not close it), or nil when a line feed or the end comes first.
  private static func closingIndex(_ part: ArraySlice<UInt8>, from start: Int) -> Int? {
    var index = start
    while index + 1 < part.endIndex {
      if part[index] == UInt8(ascii: "~") && part[index + 1] == UInt8(ascii: "}") { return index }
      if part[index] == 0x0A || part[index + 1] == 0x0A { return nil }
      index += 2
    }
    return nil
  }
}
