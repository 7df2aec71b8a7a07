import CTextSupport
internal import CUchardet
import ShelfCore

/// Decides whether bytes are text, and in which encoding.
///
/// The order: a byte-order mark; zero bytes (UTF-32 or UTF-16 without a mark, by where the
/// zeros fall, or binary); UTF-8 (a long file's as a whole, `TextSample.wholeFileUTF8`); ASCII (with ISO-2022 escapes, the 7-bit CJK
/// encodings, or UTF-7 and HZ shifts, `SevenBitText`); then uchardet (Mozilla's detector) for
/// the legacy encodings, its answer refined within families it confuses (ISO-8859 and Windows
/// code pages, Latin-1/Latin-9/Mac Roman, KOI8-R/KOI8-U; Latin-1 and the Celtic ISO-8859-14,
/// which it has no model for; Icelandic, which it has no model for either and calls Turkish,
/// Central European or Baltic; the DOS and Mac code pages it lacks, `unmodelled(besides:)`),
/// named by the most common of the encodings that read it alike (`commonEquivalent`), and checked:
/// bytes that do not decode in the winning encoding, or decode to control characters other than
/// tab, line feed, vertical tab, form feed, carriage return, backspace, bell, escape and the DOS
/// end-of-file mark, are not text.
public enum TextSniffer {
  /// The encoding of `bytes` when they look like text, else nil (binary). `bytes` may be a
  /// prefix of a longer file: a multi-byte sequence cut at the end is allowed.
  public static func detectEncoding(_ bytes: [UInt8]) -> DetectedEncoding? {
    detectEncoding(TextSample(bytes, reachesEnd: false))
  }

  /// The encoding of the sampled file when it looks like text, else nil.
  public static func detectEncoding(_ sample: TextSample) -> DetectedEncoding? {
    if sample.isEmpty { return nil }
    let first = sample.first
    if first.starts(with: [0xEF, 0xBB, 0xBF]) {
      return isUTF8(sample, skipping: 3) ? DetectedEncoding(encoding: .utf8, bom: true) : nil
    }
    for (mark, encoding) in byteOrderMarks where first.starts(with: mark) {
      return isUnicode(sample, encoding, skipping: mark.count)
        ? DetectedEncoding(encoding: encoding, bom: true) : nil
    }
    // What kinds of bytes the sample holds (plain text counts for nothing).
    var census = shelf_byte_census()
    for segment in sample.segments {
      segment.withUnsafeBufferPointer { shelf_take_census($0.baseAddress, $0.count, &census) }
    }
    let zeros = [census.zeros.0, census.zeros.1, census.zeros.2, census.zeros.3].map { Int($0) }
    let highBytes = census.high_bytes
    let escapes = census.escapes
    let badControls = census.bad_controls
    if zeros != [0, 0, 0, 0] { return unicodeWithoutMark(sample, zeros: zeros) }
    // A long file whose segments are ASCII but whose other bytes are well-formed UTF-8 is UTF-8
    // (not a 7-bit encoding, whose files have no high byte).
    if highBytes == 0, sample.wholeFileUTF8 == .valid {
      return badControls == 0 ? DetectedEncoding(encoding: .utf8, bom: false) : nil
    }
    if highBytes == 0 {
      if escapes > 0, let sevenBit = sevenBitCJK(sample) {
        return DetectedEncoding(encoding: sevenBit, bom: false)
      }
      guard badControls == 0 else { return nil }
      if census.shift_marks > 0, let shifted = SevenBitText.encoding(of: sample) {
        return DetectedEncoding(encoding: shifted, bom: false)
      }
      return DetectedEncoding(encoding: .ascii, bom: false)
    }
    if badControls > 0 { return nil }
    if isUTF8(sample, skipping: 0) { return DetectedEncoding(encoding: .utf8, bom: false) }
    return legacy(sample).map { DetectedEncoding(encoding: commonEquivalent($0, sample), bom: false) }
  }

