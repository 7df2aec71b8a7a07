import Foundation
import ShelfCore
import Testing

@testable import ShelfFacts

// Encodings of real files of Debian's /usr/share that shelf once named wrong (issue 44), and
// the rules behind them: valid UTF-8 is UTF-8, UTF-7 needs runs that chance does not write,
// Western text stays Western without letters inside words to say otherwise, and a long file's
// bytes between its sampled segments count.

private let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent().appendingPathComponent("Fixtures/text")

private func fixture(_ name: String) throws -> [UInt8] {
  Array(try Data(contentsOf: fixtures.appendingPathComponent(name)))
}

@Test(arguments: [
  ("aa_ET", TextEncoding.ascii), ("bo_CN", .ascii), ("pingus-sr.po", .utf8), ("de.tmac", .latin1),
  ("fr.tmac", .latin1), ("accents.vim", .latin1), ("canfr-win.vim", .latin1),
])
func realFilesAreNamedRight(_ name: String, _ expected: TextEncoding) throws {
  let detected = try #require(TextSniffer.detectEncoding(TextSample(try fixture(name))))
  #expect(detected == DetectedEncoding(encoding: expected, bom: false), "\(name)")
}

/// A glibc locale's `yesexpr "^[+1yY]"` is a regular expression, not UTF-7 for 휦: one
/// ideograph or syllable from three letters, unclosed, is what chance gives; so are ideographs
/// from a word in capitals (`vim +MANPAGER` in Vim's filetype.txt) or a capitalised one.
@Test(arguments: [
  "yesexpr \"^[+1yY]\"\n", "noexpr \"^[-0nN]\"\nyesexpr \"^[+1yY]\"\n", "x <+1yY> y\n",
  "export MANPAGER=\"vim +MANPAGER --not-a-term -\"\n", "try vim +Disabled now\n",
])
func aRegularExpressionWithAPlusIsASCII(_ text: String) throws {
  #expect(TextSniffer.detectEncoding(TextSample(Array(text.utf8)))?.encoding == .ascii)
}

/// What chance seldom gives stays UTF-7: a run closed by `-`, letters below U+0800, a word of
/// two ideographs.
@Test(arguments: [
  ("M+APw-nchen\n", "München\n"), ("caf+AOk.\n", "café.\n"), ("+ZeVnLA x\n", "日本 x\n"),
  ("in +ZeU-x\n", "in 日x\n"), ("+BBwEOARA.\n", "Мир.\n"),
])
func runsThatChanceDoesNotWriteAreUTF7(_ bytes: String, _ text: String) throws {
  let detected = try #require(TextSniffer.detectEncoding(TextSample(Array(bytes.utf8))))
  #expect(detected.encoding == .utf7, "\(bytes)")
  #expect(try TextDecoder(.utf7).decodeAll(Array(bytes.utf8)) == text.unicodeScalars.map(\.value))
}

/// Well-formed UTF-8 is UTF-8 even with C1 controls (`Š` that went through windows-1252 and
/// Latin-1 as U+008A), as `file`, chardet and charset_normalizer call it.
@Test func utf8WithC1ControlsIsUTF8() throws {
  let bytes = Array("Prika\u{9E}i ovu pomoć\n".utf8)
  #expect(TextSniffer.detectEncoding(TextSample(bytes)) == DetectedEncoding(encoding: .utf8, bom: false))
}

