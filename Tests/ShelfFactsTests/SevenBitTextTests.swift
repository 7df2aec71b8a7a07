import ShelfCore
import Testing

@testable import ShelfFacts

// The 7-bit encodings (UTF-7 by iconv, HZ by Python's `hz` codec: glibc has none) and the
// names given when several encodings read a file alike.

/// `text` in HZ, written by CPython's codec (an encoder independent of shelf).
private func hz(_ text: String) throws -> [UInt8] {
  let script = "import sys; sys.stdout.buffer.write(sys.stdin.buffer.read().decode('utf-8').encode('hz'))"
  return try run("/usr/bin/python3", ["-c", script], input: Array(text.utf8))
}

@Test func hzIsDetectedDecodedAndCounted() throws {
  let text = try #require(sentences["zh"])
  let bytes = try hz(text)
  #expect(bytes.allSatisfy { $0 < 0x80 })
  let detected = try #require(TextSniffer.detectEncoding(TextSample(bytes)))
  #expect(detected == DetectedEncoding(encoding: .hzGB2312, bom: false))
  #expect(try TextDecoder(.hzGB2312).decodeAll(bytes) == text.unicodeScalars.map(\.value))
  let analysis = try TextAnalyzer.analyze(MemoryBytes(bytes), encoding: detected)
  #expect(analysis.facts.chars == text.unicodeScalars.count)
  #expect(analysis.facts.lines == 3)
  #expect(analysis.facts.firstLine == "今天天气很好，我们一起去公园散步吧。")
}

/// HZ's mode is kept from one block to the next: split at every offset, the text is whole.
@Test func hzModeIsKeptAcrossBlocks() throws {
  let text = "ASCII ~ then 中文 and back, ~~ literal.\n今天天气很好\n"
  let bytes = try hz(text)
  for split in 1..<bytes.count {
    let decoder = try TextDecoder(.hzGB2312)
    var decoded: [UInt32] = []
    decoder.decode(bytes[..<split], final: false, into: &decoded)
    decoder.decode(bytes[split...], final: true, into: &decoded)
    #expect(decoded == text.unicodeScalars.map(\.value), "split at byte \(split)")
  }
}

/// Plain ASCII whose `+` and `~` are not shifts stays ASCII: every shift must decode and one
/// must give a character beyond ASCII.
@Test(arguments: [
  "Build it with g++ or C++17: a+b, 1+1=2, call +49 30 1234567.\n",
  "diff --git a/x b/x\n+import foo\n+ bar\n",
  "cp ~/bin/tool ~{a,b} and approximately ~5 minutes.\n",
  "A plain +foo here and +word there.\n",
  "UTF-7 for a plus alone: 1 +- 1 is two.\n",
  "Only ~{ opens and never closes\n",
])
func asciiWithPlusAndTildeStaysASCII(_ text: String) throws {
  let detected = try #require(TextSniffer.detectEncoding(TextSample(Array(text.utf8))))
  #expect(detected.encoding == .ascii)
}

/// A damaged run among good ones (a lone `+` that no encoder writes, a `~{` pair GB2312 lacks)
/// makes the file not UTF-7 or HZ.
@Test func oneBadShiftMakesItNotSevenBit() throws {
  var utf7 = try iconv("Привет, мир!\n", to: "UTF-7")
  utf7 += Array("and a + alone\n".utf8)
  #expect(SevenBitText.encoding(of: TextSample(utf7)) == nil)
  var gb = try hz("中文\n")
  gb += Array("~{!!~}\n".utf8)  // 0xA1A1 is GB2312's ideographic space; 0x2121 pairs: fine
  #expect(SevenBitText.encoding(of: TextSample(gb)) == .hzGB2312)
  gb += Array("~{\u{7F}\u{7F}~}\n".utf8)
  #expect(SevenBitText.encoding(of: TextSample(gb)) == nil)
}

/// When several encodings read the bytes alike, the most common name: an English copyright
/// notice with one `ó` in Latin-1 (uchardet calls such files VISCII, ISO-8859-3 or
/// windows-1250), and windows-1252 only with a byte of 0x80–0x9F.
@Test func anEnglishNoticeWithOneAccentIsLatin1() throws {
  let text = """
    Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
    Upstream-Name: libexample
    Source: https://example.org/libexample

    Files: *
    Copyright: 2003-2011 Ramón Smith <ramon@example.org>
    License: LGPL-2.1+
     This library is free software; you can redistribute it and/or
     modify it under the terms of the GNU Lesser General Public
     License as published by the Free Software Foundation; either
     version 2.1 of the License, or (at your option) any later version.

    """
  for iconvName in ["ISO-8859-1", "WINDOWS-1252", "ISO-8859-15"] {
    let bytes = try iconv(text, to: iconvName)
    let detected = try #require(TextSniffer.detectEncoding(TextSample(bytes)))
    #expect(detected.encoding == .latin1, "\(iconvName)")
  }
}

/// The names the catalogue reports for the new encodings, and the ones iconv decodes them by.
@Test func namesOfTheRarerEncodings() throws {
  #expect(TextEncoding.ibm775.rawValue == "ibm775")
  #expect(TextEncoding.cp1125.rawValue == "cp1125")
  #expect(TextEncoding.macCentralEurope.rawValue == "x-mac-ce")
  #expect(TextEncoding.utf7.rawValue == "utf-7")
  #expect(TextEncoding.hzGB2312.rawValue == "hz-gb-2312")
  #expect(TextEncoding.iso8859_15.rawValue == "iso-8859-15")
  for encoding in [TextEncoding.ibm775, .cp1125, .utf7, .hzGB2312] {
    #expect(throws: Never.self) { try TextDecoder(encoding) }
  }
}
