import CTextSupport
import ShelfCore

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
    let (counter, text) =
      detected.encoding == .utf8 || detected.encoding == .ascii
      ? try countUTF8(source, from: Int64(detected.bomLength))
      : try countDecoded(source, encoding: detected)
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

  /// UTF-8 (and ASCII) counted on the bytes as read: runs of ASCII sixteen bytes at a time
  /// (`shelf_count_ascii`), other sequences decoded one by one, nothing copied or widened. The
  /// text of the beginning is the bytes themselves when they are ASCII.
  static func countUTF8(_ source: any ByteSource, from start: Int64) throws -> (Counter, String) {
    var counter = Counter()
    var offset = start
    let end = source.size
    var head: [UInt8] = []
    // A sequence cut by the end of a block, waiting for the next one.
    var pending: [UInt8] = []
    while offset < end {
      var chunk = try source.read(count: Int(min(Int64(blockSize), end - offset)), at: offset)
      if chunk.isEmpty { break }
      let headBytes = Int(max(0, min(Int64(searchTextLimit) - offset, Int64(chunk.count))))
      if headBytes > 0 { head += chunk[..<headBytes] }
      offset += Int64(chunk.count)
      if !pending.isEmpty {
        chunk = pending + chunk
        pending = []
      }
      let final = offset >= end
      chunk.withUnsafeBufferPointer { buffer in
        var at = 0
        while at < buffer.count {
          at += shelf_count_ascii(buffer.baseAddress! + at, buffer.count - at, &counter.counts)
          guard at < buffer.count else { break }
          switch UTF8Scalars.sequence(in: buffer, at: at) {
          case .scalar(let scalar, let length):
            shelf_count_character(&counter.counts, scalar.value)
            at += length
          case .truncated where !final:
            pending = Array(buffer[at...])
            at = buffer.count
          case .invalid, .truncated:
            shelf_count_character(&counter.counts, TextDecoder.invalidByteBase + UInt32(buffer[at]))
            at += 1
          }
        }
      }
    }
    counter.finish()
    guard head.contains(where: { $0 >= 0x80 }) else {
      return (counter, String(decoding: head, as: UTF8.self))
    }
    var units: [UInt32] = []
    // A sequence cut by the limit is left out, as it is when the text is decoded in blocks.
    UTF8Scalars.appendUnits(of: head, to: &units, holdingCutEnd: start + Int64(head.count) < end)
    return (counter, displayText(units))
  }

  /// Any other encoding, decoded block by block to scalar values and counted on them.
  static func countDecoded(_ source: any ByteSource, encoding detected: DetectedEncoding) throws
    -> (Counter, String)
  {
    var counter = Counter()
    let decoder = try TextDecoder(detected.encoding)
    var offset = Int64(detected.bomLength)
    let end = source.size
    var head: [UInt32] = []
    var scalars: [UInt32] = []
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
      for value in scalars { shelf_count_character(&counter.counts, value) }
    }
    counter.finish()
    return (counter, displayText(head))
  }

  /// Scalar values from `TextDecoder` as a string, an undecodable byte as U+FFFD.
  static func displayText(_ scalars: [UInt32]) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(scalars.count + scalars.count / 2)
    // Byte by byte: an array literal per character was an allocation per character.
    for value in scalars {
      switch value {
      case 0..<0x80:
        bytes.append(UInt8(value))
      case 0x80..<0x800:
        bytes.append(UInt8(0xC0 | value >> 6))
        bytes.append(UInt8(0x80 | value & 0x3F))
      case 0x800..<0x1_0000:
        bytes.append(UInt8(0xE0 | value >> 12))
        bytes.append(UInt8(0x80 | value >> 6 & 0x3F))
        bytes.append(UInt8(0x80 | value & 0x3F))
      case 0x1_0000...0x10_FFFF:
        bytes.append(UInt8(0xF0 | value >> 18))
        bytes.append(UInt8(0x80 | value >> 12 & 0x3F))
        bytes.append(UInt8(0x80 | value >> 6 & 0x3F))
        bytes.append(UInt8(0x80 | value & 0x3F))
      default:
        // U+FFFD for an undecodable byte.
        bytes.append(0xEF)
        bytes.append(0xBF)
        bytes.append(0xBD)
      }
    }
    // Surrogate values never come out of TextDecoder; String repairs them if they did.
    return String(decoding: bytes, as: UTF8.self)
  }

  /// The distinct words of the first `limit` bytes of `text`, in order of first appearance,
  /// separated by spaces: what the full-text index needs (it keeps no positions), at a fraction
  /// of the text's size, and worked out here, in parallel, rather than by the single writer.
  public static func searchTerms(_ text: String, limit: Int) -> String {
    var text = text
    return text.withUTF8 { whole in
      var count = min(whole.count, limit)
      if count == limit {
        // The last word may be cut: drop it rather than index half a word or half a character.
        while count > 0 && Self.isWordByte(whole[count - 1]) { count -= 1 }
      }
      return distinctWords(UnsafeBufferPointer(rebasing: whole[..<count]))
    }
  }

  /// The distinct words of `buffer`, in order of first appearance, separated by spaces (in C:
  /// a hash set of the words in place, a fifth of the time the same loop took in Swift).
  private static func distinctWords(_ buffer: UnsafeBufferPointer<UInt8>) -> String {
    guard let base = buffer.baseAddress, !buffer.isEmpty else { return "" }
    return String(unsafeUninitializedCapacity: buffer.count) { out in
      shelf_distinct_words(base, buffer.count, out.baseAddress!)
    }
  }

  /// ASCII letters and digits, and every byte of a non-ASCII character, make up words.
  @inline(__always)
  static func isWordByte(_ byte: UInt8) -> Bool {
    byte >= 0x80 || (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
  }

  /// The counts (`shelf_text_counts`, kept by CTextSupport's rules) and what they tell.
  struct Counter {
    var counts = shelf_text_counts()

    var chars: Int { Int(counts.chars) }
    var words: Int { Int(counts.words) }
    var lines: Int { Int(counts.lines) }

    /// A last line without an ending is a line.
    mutating func finish() {
      if counts.line_has_content != 0 { counts.lines += 1 }
    }

    var lineEndings: LineEndings {
      let kinds = [(counts.lf, LineEndings.lf), (counts.crlf, .crlf), (counts.cr, .cr)].filter { $0.0 > 0 }
      if kinds.isEmpty { return .noBreak }
      return kinds.count == 1 ? kinds[0].1 : .mixed
    }
  }
}
