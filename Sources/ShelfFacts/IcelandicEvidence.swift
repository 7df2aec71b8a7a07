/// Whether text that uchardet reads as Central European or Baltic (ISO-8859-2, ISO-8859-4,
/// ISO-8859-13, windows-1250, windows-1257) is really Icelandic or Faroese in Latin-1.
///
/// uchardet has no Icelandic model. Icelandic's letters á é í ó ú ý ö are the same bytes in
/// ISO-8859-2, and ð þ æ (F0 FE E6) read there as đ ţ ć, in ISO-8859-13 as š ž ę: letters in
/// every reading, so the word score ties and uchardet's answer stands. What tells them apart is
/// which letters the text uses, read as Latin-1, counted as votes:
///
/// - Icelandic: þ opening a word (`það`, `Þeir`); ð or þ after a vowel (`maður`, `öðrum`,
///   `við`); æ (`gæddir`), which in the other readings is ć or ę.
/// - Foreign: any other byte of the Central European and Baltic letters, as Latin-1 reads it: a
///   Latin-1 letter outside the Icelandic and Faroese alphabet (è ë ì õ û ã…: Czech č ě,
///   Hungarian ő ű, Lithuanian č ė ū, Romanian ă), a symbol inside a word (Polish ł ą ż, Czech
///   š ž read as ³ ± ¿ ¹ ¾), or one of the letters windows-1250 and windows-1257 keep in
///   0x80–0x9F (Š Ś Ť Ž Ź š ś ť ž ź).
///
/// Icelandic text has next to no foreign votes, while every Central European or Baltic language
/// has many (Lithuanian, whose š ž ę give Icelandic votes, about as many foreign as Icelandic),
/// so Latin-1 wins only when the Icelandic votes outnumber the foreign ones four to one.
struct IcelandicEvidence {
  private(set) var icelandic = 0
  private(set) var foreign = 0

  /// Counts the votes in each segment of the sample, as bytes.
  init(_ sample: TextSample) {
    for segment in sample.segments { count(segment) }
  }

  /// True when the sample reads as Icelandic or Faroese in Latin-1.
  var favoursIcelandic: Bool { icelandic > 4 * foreign }

  private mutating func count(_ bytes: [UInt8]) {
    for index in bytes.indices where bytes[index] >= 0x80 {
      let byte = bytes[index]
      let before = index > 0 ? bytes[index - 1] : 0x20
      let after = index + 1 < bytes.count ? bytes[index + 1] : 0x20
      switch byte {
      case 0xF0, 0xD0, 0xFE, 0xDE:  // ð Ð þ Þ
        let isThorn = byte == 0xFE || byte == 0xDE
        if Self.isLetter(before) {
          if Self.isVowel(before) { icelandic += 1 }
        } else if isThorn && Self.isLetter(after) {
          icelandic += 1
        }
      case 0xE6, 0xC6:  // æ Æ
        icelandic += 1
      case 0xC1, 0xC9, 0xCD, 0xD3, 0xDA, 0xDD, 0xD6, 0xD8, 0xE1, 0xE9, 0xED, 0xF3, 0xFA, 0xFD, 0xF6, 0xF8:
        break  // Á É Í Ó Ú Ý Ö Ø á é í ó ú ý ö ø: Icelandic or Faroese letters
      case 0x8A, 0x8C, 0x8D, 0x8E, 0x8F, 0x9A, 0x9C, 0x9D, 0x9E, 0x9F:
        foreign += 1
      default:
        if Self.isLetter(byte) || (Self.isLetter(before) && Self.isLetter(after)) { foreign += 1 }
      }
    }
  }

  /// A letter in Latin-1: ASCII letters, and C0–FF but for × and ÷.
  private static func isLetter(_ byte: UInt8) -> Bool {
    let lower = byte | 0x20
    return (lower >= 0x61 && lower <= 0x7A) || (byte >= 0xC0 && byte != 0xD7 && byte != 0xF7)
  }

  /// a e i o u y and the accented vowels of Latin-1, small or capital.
  private static func isVowel(_ byte: UInt8) -> Bool {
    switch byte | 0x20 {
    case UInt8(ascii: "a"), UInt8(ascii: "e"), UInt8(ascii: "i"), UInt8(ascii: "o"), UInt8(ascii: "u"),
      UInt8(ascii: "y"):
      true
    case 0xE0...0xE6, 0xE8...0xEF, 0xF2...0xF6, 0xF8...0xFD: true
    default: false
    }
  }
}