  /// True when a file's first bytes already rule text out, whatever follows: no byte-order
  /// mark, and zero bytes that are not UTF-16/32 (whatever else is there: ISO-2022 text has
  /// no zeros), or control characters text does not hold (escape aside, which ISO-2022 uses
  /// with its shift controls). Saves reading a binary file's whole sample.
  public static func prefixRulesOutText(_ prefix: [UInt8]) -> Bool {
    if byteOrderMarks.contains(where: { prefix.starts(with: $0.0) })
      || prefix.starts(with: [0xEF, 0xBB, 0xBF])
    {
      return false
    }
    // One pass over the bytes, sixteen at a time (the census `detectEncoding` takes).
    var census = shelf_byte_census()
    prefix.withUnsafeBufferPointer { shelf_take_census($0.baseAddress, $0.count, &census) }
    let zeros = [census.zeros.0, census.zeros.1, census.zeros.2, census.zeros.3].map { Int($0) }
    if zeros != [0, 0, 0, 0] {
      return unicodeWithoutMark(TextSample(prefix, reachesEnd: false), zeros: zeros) == nil
    }
    // Zero bytes decide alone (an escape cannot make them ISO-2022); without them, an escape
    // may begin an ISO-2022 shift.
    return census.escapes == 0 && census.bad_controls > 0
  }

  private static let byteOrderMarks: [([UInt8], TextEncoding)] = [
    ([0xFF, 0xFE, 0, 0], .utf32le), ([0, 0, 0xFE, 0xFF], .utf32be), ([0xFF, 0xFE], .utf16le),
    ([0xFE, 0xFF], .utf16be),
  ]

  // MARK: Unicode forms

  /// UTF-32 or UTF-16 without a byte-order mark. ASCII-range characters in UTF-16 leave their
  /// high byte zero, so the zeros fall on one parity (odd offsets in little-endian); in UTF-32
  /// every unit's top byte is zero. The bytes must then decode as valid text.
  private static func unicodeWithoutMark(_ sample: TextSample, zeros: [Int]) -> DetectedEncoding? {
    var candidates: [TextEncoding] = []
    if zeros[3] > 0 && zeros[2] > 0 { candidates.append(.utf32le) }
    if zeros[0] > 0 && zeros[1] > 0 { candidates.append(.utf32be) }
    let even = zeros[0] + zeros[2]
    let odd = zeros[1] + zeros[3]
    if odd > even * 2 { candidates.append(.utf16le) }
    if even > odd * 2 { candidates.append(.utf16be) }
    for encoding in candidates where isUnicode(sample, encoding, skipping: 0, needsASCII: true) {
      return DetectedEncoding(encoding: encoding, bom: false)
    }
    return nil
  }

  /// True when every segment decodes as `encoding` (UTF-16 or UTF-32) to text: valid scalars,
  /// no noncharacters U+FFFE/U+FFFF, no disallowed controls. A unit cut at a segment's end, and
  /// a surrogate cut at a segment's edge, are allowed. Without a byte-order mark
  /// (`needsASCII`), at least one character must be ASCII (a space, a line break, a digit…),
  /// as in any real text, so that a few binary bytes do not pass.
  static func isUnicode(
    _ sample: TextSample, _ encoding: TextEncoding, skipping: Int, needsASCII: Bool = false
  ) -> Bool {
    let size = encoding.unitSize
    let little = encoding == .utf16le || encoding == .utf32le
    var sawASCII = !needsASCII
    for (number, segment) in sample.segments.enumerated() {
      var index = number == 0 ? skipping : 0
      var pendingHigh = false
      var units = 0
      while index + size <= segment.count {
        var value: UInt32 = 0
        for offset in 0..<size {
          let byte = UInt32(segment[index + (little ? size - 1 - offset : offset)])
          value = value << 8 | byte
        }
        index += size
        units += 1
        if size == 2 {
          if pendingHigh {
            guard (0xDC00...0xDFFF).contains(value) else { return false }
            pendingHigh = false
            continue
          }
          if (0xD800...0xDBFF).contains(value) {
            pendingHigh = true
            continue
          }
          if (0xDC00...0xDFFF).contains(value) {
            if units == 1 && number > 0 { continue }
            return false
          }
        } else if value > 0x10FFFF || (0xD800...0xDFFF).contains(value) {
          return false
        }
        if value == 0xFFFE || value == 0xFFFF || !isTextScalar(value) { return false }
        if value >= 0x09 && value < 0x7F { sawASCII = true }
      }
    }
    return sawASCII
  }

