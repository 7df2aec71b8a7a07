#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Counts lines, words and characters of a text file, finds its line endings and first line, and
/// extracts a capped amount of its text for full-text search, in bounded memory.
///
/// The counts stream over the whole file in blocks of `blockSize`, whatever its size: a count
/// of part of a file would be a fact that lies.
public enum TextAnalyzer {
  /// At most this many bytes of a file's text are searchable (its first words).
  public static let searchTextLimit = 8 << 10
  /// Bytes read and counted at a time: the memory the counts need, however long the file.
  public static let blockSize = 1 << 20

  /// The result of analysing a text file.
  public struct Analysis: Sendable {
    public var facts: TextFacts
    /// The beginning of the text, decoded to Swift, for the full-text index.
    public var searchText: String
  }

  /// Analyses `source` in the given encoding (found by `TextSniffer`).
  public static func analyze(_ source: any ByteSource, encoding detected: DetectedEncoding) throws
    -> Analysis
  {
    var counter = Counter()
    let utf16 = detected.encoding == .utf16le || detected.encoding == .utf16be
    let little = detected.encoding == .utf16le
    let charsByLead = detected.encoding == .utf8
    var offset = Int64(detected.bomLength)
    let end = source.size
    var carry: UInt8?
    var head: [UInt8] = []
    let headLimit = searchTextLimit + 4
    while offset < end {
      let chunk = try source.read(count: Int(min(Int64(blockSize), end - offset)), at: offset)
      if chunk.isEmpty { break }
      offset += Int64(chunk.count)
      if head.count < headLimit { head += chunk.prefix(headLimit - head.count) }
      if utf16 {
        var index = 0
        var bytes = chunk
        if let pending = carry {
          bytes.insert(pending, at: 0)
          carry = nil
        }
        while index + 1 < bytes.count {
          let unit =
            little
            ? UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8
            : UInt32(bytes[index]) << 8 | UInt32(bytes[index + 1])
          counter.feed(unit, isChar: !(0xDC00...0xDFFF).contains(unit))
          index += 2
        }
        if index < bytes.count { carry = bytes[index] }
      } else {
        counter.feedBytes(chunk, utf8: charsByLead)
      }
    }
    counter.finish()
    let text = decode(head, encoding: detected.encoding)
    var firstLine = ""
    for character in text.unicodeScalars {
      if character == "\n" || character == "\r" { break }
      firstLine.unicodeScalars.append(character)
      if firstLine.unicodeScalars.count >= 400 { break }
    }
    firstLine = firstLine.trimmingWhitespace()
    if firstLine.count > 200 { firstLine = String(firstLine.prefix(200)) }
    let searchText = searchTerms(text, limit: searchTextLimit)
    let facts = TextFacts(
      encoding: detected.encoding, bom: detected.bom, lineEndings: counter.lineEndings,
      lines: counter.lines, words: counter.words, chars: counter.chars, firstLine: firstLine)
    return Analysis(facts: facts, searchText: searchText)
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

  /// Decodes bytes (without BOM) in `encoding`, replacing invalid sequences.
  public static func decode(_ bytes: [UInt8], encoding: TextEncoding) -> String {
    switch encoding {
    case .ascii, .utf8:
      var slice = bytes[...]
      // Drop a sequence cut off at the end.
      var back = 0
      while back < 3, back < slice.count, slice[slice.endIndex - 1 - back] & 0xC0 == 0x80 { back += 1 }
      if back < slice.count {
        let lead = slice[slice.endIndex - 1 - back]
        let needed = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
        if needed > back + 1 { slice = slice.dropLast(back + 1) }
      }
      return String(decoding: slice, as: UTF8.self)
    case .latin1:
      var text = ""
      text.unicodeScalars.reserveCapacity(bytes.count)
      for byte in bytes { text.unicodeScalars.append(Unicode.Scalar(byte)) }
      return text
    case .utf16le, .utf16be:
      var units: [UInt16] = []
      units.reserveCapacity(bytes.count / 2)
      var index = 0
      while index + 1 < bytes.count {
        units.append(
          encoding == .utf16le
            ? UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8
            : UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1]))
        index += 2
      }
      if let last = units.last, (0xD800...0xDBFF).contains(last) { units.removeLast() }
      return String(decoding: units, as: UTF16.self)
    }
  }

  /// Reads a whole text file (up to `limit` bytes) and converts it to a Swift string.
  public static func readText(_ source: any ByteSource, limit: Int64) throws -> (String, DetectedEncoding?) {
    let bytes = try source.read(count: Int(min(source.size, limit)), at: 0)
    guard let detected = TextSniffer.detectEncoding(Array(bytes.prefix(8192))) else {
      return (String(decoding: bytes, as: UTF8.self), nil)
    }
    return (decode(Array(bytes.dropFirst(detected.bomLength)), encoding: detected.encoding), detected)
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

    @inline(__always)
    mutating func feed(_ unit: UInt32, isChar: Bool) {
      if isChar { chars += 1 }
      switch unit {
      case 0x0A:
        if afterCR { crlf += 1; cr -= 1 } else { lf += 1; lines += 1 }
        afterCR = false
        inWord = false
        lineHasContent = false
        return
      case 0x0D:
        cr += 1
        lines += 1
        afterCR = true
        inWord = false
        lineHasContent = false
        return
      case 0x20, 0x09, 0x0B, 0x0C:
        inWord = false
      default:
        if !inWord && isChar {
          words += 1
          inWord = true
        }
      }
      afterCR = false
      lineHasContent = true
    }

    /// The byte-oriented encodings' fast path (ASCII, UTF-8, Latin-1): the same rules as
    /// `feed`, with the state in locals and one table lookup per byte.
    mutating func feedBytes(_ bytes: [UInt8], utf8: Bool) {
      var chars = self.chars
      var words = self.words
      var lines = self.lines
      var lf = self.lf
      var crlf = self.crlf
      var cr = self.cr
      var inWord = self.inWord
      var afterCR = self.afterCR
      var lineHasContent = self.lineHasContent
      let classes = utf8 ? Self.utf8Classes : Self.latin1Classes
      classes.withUnsafeBufferPointer { table in
        bytes.withUnsafeBufferPointer { buffer in
          for byte in buffer {
            switch table[Int(byte)] {
            case 0:  // the first byte of a character that is not a space
              chars += 1
              if !inWord {
                words += 1
                inWord = true
              }
              afterCR = false
              lineHasContent = true
            case 1:  // a UTF-8 continuation byte
              afterCR = false
              lineHasContent = true
            case 2:  // space, tab, vertical tab, form feed
              chars += 1
              inWord = false
              afterCR = false
              lineHasContent = true
            case 3:  // line feed
              chars += 1
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
            default:  // carriage return
              chars += 1
              cr += 1
              lines += 1
              afterCR = true
              inWord = false
              lineHasContent = false
            }
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

    static let latin1Classes: [UInt8] = (0..<256).map { byte in
      switch byte {
      case 0x0A: 3
      case 0x0D: 4
      case 0x20, 0x09, 0x0B, 0x0C: 2
      default: 0
      }
    }

    static let utf8Classes: [UInt8] = (0..<256).map { byte in
      byte & 0xC0 == 0x80 ? 1 : latin1Classes[byte]
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