/// A long file is judged whole as UTF-8, not by its segments alone: segments of ASCII with a
/// UTF-8 letter between them is UTF-8; with a Latin-1 letter between them, not UTF-8 (the
/// segment around that byte joins the sample); a sequence cut by the 1 MiB block the check reads
/// is whole.
@Test func aLongFileIsJudgedWholeAsUTF8() throws {
  let line = Array("The quick brown fox jumps over the lazy dog.\n".utf8)
  var ascii: [UInt8] = []
  while ascii.count < 8192 { ascii += line }
  func sample(_ bytes: [UInt8]) throws -> TextSample {
    try TextSample(reading: MemoryBytes(bytes), wholeFileLimit: 1024, segmentLength: 64)
  }
  // The segments (16 of 64 bytes) fall at multiples of about 540: offset 300 lies between two.
  var utf8 = ascii
  utf8.replaceSubrange(300..<302, with: Array("é".utf8))
  let wholeUTF8 = try sample(utf8)
  #expect(wholeUTF8.wholeFileUTF8 == .valid)
  #expect(!wholeUTF8.segments.joined().contains(0xC3))
  #expect(TextSniffer.detectEncoding(wholeUTF8) == DetectedEncoding(encoding: .utf8, bom: false))
  var latin1 = ascii
  latin1.replaceSubrange(300..<306, with: Array("caf\u{E9} ".unicodeScalars.map { UInt8($0.value) }))
  latin1.replaceSubrange(306..<320, with: Array("déjà vu, naïve".unicodeScalars.map { UInt8($0.value) }))
  let wholeLatin1 = try sample(latin1)
  #expect(wholeLatin1.wholeFileUTF8 == .invalid)
  #expect(wholeLatin1.segments.count == TextSample.segmentCount + 1)
  #expect(TextSniffer.detectEncoding(wholeLatin1)?.encoding == .latin1)
  #expect(try sample(ascii).wholeFileUTF8 == .ascii)
  #expect(TextSniffer.detectEncoding(try sample(ascii)) == DetectedEncoding(encoding: .ascii, bom: false))
  // 2 MiB of ASCII with `€` across the first 1 MiB block's end, and with it cut by the file's end.
  var long = [UInt8](repeating: UInt8(ascii: "a"), count: 2 << 20)
  for split in 1...2 {
    var bytes = long
    bytes.replaceSubrange(((1 << 20) - split)..<((1 << 20) - split + 3), with: [0xE2, 0x82, 0xAC])
    #expect(try TextSample(reading: MemoryBytes(bytes)).wholeFileUTF8 == .valid, "split \(split)")
  }
  long.replaceSubrange((long.count - 2)..<long.count, with: [0xE2, 0x82])
  #expect(try TextSample(reading: MemoryBytes(long)).wholeFileUTF8 == .invalid)
}

/// Western text that reads better in another code page only because that page's letters stand
/// alone where Latin-1's capitals did (a hyphenation table `.hcode Ì ì`) stays Latin-1; Polish
/// whose ł, ś and ż stand inside words still leaves uchardet's Western answer for windows-1250.
@Test func westernStaysWesternWithoutLettersInsideWords() throws {
  let table = try fixture("de.tmac")
  #expect(!TextSniffer.lettersInsideWords(TextSample(table), .windows1258, against: .latin1))
  let polish = try iconv(
    "Mały żółw będzie siedział na łące. Źle się stało, że wszyscy śpią.\n", to: "WINDOWS-1250")
  #expect(TextSniffer.lettersInsideWords(TextSample(polish), .windows1250, against: .latin1))
  // ISO-8859-15's œ between a letter and a digit (hyphen.fr's patterns) reads in Latin-1 as a
  // fraction glued to a letter, a misread; Latin-1's no-break space before a digit (an HTML
  // page's `Chapter&nbsp;1.`) is no letter of ibm852's.
  let patterns = try iconv(
    "% the oe ligature 'œ' is used\n1cœ0 % fin\n1mœ0 % fin\n1sœ0 % fin\n", to: "ISO-8859-15")
  #expect(TextSniffer.lettersInsideWords(TextSample(patterns), .iso8859_15, against: .latin1))
  let page = try iconv(
    "<title>Chapter\u{A0}1.\u{A0}Introduction</title><p>Copyright © 2007</p>\n", to: "ISO-8859-1")
  #expect(!TextSniffer.lettersInsideWords(TextSample(page), .ibm852, against: .latin1))
}