  // MARK: UTF-8

  /// True when every segment is valid UTF-8 without disallowed C0 control characters. Segments
  /// other than the first may start inside a character; every segment may end inside one
  /// unless it is the end of the file.
  static func isUTF8(_ sample: TextSample, skipping: Int) -> Bool {
    for (number, segment) in sample.segments.enumerated() {
      var start = number == 0 ? skipping : 0
      if number > 0 {
        while start < min(segment.count, 3) && segment[start] & 0xC0 == 0x80 { start += 1 }
      }
      let cutAllowed = !(sample.reachesEnd && number == sample.segments.count - 1)
      if !isUTF8(segment[start...], cutAllowed: cutAllowed) { return false }
    }
    return true
  }

  /// True when the bytes are valid UTF-8 without disallowed C0 control characters, allowing a
  /// sequence cut off in the last three bytes when `cutAllowed`.
  static func isUTF8(_ bytes: ArraySlice<UInt8>, cutAllowed: Bool = true) -> Bool {
    bytes.withUnsafeBufferPointer { bytes in
      var index = 0
      while index < bytes.count {
        // Plain ASCII text is well-formed, and passed over as in `detectEncoding`.
        index += shelf_plain_ascii_prefix(bytes.baseAddress! + index, bytes.count - index)
        guard index < bytes.count else { break }
        switch UTF8Scalars.sequence(in: bytes, at: index) {
        case .scalar(let scalar, let length):
          // C1 controls pass: well-formed UTF-8 is UTF-8, as `file`, chardet and
          // charset_normalizer call it (translations whose Š went through windows-1252 and
          // Latin-1 hold U+008A), and no legacy reading of the same bytes is truer.
          if scalar.value < 0x20 && !isTextControlOK(scalar.value) { return false }
          index += length
        case .truncated: return cutAllowed
        case .invalid: return false
        }
      }
      return true
    }
  }

  // MARK: Seven-bit CJK

  /// ISO-2022-JP/KR/CN: ASCII bytes with escape sequences, as uchardet
  /// recognises them, confirmed by decoding.
  private static func sevenBitCJK(_ sample: TextSample) -> TextEncoding? {
    guard let named = CharsetDetector.detect(sample).flatMap(TextEncoding.fromUchardet),
      [.iso2022JP, .iso2022KR, .iso2022CN].contains(named),
      decodesAsText(sample, named)
    else { return nil }
    return named
  }

  // MARK: Legacy encodings

