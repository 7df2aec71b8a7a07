#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Counts lines, words and characters of a text file, finds its line endings and first line, and
/// extracts the decoded text of its beginning for full-text search, in bounded memory.
///
/// The counts stream over the whole file in blocks of `blockSize`, whatever its size: a count
/// of part of a file would be a fact that lies. Characters are Unicode scalar values of the
/// decoded text (an undecodable byte counts as one). Words follow the rule of `wc -w` in a UTF-8
/// locale (GNU coreutils 9.1): a word is a run of characters between white space, where white
/// space is tab, line feed, vertical tab, form feed, carriage return, space, the no-break spaces
/// U+00A0, U+2007, U+202F, U+2060, and U+1680, U+2000–U+200A, U+205F, U+3000; so a line of
/// Chinese or Japanese without spaces is one word, as `wc -w` counts it.
public enum TextAnalyzer {
  /// The first this many bytes of a file are decoded (to UTF-8) for the full-text index.
  public static let searchTextLimit = 64 << 10
  /// Bytes read and counted at a time: the memory the counts need, however long the file.
  public static let blockSize = 1 << 20

  /// The result of analysing a text file.
  public struct Analysis: Sendable {
    public var facts: TextFacts
    /// The distinct words of the beginning of the text, for the full-text index.
    public var searchText: String
  }

  /// Analyses `source` in the given encoding (found by `TextSniffer`).
  public static func analyze(_ source: any ByteSource, encoding detected: DetectedEncoding) throws
    -> Analysis
  {
    var counter = Counter()
    let decoder = try TextDecoder(detected.encoding)
    var offset = Int64(detected.bomLength)
    let end = source.size
    var head: [UInt32] = []
    var scalars: [UInt32] = []
    scalars.reserveCapacity(blockSize)
    while offset < end {
      let chunk = try source.read(count: Int(min(Int64(blockSize), end - offset)), at: offset)
      if chunk.isEmpty { break }
      let headBytes = max(0, min(Int64(searchTextLimit) - offset, Int64(chunk.count)))
      offset += Int64(chunk.count)
      scalars.removeAll(keepingCapacity: true)
      if headBytes > 0 && headBytes < Int64(chunk.count) {
        // Decode the searchable beginning apart, so that it ends where the limit falls.
        decoder.decode(chunk[..<Int(headBytes)], final: false, into: &scalars)
        head += scalars
        decoder.decode(chunk[Int(headBytes)...], final: offset >= end, into: &scalars)
      } else {
        decoder.decode(chunk[...], final: offset >= end, into: &scalars)
        if headBytes > 0 { head += scalars }
      }
      counter.feed(scalars)
    }
    counter.finish()
    let text = displayText(head)
    var firstLine = String(
      String.UnicodeScalarView(text.unicodeScalars.prefix { $0 != "\n" && $0 != "\r" }.prefix(400)))
    firstLine = firstLine.trimmingWhitespace()
    if firstLine.count > 200 { firstLine = String(firstLine.prefix(200)) }
    let searchText = searchTerms(text, limit: searchTextLimit * 4)
    let facts = TextFacts(
      encoding: detected.encoding, bom: detected.bom, lineEndings: counter.lineEndings,
      lines: counter.lines, words: counter.words, chars: counter.chars, firstLine: firstLine)
    return Analysis(facts: facts, searchText: searchText)
  }

