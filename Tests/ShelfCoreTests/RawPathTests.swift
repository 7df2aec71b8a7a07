import ShelfCore
import Testing

@Test func escapedFormShowsControlAndInvalidBytes() {
  let path = RawPath(bytes: Array("a\tb".utf8) + [0xFF, 0x0A, 0x1B] + Array("é\\".utf8))
  #expect(path.escaped == "a\\tb\\xff\\n\\x1bé\\\\")
  #expect(!path.isPlainUTF8)
  #expect(RawPath("plain/é.txt").isPlainUTF8)
}

@Test func base64RoundTripsArbitraryBytes() {
  for length in 0..<8 {
    let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 97 + 255) }
    #expect(Base64.decode(Base64.encode(bytes)) == bytes)
  }
  #expect(Base64.encode(Array("foobar".utf8)) == "Zm9vYmFy")
  #expect(Base64.encode(Array("fo".utf8)) == "Zm8=")
}

@Test func componentsAndExtensions() {
  #expect(RawPath("/a/b/Photo.PNG").lastComponent == RawPath("Photo.PNG"))
  #expect(RawPath("/a/b/Photo.PNG").lowercasedExtension == "png")
  #expect(RawPath(".hidden").lowercasedExtension == "")
  #expect(RawPath("/a/./b/../c//d").absolute == RawPath("/a/c/d"))
  #expect(RawPath("/a").appending("b") == RawPath("/a/b"))
}

@Test func byteSizesParseWithBinaryUnits() {
  #expect(Quantities.parseByteSize("512") == 512)
  #expect(Quantities.parseByteSize("10K") == 10240)
  #expect(Quantities.parseByteSize("1.5M") == 1_572_864)
  #expect(Quantities.parseByteSize("2GiB") == 2_147_483_648)
  #expect(Quantities.parseByteSize("ten") == nil)
  #expect(Quantities.parseByteSize("-1") == nil)
}

@Test func durationsParseInEveryForm() {
  #expect(Quantities.parseDuration("90") == 90)
  #expect(Quantities.parseDuration("1:30") == 90)
  #expect(Quantities.parseDuration("1:00:05.5") == 3605.5)
  #expect(Quantities.parseDuration("2m") == 120)
  #expect(Quantities.parseDuration("1h30m") == 5400)
  #expect(Quantities.parseDuration("500ms") == 0.5)
  #expect(Quantities.parseDuration("1:x") == nil)
  #expect(Quantities.parseDuration("5 parsecs") == nil)
}

@Test func formattingForPeople() {
  #expect(Quantities.formatByteSize(1023) == "1023 B")
  #expect(Quantities.formatByteSize(1536) == "1.5 KiB")
  #expect(Quantities.formatByteSize(50 * 1_048_576) == "50 MiB")
  #expect(Quantities.formatDuration(65.9) == "1:05")
  #expect(Quantities.formatDuration(3725) == "1:02:05")
  #expect(Quantities.formatFixed(2.345, decimals: 2) == "2.35")
  #expect(Quantities.formatFixed(-0.5, decimals: 1) == "-0.5")
}