  /// The legacy encoding of a sample with high bytes that is not UTF-8.
  private static func legacy(_ sample: TextSample) -> TextEncoding? {
    var tried: Set<TextEncoding> = []
    var answers: [TextEncoding] = []
    if let named = CharsetDetector.detect(sample).flatMap(TextEncoding.fromUchardet) {
      answers.append(named)
    }
    // A sample cut shorter sometimes gets an answer where the whole one got none.
    if answers.isEmpty, sample.segments.count > 1 || sample.first.count > shortSample {
      let short = TextSample(Array(sample.first.prefix(shortSample)), reachesEnd: false)
      if let named = CharsetDetector.detect(short).flatMap(TextEncoding.fromUchardet) {
        answers.append(named)
      }
    }
    for answer in answers {
      let candidates = family(of: answer).filter { !tried.contains($0) }
      tried.formUnion(candidates)
      let outsiders = unmodelled(besides: answer).filter { !tried.contains($0) }
      var found = best(
        of: candidates, sample: sample, preferring: likelierOnTies(answer), scoringAlone: !outsiders.isEmpty)
      // Nothing uchardet's answer suggests decodes the text: the answer says nothing of it.
      let answerFailed = found == nil
      // The code pages uchardet has no model for are tried when its answer reads badly or the
      // text has more than one high byte to tell them by: one byte that reads well in both
      // (`…` is `ů` in ibm852) is not enough to leave it.
      if !outsiders.isEmpty, (found?.score ?? -1) < 0 || distinctHighBytes(sample) >= 2 {
        tried.formUnion(outsiders)
        if let outsider = best(of: outsiders, sample: sample, preferring: nil),
          outsider.score > found?.score ?? Int.min
            || (outsider.score == found?.score && readsAsUkrainian(outsider.encoding, sample))
        {
          found = outsider
        }
      }
      if let found {
        let refined = celticIfItReadsSo(latin1IfIcelandic(found.encoding, sample), sample)
        // Read badly in every encoding uchardet's answer suggests (and not a language it has no
        // model for), or not read by them at all: its answer was a guess, and the other code
        // pages get their chance. Other than a Western one, a code page that reads better only
        // because its letters stand alone where the answer's capitals did (a keymap's or a
        // hyphenation table's list of letters, which Vietnamese, Arabic or Mac Central European
        // read as marks, other letters or small letters) is no better: it must read more of the
        // bytes where they differ as letters inside words.
        if refined == found.encoding, found.score < 0 || answerFailed {
          let others = fallbacks.filter { $0.isSingleByte && !tried.contains($0) }
          if let other = best(of: others, sample: sample, preferring: nil), other.score > found.score,
            answerFailed || western.contains(other.encoding)
              || lettersInsideWords(sample, other.encoding, against: found.encoding)
          {
            return celticIfItReadsSo(other.encoding, sample)
          }
        }
        return latin1WithoutEvidence(latin1UnlessLettersSayOtherwise(refined, sample), sample)
      }
    }
    // uchardet had no answer that decodes: the best-looking of the multi-byte encodings that
    // decode (clean decoding is strong evidence for them), else of the single-byte ones.
    let untried = fallbacks.filter { !tried.contains($0) }
    if let multiByte = best(of: untried.filter { !$0.isSingleByte }, sample: sample, preferring: nil),
      multiByte.score > 0
    {
      return multiByte.encoding
    }
    return bestOf(untried.filter(\.isSingleByte), sample: sample, preferring: nil).map {
      celticIfItReadsSo($0, sample)
    }
  }

  /// Latin-1 (or windows-1252) in place of a Turkish, Central European or Baltic reading when the
  /// text is Icelandic or Faroese. uchardet has no model for them and calls such text ISO-8859-9 or windows-1254,
  /// which read ð, þ and ý as ğ, ş and ı, letters too, so the word score cannot undo it. The
  /// vowels á í ó ú and æ, same in both, tell them apart: Icelandic and Faroese use them all
  /// the time, Turkish never, while Turkish has ı (ý in Latin-1) in nearly every sentence.
  ///
  /// uchardet also calls Icelandic Central European or Baltic (ISO-8859-2, ISO-8859-4,
  /// ISO-8859-13, windows-1250, windows-1257), where ð, þ and æ read as other letters: Latin-1
  /// then wins when the text reads as Icelandic (see `IcelandicEvidence`) and decodes in it. The
  /// word score does not decide here: it ties on the letters, and a stray symbol (`¹`, which
  /// ISO-8859-2 reads as š) would tip it the wrong way.
  private static func latin1IfIcelandic(_ encoding: TextEncoding, _ sample: TextSample) -> TextEncoding {
    if centralEuropeanOrBaltic.contains(encoding) {
      guard IcelandicEvidence(sample).favoursIcelandic else { return encoding }
      return [TextEncoding.latin1, .windows1252].first { decodesAsText(sample, $0) } ?? encoding
    }
    guard encoding == .iso8859_9 || encoding == .windows1254 else { return encoding }
    var nordicVowels = 0
    var dotlessI = 0
    for segment in sample.segments {
      for byte in segment where byte >= 0xC1 {
        switch byte {
        case 0xE1, 0xED, 0xF3, 0xFA, 0xE6, 0xC1, 0xCD, 0xD3, 0xDA, 0xC6: nordicVowels += 1
        case 0xFD, 0xDD: dotlessI += 1
        default: break
        }
      }
    }
    guard nordicVowels > dotlessI else { return encoding }
    return [TextEncoding.latin1, .windows1252].first { decodesAsText(sample, $0) } ?? encoding
  }