  /// Scalar values from `TextDecoder` as a string, an undecodable byte as U+FFFD.
  static func displayText(_ scalars: [UInt32]) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(scalars.count + scalars.count / 2)
    for value in scalars {
      switch value {
      case 0..<0x80:
        bytes.append(UInt8(value))
      case 0x80..<0x800:
        bytes += [UInt8(0xC0 | value >> 6), UInt8(0x80 | value & 0x3F)]
      case 0x800..<0x1_0000:
        bytes += [UInt8(0xE0 | value >> 12), UInt8(0x80 | value >> 6 & 0x3F), UInt8(0x80 | value & 0x3F)]
      case 0x1_0000...0x10_FFFF:
        bytes += [
          UInt8(0xF0 | value >> 18), UInt8(0x80 | value >> 12 & 0x3F), UInt8(0x80 | value >> 6 & 0x3F),
          UInt8(0x80 | value & 0x3F),
        ]
      default:
        bytes += [0xEF, 0xBF, 0xBD]  // U+FFFD for an undecodable byte
      }
    }
    // Surrogate values never come out of TextDecoder; String repairs them if they did.
    return String(decoding: bytes, as: UTF8.self)
  }

  /// The distinct words of the first `limit` bytes of `text`, in order of first appearance,
  /// separated by spaces: what the full-text index needs (it keeps no positions), at a fraction
  /// of the text's size, and worked out here, in parallel, rather than by the single writer.
  public static func searchTerms(_ text: String, limit: Int) -> String {
    var bytes = Array(text.utf8.prefix(limit))
    if bytes.count == limit {
      // The last word may be cut: drop it rather than index half a word or half a character.
      while let last = bytes.last, Self.isWordByte(last) { bytes.removeLast() }
    }
    guard !bytes.isEmpty else { return "" }
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count / 2)
    // An open-addressing set of words, each stored as (start, length) into `bytes`, hashed
    // with FNV-1a: no allocation per word.
    var capacity = 64
    while capacity < bytes.count { capacity <<= 1 }
    let mask = capacity - 1
    var slots = [Int32](repeating: -1, count: capacity)
    var starts: [Int32] = []
    var lengths: [Int32] = []
    bytes.withUnsafeBufferPointer { buffer in
      var index = 0
      let count = buffer.count
      while index < count {
        guard Self.isWordByte(buffer[index]) else {
          index += 1
          continue
        }
        let start = index
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        while index < count && Self.isWordByte(buffer[index]) {
          hash = (hash ^ UInt64(buffer[index])) &* 0x100_0000_01b3
          index += 1
        }
        let length = index - start
        var slot = Int(truncatingIfNeeded: hash) & mask
        var found = false
        while slots[slot] >= 0 {
          let word = Int(slots[slot])
          if Int(lengths[word]) == length
            && memcmp(buffer.baseAddress! + Int(starts[word]), buffer.baseAddress! + start, length) == 0
          {
            found = true
            break
          }
          slot = (slot + 1) & mask
        }
        if !found {
          slots[slot] = Int32(starts.count)
          starts.append(Int32(start))
          lengths.append(Int32(length))
          if !out.isEmpty { out.append(0x20) }
          out.append(contentsOf: buffer[start..<index])
        }
      }
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// ASCII letters and digits, and every byte of a non-ASCII character, make up words.
  @inline(__always)
  static func isWordByte(_ byte: UInt8) -> Bool {
    byte >= 0x80 || (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
  }

  private struct Counter {
    var chars = 0
    var words = 0
    var lines = 0
    var lf = 0
    var crlf = 0
    var cr = 0
    var inWord = false
    var afterCR = false
    var lineHasContent = false

    /// Counts decoded scalar values, with the state in locals for speed.
    mutating func feed(_ scalars: [UInt32]) {
      var chars = self.chars
      var words = self.words
      var lines = self.lines
      var lf = self.lf
      var crlf = self.crlf
      var cr = self.cr
      var inWord = self.inWord
      var afterCR = self.afterCR
      var lineHasContent = self.lineHasContent
      scalars.withUnsafeBufferPointer { buffer in
        for value in buffer {
          chars += 1
          if value == 0x0A {
            if afterCR {
              crlf += 1
              cr -= 1
            } else {
              lf += 1
              lines += 1
            }
            afterCR = false
            inWord = false
            lineHasContent = false
          } else if value == 0x0D {
            cr += 1
            lines += 1
            afterCR = true
            inWord = false
            lineHasContent = false
          } else {
            if Self.isSpace(value) {
              inWord = false
            } else if !inWord {
              words += 1
              inWord = true
            }
            afterCR = false
            lineHasContent = true
          }
        }
      }
      self.chars = chars
      self.words = words
      self.lines = lines
      self.lf = lf
      self.crlf = crlf
      self.cr = cr
      self.inWord = inWord
      self.afterCR = afterCR
      self.lineHasContent = lineHasContent
    }

    /// White space as `wc -w` separates words by in a UTF-8 locale (line feed and carriage
    /// return are handled before).
    @inline(__always)
    static func isSpace(_ value: UInt32) -> Bool {
      if value < 0x80 { return value == 0x20 || (0x09...0x0D).contains(value) }
      switch value {
      case 0xA0, 0x1680, 0x2000...0x200A, 0x202F, 0x205F, 0x2060, 0x3000: return true
      default: return false
      }
    }

    mutating func finish() {
      if lineHasContent { lines += 1 }
    }

    var lineEndings: String {
      let kinds = [(lf, "lf"), (crlf, "crlf"), (cr, "cr")].filter { $0.0 > 0 }
      if kinds.isEmpty { return "none" }
      return kinds.count == 1 ? kinds[0].1 : "mixed"
    }
  }
}
