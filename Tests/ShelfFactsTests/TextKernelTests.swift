import CTextSupport
import ShelfTestSupport
import Testing

/// CTextSupport's sixteen-at-a-time paths against the plain rules, byte by byte, on random
/// bytes of the kinds that take each branch (binary, white space and line endings, ASCII).

private func samples() -> [[UInt8]] {
  var random = SeededGenerator(state: 24)
  let blanks = Array("ab cd\n\r\t\u{0B}\u{0C} xyz".utf8)
  return (0..<3000).map { number in
    (0..<Int.random(in: 0..<200, using: &random)).map { _ in
      switch number % 3 {
      case 0: UInt8.random(in: 0...255, using: &random)
      case 1: blanks.randomElement(using: &random)!
      default: UInt8.random(in: 0..<128, using: &random)
      }
    }
  }
}

@Test func theByteCensusAgreesWithTheRuleForEachByte() {
  for bytes in samples() {
    var census = shelf_byte_census()
    bytes.withUnsafeBufferPointer { shelf_take_census($0.baseAddress, $0.count, &census) }
    var zeros = [0, 0, 0, 0]
    var high = 0
    var escapes = 0
    var bad = 0
    for (offset, byte) in bytes.enumerated() {
      switch byte {
      case 0x20..<0x7F: break
      case 0x80...: high += 1
      case 0: zeros[offset & 3] += 1
      case 0x1B: escapes += 1
      case 0x07...0x0D, 0x1A: break
      default: bad += 1
      }
    }
    #expect([census.zeros.0, census.zeros.1, census.zeros.2, census.zeros.3] == zeros.map(Int64.init))
    #expect(
      [census.high_bytes, census.escapes, census.bad_controls] == [high, escapes, bad].map(Int64.init))
  }
}

@Test func asciiCountedSixteenAtATimeAgreesWithOneCharacterAtATime() {
  for bytes in samples() {
    var fast = shelf_text_counts()
    let counted = bytes.withUnsafeBufferPointer { shelf_count_ascii($0.baseAddress, $0.count, &fast) }
    let ascii = bytes.prefix { $0 < 0x80 }
    #expect(counted == ascii.count)
    var slow = shelf_text_counts()
    for byte in ascii { shelf_count_character(&slow, UInt32(byte)) }
    #expect(
      [fast.chars, fast.words, fast.lines, fast.lf, fast.crlf, fast.cr]
        == [slow.chars, slow.words, slow.lines, slow.lf, slow.crlf, slow.cr])
    #expect(
      [fast.in_word, fast.after_cr, fast.line_has_content] == [
        slow.in_word, slow.after_cr, slow.line_has_content,
      ])
    let plain = bytes.withUnsafeBufferPointer { shelf_plain_ascii_prefix($0.baseAddress, $0.count) }
    #expect(
      plain == bytes.prefix { (0x20..<0x7F).contains($0) || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }.count)
  }
}