  private static let western: Set<TextEncoding> = [.latin1, .windows1252, .iso8859_15, .macintosh]

  private static let centralEuropeanOrBaltic: Set<TextEncoding> = [
    .iso8859_2, .iso8859_4, .iso8859_13, .windows1250, .windows1257,
  ]

  /// ISO-8859-14 in place of a Latin-1 reading (ISO-8859-1, windows-1252) when the bytes that
  /// differ stand where Celtic letters stand (see `CelticEvidence`) and the sample decodes in
  /// it: uchardet has no Celtic model, and the word score cannot tell ŵ from ð. Not in place of
  /// ISO-8859-15, chosen because its letters (œ, š, ž) fit: ISO-8859-14 has letters there too.
  private static func celticIfItReadsSo(_ encoding: TextEncoding, _ sample: TextSample) -> TextEncoding {
    guard encoding == .latin1 || encoding == .windows1252, CelticEvidence(sample).favoursCeltic,
      decodesAsText(sample, .iso8859_14)
    else { return encoding }
    return .iso8859_14
  }

  private static let shortSample = 64 << 10

  /// The encodings uchardet tells apart poorly from `encoding`, it first: an ISO-8859 part and
  /// its Windows code page (the same letters, plus punctuation in 0x80–0x9F), Latin-1, Latin-9
  /// and Mac Roman, Mac Central European and Mac Roman, KOI8-R and KOI8-U; and Latin-1 beside
  /// the rarer ISO-8859 parts and VISCII, which uchardet names for a Western text with a few
  /// accented letters.
  static func family(of encoding: TextEncoding) -> [TextEncoding] {
    let relatives: [TextEncoding]
    switch encoding {
    case .latin1, .windows1252, .iso8859_15, .macintosh:
      relatives = [.latin1, .windows1252, .iso8859_15, .macintosh]
    case .iso8859_2, .windows1250: relatives = [.iso8859_2, .windows1250]
    case .macCentralEurope: relatives = [.macintosh, .latin1]
    case .iso8859_3, .iso8859_4, .iso8859_10, .viscii: relatives = [.latin1]
    case .ibm852: relatives = [.latin1, .windows1252, .macintosh]
    case .iso8859_13, .windows1257: relatives = [.iso8859_13, .windows1257]
    case .iso8859_5, .windows1251: relatives = [.iso8859_5, .windows1251]
    case .iso8859_6, .windows1256: relatives = [.iso8859_6, .windows1256]
    case .iso8859_7, .windows1253: relatives = [.iso8859_7, .windows1253]
    case .iso8859_8, .windows1255: relatives = [.iso8859_8, .windows1255]
    case .iso8859_9, .windows1254: relatives = [.iso8859_9, .windows1254]
    case .iso8859_11, .tis620: relatives = [.iso8859_11, .tis620]
    case .koi8r, .koi8u: relatives = [.koi8r, .koi8u]
    default: relatives = []
    }
    return [encoding] + relatives.filter { $0 != encoding }
  }

  /// Which of a family wins a tie: the more common encoding where uchardet names a rare one for
  /// a text with a few letters that both read alike (Latin-1 for the ISO-8859 parts of
  /// Esperanto, the Baltic and the Nordic languages, and VISCII; Mac Roman for Mac Central
  /// European), else
  /// uchardet's answer.
  static func likelierOnTies(_ answer: TextEncoding) -> TextEncoding {
    switch answer {
    case .iso8859_3, .iso8859_4, .iso8859_10, .viscii: .latin1
    case .macCentralEurope: .macintosh
    default: answer
    }
  }

