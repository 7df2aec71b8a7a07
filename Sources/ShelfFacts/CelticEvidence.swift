/// Whether text that reads as Latin-1 is really ISO-8859-14 (Latin-8: Welsh, Irish, Scottish
/// Gaelic, Breton, Manx, Cornish).
///
/// uchardet has no Celtic model, so it calls such text windows-1252 or ISO-8859-1, and the
/// word-likeness score cannot undo that: Welsh ŵ and ŷ (bytes F0 and FE) read as ð and þ, letters
/// in either encoding. What tells the two apart is where those bytes stand, counted as votes:
///
/// - Celtic: a byte whose Latin-1 reading is a symbol (not punctuation that Latin-1 text glues to
///   words, « » ¡ ¿ ·) but whose ISO-8859-14 reading is a letter, inside a word (small letter
///   between letters: Irish `aḃ`, `oíċe`) or opening one (capital before a small letter: `Ċé`);
///   ŵ opening a word (`ŵyr`, `ŵyl`: Icelandic ð never opens one); ŵ or ŷ after a consonant
///   (`dŵr`, `gŵr`, `tŷ`, `Llŷn`).
/// - Nordic (Icelandic, Faroese): þ opening a word (`það`, `þú`, `Þór`); ð or þ after a vowel
///   (`maður`, `við`, `góðan`); the letters æ, ø and ý, which Welsh does not use.
///
/// After `r` or `y` a vote goes neither way (Icelandic `orð`, Welsh `rŵan`). ISO-8859-14 wins when
/// the Celtic votes outnumber the Nordic ones. A symbol glued to a word in Latin-1 (`t÷`,
/// `°`, `µ` between letters) is rare in real text, and ð/þ after consonants is rare in
/// Icelandic, so a few votes decide, while text in other Western European languages has none.
struct CelticEvidence {
  private(set) var celtic = 0
  private(set) var nordic = 0

  /// Counts the votes in each segment of the sample, as bytes.
  init(_ sample: TextSample) {
    for segment in sample.segments { count(segment) }
  }

  /// True when the sample reads better as ISO-8859-14 than as Latin-1.
  var favoursCeltic: Bool { celtic > nordic }

  private mutating func count(_ bytes: [UInt8]) {
    for index in bytes.indices where bytes[index] >= 0xA0 {
      let byte = bytes[index]
      let before = index > 0 ? bytes[index - 1] : 0x20
      let after = index + 1 < bytes.count ? bytes[index + 1] : 0x20
      switch byte {
      case 0xF0, 0xD0, 0xFE, 0xDE:  // ŵ Ŵ ŷ Ŷ, or ð Ð þ Þ
        let isW = byte == 0xF0 || byte == 0xD0
        if !Self.isLetter(before) {
          guard Self.isLetter(after) else { continue }
          if isW { celtic += 1 } else { nordic += 1 }
        } else if Self.isVowel(before) {
          nordic += 1
        } else if before | 0x20 != UInt8(ascii: "r") && before | 0x20 != UInt8(ascii: "y") {
          celtic += 1
        }
      case 0xE6, 0xC6, 0xF8, 0xD8, 0xFD, 0xDD:  // æ Æ ø Ø ý Ý
        nordic += 1
      default:
        guard Self.symbolInLatin1(byte) else { continue }
        let opensWord = !Self.isLetter(before) && Self.isUpper(byte) && Self.isLower(after)
        let insideWord = Self.isLetter(before) && Self.isLetter(after) && !Self.isUpper(byte)
        if opensWord || insideWord { celtic += 1 }
      }
    }
  }

  /// Bytes that are symbols in Latin-1 (¢ ¤ ° ± µ … × ÷) and letters in ISO-8859-14. Not the
  /// punctuation that Latin-1 text glues to words: ¡ ¿ (Spanish `¡hola`), « » (German
  /// `»Sticky«Bit`) and · (Catalan `l·l`, Swedish `om·den`).
  private static func symbolInLatin1(_ byte: UInt8) -> Bool {
    switch byte {
    case 0xA2, 0xA4, 0xA5, 0xA6, 0xA8, 0xAA, 0xAC, 0xAF, 0xB0...0xB5, 0xB8...0xBA, 0xBC...0xBE, 0xD7, 0xF7:
      true
    default: false
    }
  }

  /// A letter in either reading: ASCII letters, and C0–FF but for × and ÷ of Latin-1.
  private static func isLetter(_ byte: UInt8) -> Bool {
    let lower = byte | 0x20
    return (lower >= 0x61 && lower <= 0x7A) || (byte >= 0xC0 && byte != 0xD7 && byte != 0xF7)
  }

  /// A small letter in either reading (beside a byte that ISO-8859-14 reads as a letter).
  private static func isLower(_ byte: UInt8) -> Bool {
    (byte >= 0x61 && byte <= 0x7A) || (byte >= 0xDF && byte != 0xF7)
  }

  /// A capital in ISO-8859-14's reading of the bytes Latin-1 reads as symbols.
  private static func isUpper(_ byte: UInt8) -> Bool {
    switch byte {
    case 0xA4, 0xA6, 0xA8, 0xAA, 0xAC, 0xAF, 0xB0, 0xB2, 0xB4, 0xBD, 0xD7: true
    default: false
    }
  }

  /// a e i o u and the accented vowels of Latin-1, small or capital (not w or y, which are
  /// Welsh vowels but not Icelandic ones).
  private static func isVowel(_ byte: UInt8) -> Bool {
    switch byte | 0x20 {
    case UInt8(ascii: "a"), UInt8(ascii: "e"), UInt8(ascii: "i"), UInt8(ascii: "o"), UInt8(ascii: "u"): true
    case 0xE0...0xE6, 0xE8...0xEF, 0xF2...0xF6, 0xF8...0xFD: true
    default: false
    }
  }
}
