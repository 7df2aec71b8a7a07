/// Western text stays Western without evidence otherwise (issue 44): a reading in another
/// code page must put letters inside words where Latin-1's does not, since a letter standing
/// alone (a keymap's or a hyphenation table's list of letters) says nothing of a language.
extension TextSniffer {
  /// Latin-1 (else windows-1252) in place of ISO-8859-15 or Mac Roman when it decodes the sample
  /// and the other does not read more of the bytes where they differ as letters inside words:
  /// `´A Á` of a keymap of dead keys reads better as `ŽA Á` by the word score, but lone letters
  /// are no evidence, and Latin-1 is the common Western encoding (`cœur`, `Straße` in Mac Roman
  /// are evidence, and keep their encoding).
  static func latin1UnlessLettersSayOtherwise(_ encoding: TextEncoding, _ sample: TextSample)
    -> TextEncoding
  {
    guard encoding == .iso8859_15 || encoding == .macintosh,
      let common = [TextEncoding.latin1, .windows1252].first(where: { decodesAsText(sample, $0) }),
      !lettersInsideWords(sample, encoding, against: common)
    else { return encoding }
    return common
  }

  /// True when `encoding` reads more of the bytes where it and `other` differ as letters inside
  /// words than `other` does, a misread letter (`isMisread`: `sortÇ`, Mac Roman's `sort«`
  /// misread) counting for the other reading (both single-byte: one character per byte, so the
  /// readings align). Such letters are strong evidence; a letter standing alone is not.
  static func lettersInsideWords(_ sample: TextSample, _ encoding: TextEncoding, against other: TextEncoding)
    -> Bool
  {
    guard encoding.isSingleByte, other.isSingleByte, let ours = try? TextDecoder(encoding),
      let theirs = try? TextDecoder(other)
    else { return false }
    var classes = LetterClasses()
    var balance = 0
    for segment in sample.segments {
      let a = ours.decodeAll(segment)
      let b = theirs.decodeAll(segment)
      guard a.count == b.count else { return false }
      for index in a.indices where a[index] != b[index] {
        if classes.isInsideWord(a, index) || classes.isMisread(b, index) { balance += 1 }
        if classes.isInsideWord(b, index) || classes.isMisread(a, index) { balance -= 1 }
      }
    }
    return balance > 0
  }

  /// Latin-1 (else windows-1252) in place of another single-byte encoding whose reading puts
  /// none of the sample's high bytes inside a word as a letter and is no likelier than Latin-1's
  /// where they differ (`lettersInsideWords`): nothing tells that text's language (a lone `ÿ` in
  /// pages of ASCII, which ibm852 reads as a no-break space), and Latin-1 is the common Western
  /// encoding. Mac Roman's `»sort«` is kept: Latin-1 reads it `ÈsortÇ`.
  static func latin1WithoutEvidence(_ encoding: TextEncoding, _ sample: TextSample) -> TextEncoding {
    guard encoding.isSingleByte, encoding != .latin1, encoding != .windows1252,
      let decoder = try? TextDecoder(encoding),
      let common = [TextEncoding.latin1, .windows1252].first(where: { decodesAsText(sample, $0) })
    else { return encoding }
    var classes = LetterClasses()
    for segment in sample.segments {
      let scalars = decoder.decodeAll(segment)
      for index in segment.indices where segment[index] >= 0x80 {
        if classes.isInsideWord(scalars, index) { return encoding }
      }
    }
    return lettersInsideWords(sample, encoding, against: common) ? encoding : common
  }

  /// Letters inside words: a letter between letters, and not a capital after a small letter
  /// (`fŸr` is Mac Roman's `für` misread). Characters are looked up once each.
  struct LetterClasses {
    private var known: [UInt32: (letter: Bool, upper: Bool, lower: Bool, number: Bool)] = [:]

    private mutating func look(_ value: UInt32) -> (letter: Bool, upper: Bool, lower: Bool, number: Bool) {
      if let found = known[value] { return found }
      let properties = Unicode.Scalar(value)?.properties
      let found = (
        properties?.isAlphabetic ?? false, properties?.isUppercase ?? false, properties?.isLowercase ?? false,
        properties?.generalCategory == .otherNumber
      )
      known[value] = found
      return found
    }

    /// A capital right after a small letter, or a fraction or superscript right after a
    /// letter (hyphen.fr's `1c½0` is ISO-8859-15's `1cœ0` misread): a misread letter.
    mutating func isMisread(_ scalars: [UInt32], _ index: Int) -> Bool {
      guard index > 0 else { return false }
      let before = look(scalars[index - 1])
      let current = look(scalars[index])
      return (current.upper && before.lower) || (current.number && before.letter)
    }

    mutating func isInsideWord(_ scalars: [UInt32], _ index: Int) -> Bool {
      guard index > 0, index + 1 < scalars.count else { return false }
      let before = look(scalars[index - 1])
      let current = look(scalars[index])
      return before.letter && current.letter && look(scalars[index + 1]).letter
        && !(current.upper && before.lower)
    }
  }
}