  /// cp1125 in place of ibm866 when their readings score alike and the bytes 0xF6–0xF7 occur:
  /// ibm866 reads them as the Belarusian Ў ў, which no Russian text has (and Belarusian text in
  /// ibm866 cannot be, lacking і), cp1125 as Ukrainian І і, among its commonest letters.
  private static func readsAsUkrainian(_ encoding: TextEncoding, _ sample: TextSample) -> Bool {
    encoding == .cp1125 && sample.segments.contains { $0.contains(0xF6) || $0.contains(0xF7) }
  }

  /// The DOS and Mac code pages uchardet has no model for, by what it calls their text: Central
  /// European in ibm852 or Mac Central European (ISO-8859-2, windows-1250), Baltic in ibm775
  /// (Mac Central European, ibm852, ISO-8859-13, windows-1257), Ukrainian in cp1125 (ibm866).
  static func unmodelled(besides encoding: TextEncoding) -> [TextEncoding] {
    switch encoding {
    case .iso8859_2, .windows1250: [.ibm852, .macCentralEurope]
    case .macCentralEurope: [.ibm775, .ibm852]
    case .ibm852: [.ibm775]
    case .iso8859_13, .windows1257: [.ibm775]
    case .ibm866: [.cp1125]
    default: []
    }
  }

  /// How many different bytes of 0x80 or more the sample holds.
  static func distinctHighBytes(_ sample: TextSample) -> Int {
    var seen = [Bool](repeating: false, count: 128)
    for segment in sample.segments {
      for byte in segment where byte >= 0x80 { seen[Int(byte - 0x80)] = true }
    }
    return seen.filter { $0 }.count
  }

  /// Latin-1, else windows-1252, else Mac Roman, in place of another single-byte encoding that
  /// reads every high byte of the sample as it does: the same text, so the most common name for
  /// it (an English file with one `ó` is Latin-1, not VISCII or windows-1252, whose own letters
  /// are not in it; German with `…` is windows-1252, not windows-1250).
  static func commonEquivalent(_ encoding: TextEncoding, _ sample: TextSample) -> TextEncoding {
    guard encoding != .latin1, encoding.isSingleByte, let chosen = try? TextDecoder(encoding),
      let latin1 = try? TextDecoder(.latin1)
    else { return encoding }
    var seen = [Bool](repeating: false, count: 128)
    for segment in sample.segments {
      for byte in segment where byte >= 0x80 { seen[Int(byte - 0x80)] = true }
    }
    let highBytes = (0..<128).filter { seen[$0] }.map { UInt8($0 + 0x80) }
    let text = chosen.decodeAll(highBytes)
    if text == latin1.decodeAll(highBytes) { return .latin1 }
    for common in [TextEncoding.windows1252, .macintosh] where common != encoding {
      if let decoder = try? TextDecoder(common), text == decoder.decodeAll(highBytes) { return common }
    }
    return encoding
  }

  /// Tried, best-looking first, when uchardet names nothing that decodes.
  static let fallbacks: [TextEncoding] = [
    .johab, .eucKR, .shiftJIS, .eucJP, .gb18030, .big5, .eucTW, .windows1252, .windows1250,
    .windows1251, .koi8r, .windows1253, .windows1255, .windows1256, .windows1257, .windows1254,
    .windows1258, .tis620, .macintosh, .ibm866, .macCentralEurope, .ibm852, .ibm775, .cp1125,
  ]

  /// Of `candidates`, the one whose decoding of the sample looks most like words (letters
  /// beside letters rather than symbols); `preferring` wins ties. Nil when none decodes.
  private static func bestOf(
    _ candidates: [TextEncoding], sample: TextSample, preferring: TextEncoding?
  ) -> TextEncoding? {
    best(of: candidates, sample: sample, preferring: preferring)?.encoding
  }

  /// `scoringAlone`: score a single candidate too (else it only has to decode).
  private static func best(
    of candidates: [TextEncoding], sample: TextSample, preferring: TextEncoding?, scoringAlone: Bool = false
  ) -> (encoding: TextEncoding, score: Int)? {
    if candidates.count == 1, preferring != nil, !scoringAlone, let only = candidates.first {
      return decodesAsText(sample, only) ? (only, 1) : nil
    }
    var best: (encoding: TextEncoding, score: Int)?
    for candidate in candidates {
      guard let score = wordScore(sample, candidate) else { continue }
      if best == nil || score > best!.score || (score == best!.score && candidate == preferring) {
        best = (candidate, score)
      }
    }
    return best
  }

  /// True when the sample decodes in `encoding` to text.
  static func decodesAsText(_ sample: TextSample, _ encoding: TextEncoding) -> Bool {
    wordScore(sample, encoding, scoring: false) != nil
  }

  /// Decodes the sample in `encoding`: nil when a byte does not decode or a control character
  /// comes out; else how word-like its non-ASCII characters are: +2 for a letter next to a
  /// letter, −3 for a symbol or punctuation mark inside a word or a non-Latin letter beside an
  /// ASCII letter, −3 for a capital after a small letter, nothing for punctuation that ends a
  /// word. Segments after the first start after their first byte below 0x30, which in every
  /// supported byte-oriented encoding begins a character.
  static func wordScore(_ sample: TextSample, _ encoding: TextEncoding, scoring: Bool = true) -> Int? {
    guard let decoder = try? TextDecoder(encoding) else { return nil }
    var score = 0
    for (number, segment) in sample.segments.enumerated() {
      var start = 0
      if number > 0 {
        guard let boundary = segment.firstIndex(where: { $0 < 0x30 }) else { continue }
        start = boundary + 1
      }
      var scalars: [UInt32] = []
      scalars.reserveCapacity(segment.count - start)
      let isLast = sample.reachesEnd && number == sample.segments.count - 1
      decoder.decode(segment[start...], final: isLast, into: &scalars)
      decoder.decode([][...], final: true, into: &scalars)
      // An incomplete character cut at the end of a segment is not an error.
      if !isLast {
        while let last = scalars.last, last >= TextDecoder.invalidByteBase { scalars.removeLast() }
      }
      guard !scalars.contains(where: { $0 >= TextDecoder.invalidByteBase || !isTextScalar($0) }) else {
        return nil
      }
      if scoring { score += wordScore(scalars) }
    }
    return score
  }

  /// What `wordScore` needs to know of a character, looked up once per distinct character.
  private struct LetterClass {
    var isLetter: Bool
    var isASCIILetter: Bool
    var isUpper: Bool
    var isLower: Bool
    var isMark: Bool
    /// Closing and dash punctuation and the ellipsis: marks that follow a word.
    var endsWords = false
    /// Opening punctuation and Spanish's `¿` and `¡`: marks that precede a word.
    var startsWords = false
    var isSpace = false

    init(_ value: UInt32) {
      guard let scalar = Unicode.Scalar(value) else {
        self.init(isLetter: false, isASCIILetter: false, isUpper: false, isLower: false, isMark: false)
        return
      }
      if scalar.isASCII {
        let lower = value | 0x20
        let letter = lower >= 0x61 && lower <= 0x7A
        self.init(
          isLetter: letter, isASCIILetter: letter, isUpper: letter && value < 0x60,
          isLower: letter && value >= 0x60, isMark: false)
        return
      }
      let properties = scalar.properties
      self.init(
        isLetter: properties.isAlphabetic, isASCIILetter: false, isUpper: properties.isUppercase,
        isLower: properties.isLowercase, isMark: properties.generalCategory == .nonspacingMark)
      switch properties.generalCategory {
      case .dashPunctuation, .closePunctuation, .finalPunctuation: endsWords = true
      case .initialPunctuation:
        // `«` opens a word in French, `»` in German; `“` opens one in English, ends one in German.
        endsWords = true
        startsWords = true
      case .openPunctuation: startsWords = true
      case .spaceSeparator: isSpace = true
      default:
        endsWords = value == 0x2026
        startsWords = value == 0xBF || value == 0xA1
      }
    }

    init(isLetter: Bool, isASCIILetter: Bool, isUpper: Bool, isLower: Bool, isMark: Bool) {
      self.isLetter = isLetter
      self.isASCIILetter = isASCIILetter
      self.isUpper = isUpper
      self.isLower = isLower
      self.isMark = isMark
    }
  }

  private static func wordScore(_ scalars: [UInt32]) -> Int {
    var classes: [UInt32: LetterClass] = [:]
    func letterClass(_ value: UInt32) -> LetterClass {
      if let known = classes[value] { return known }
      let found = LetterClass(value)
      classes[value] = found
      return found
    }
    var score = 0
    let end = scalars.count
    for index in 0..<end where scalars[index] >= 0x80 {
      let before = index > 0 ? letterClass(scalars[index - 1]) : nil
      let after = index + 1 < end ? letterClass(scalars[index + 1]) : nil
      guard before?.isLetter == true || after?.isLetter == true else {
        // A Latin capital standing alone ("[Option É]") is what a misread symbol looks like.
        if scalars[index] < 0x250 && letterClass(scalars[index]).isUpper { score -= 1 }
        continue
      }
      let current = letterClass(scalars[index])
      if current.isLetter {
        // A letter of another script than Latin glued to an ASCII letter ("ci漢n") is what a
        // Latin text decoded as a CJK encoding looks like, not real text.
        let asciiLetterBeside = before?.isASCIILetter == true || after?.isASCIILetter == true
        if asciiLetterBeside && scalars[index] >= 0x250 {
          score -= 3
          continue
        }
        // Accented Latin capitals are rare in text (a few at the start of words), small letters
        // common: a reading full of capitals ("dpkgÊ1.16") misreads symbols or spaces.
        score += current.isUpper && scalars[index] < 0x250 ? -1 : 2
        // A capital glued to the end of a small letter ("textÉ") is a misread punctuation mark.
        if current.isUpper && before?.isLower == true { score -= 3 }
      } else if current.isSpace || (current.endsWords && before?.isLetter == true && after?.isLetter != true)
        || (current.startsWords && before?.isLetter != true && after?.isLetter == true)
      {
        // White space, and punctuation that ends a word ("so…", "oui »") or starts one ("¿Qué",
        // "„Über"), are where text has them.
        continue
      } else if !current.isMark {
        score -= 3
      }
    }
    return score
  }

  // MARK: Control characters

  /// Control characters that appear in real text: tab, line feed, vertical tab, form feed,
  /// carriage return, backspace, bell, escape (terminal colours; `file(1)` allows the same)
  /// and the DOS end-of-file mark.
  static func isTextControlOK(_ value: UInt32) -> Bool {
    if value >= 0x20 && value != 0x7F { return true }
    return value == 0x07 || value == 0x09 || value == 0x0A || value == 0x0B || value == 0x0C || value == 0x0D
      || value == 0x08 || value == 0x1B || value == 0x1A
  }

  /// A decoded character that text holds: no C0 controls but the ones above, no DEL, no C1.
  @inline(__always)
  static func isTextScalar(_ value: UInt32) -> Bool {
    if value < 0x20 { return isTextControlOK(value) }
    return value < 0x7F || value >= 0xA0
  }
}

/// uchardet, Mozilla's universal charset detector: one detector per call, fed the sample.
enum CharsetDetector {
  /// uchardet's name for the sample's encoding, or nil when it has none.
  static func detect(_ sample: TextSample) -> String? {
    guard let detector = uchardet_new() else { return nil }
    defer { uchardet_delete(detector) }
    for segment in sample.segments where !segment.isEmpty {
      let status = segment.withUnsafeBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { uchardet_handle_data(detector, $0.baseAddress, $0.count) }
      }
      if status != 0 { return nil }
    }
    uchardet_data_end(detector)
    guard let name = uchardet_get_charset(detector) else { return nil }
    let text = String(cString: name)
    return text.isEmpty ? nil : text
  }
}
