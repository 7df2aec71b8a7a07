// The standard library's own canonical decomposition (what Foundation's folding uses), so that
// shelf's libraries fold accents without linking Foundation or ICU.
@_spi(_Unicode) import Swift

/// The words of the full-text index as shelf hands them to either engine, and the words a
/// query searches for, made alike here so that SQLite and PostgreSQL find the same entries.
///
/// Two things the engines do not do alike, or at all: FTS5's `unicode61` folds the accents of
/// Latin letters only (`σαντορινη` missed `Σαντορίνη`) and PostgreSQL's lowercasing follows
/// the database's locale; and both take a run of Chinese or Japanese characters for one word,
/// so that only its beginning could be searched for (`京都` missed `東京都`). Shelf folds
/// accents and case itself, and cuts each run of Han, Hiragana and Katakana into overlapping
/// bigrams, as Lucene's CJK analyzer does: `東京都庁` is indexed as `東京 京都 都庁 庁` (the
/// last character alone, so that a one-character word is found at the end of a run too), and
/// a query word `京都` searches for the bigram `京都`; a longer one for each of its bigrams.
package enum SearchTextFolding {
  /// `text` as the full-text index holds it: accents of Latin and Greek letters (and the
  /// diaeresis of Cyrillic ё) removed, other letters lowercased, CJK runs cut into bigrams.
  /// Text of ASCII alone, most text, is returned as it is: both engines fold ASCII alike.
  /// Folding folded text again finds the same words (a bigram's first character may be
  /// added as a word, which its bigram already matched as a prefix).
  package static func indexed(_ text: String) -> String {
    guard !isASCII(text) else { return text }
    var output: [UInt8] = []
    output.reserveCapacity(text.utf8.count + 16)
    var run: [Unicode.Scalar] = []
    func endRun() {
      guard let last = run.last else { return }
      output.append(0x20)
      for index in run.indices.dropLast() {
        append(run[index], to: &output)
        append(run[index + 1], to: &output)
        output.append(0x20)
      }
      append(last, to: &output)
      output.append(0x20)
      run.removeAll(keepingCapacity: true)
    }
    for scalar in text.unicodeScalars {
      if scalar.isASCII {
        endRun()
        output.append(UInt8(scalar.value))
      } else if isCJK(scalar) {
        run.append(scalar)
      } else {
        endRun()
        appendFolded(scalar, to: &output)
      }
    }
    endRun()
    return String(decoding: output, as: UTF8.self)
  }

  /// The words the index is searched for in place of a query word (letters and digits
  /// alone): the word folded as `indexed` folds text, its CJK runs cut into their bigrams (a
  /// run of one character stays a word, matched as a prefix), the rest kept whole.
  package static func queryWords(_ word: String) -> [String] {
    var words: [String] = []
    var current: [UInt8] = []
    var run: [Unicode.Scalar] = []
    func endWord() {
      if !current.isEmpty { words.append(String(decoding: current, as: UTF8.self)) }
      current.removeAll(keepingCapacity: true)
    }
    func endRun() {
      guard !run.isEmpty else { return }
      for index in run.indices where index + 1 < run.count || run.count == 1 {
        var bigram: [UInt8] = []
        append(run[index], to: &bigram)
        if index + 1 < run.count { append(run[index + 1], to: &bigram) }
        words.append(String(decoding: bigram, as: UTF8.self))
      }
      run.removeAll(keepingCapacity: true)
    }
    for scalar in word.unicodeScalars {
      if isCJK(scalar) {
        endWord()
        run.append(scalar)
      } else {
        endRun()
        if scalar.isASCII { current.append(UInt8(scalar.value)) } else { appendFolded(scalar, to: &current) }
      }
    }
    endWord()
    endRun()
    return words
  }

  /// True for the scripts written without spaces between words whose text is indexed in
  /// bigrams: Han ideographs (with the iteration mark 々), Hiragana and Katakana (with the
  /// prolonged sound mark and the half-width forms).
  static func isCJK(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x3005, 0x3040...0x30FF, 0x31F0...0x31FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF,
      0xFF66...0xFF9F, 0x20000...0x3FFFF:
      true
    default: false
    }
  }

  /// True when `text` is ASCII alone, eight bytes at a time (most text is: it is left as it is).
  private static func isASCII(_ text: String) -> Bool {
    let contiguous = text.utf8.withContiguousStorageIfAvailable { bytes in
      let raw = UnsafeRawBufferPointer(bytes)
      var high: UInt64 = 0
      var offset = 0
      while offset + 8 <= raw.count {
        high |= raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        offset += 8
      }
      while offset < raw.count {
        high |= UInt64(raw[offset])
        offset += 1
      }
      return high & 0x8080_8080_8080_8080 == 0
    }
    return contiguous ?? text.utf8.allSatisfy { $0 < 0x80 }
  }

  /// The letters whose accents are folded: Latin and Greek (the letters FTS5's
  /// `remove_diacritics` and PostgreSQL's `unaccent` fold between them), and Cyrillic ё, which
  /// `unaccent` folds to е. Other marks carry meaning (Cyrillic й is not и, Japanese が is not
  /// か) and are left alone, as both engines leave them.
  private static let accentedRanges: [ClosedRange<UInt32>] = [
    0xC0...0x24F, 0x370...0x3FF, 0x401...0x401, 0x451...0x451, 0x1E00...0x1FFF,
  ]

  /// The folded bytes of every scalar of `accentedRanges`, in their order, made once: the
  /// decomposition is a string of its own per scalar, too slow to make per letter of a text.
  private static let accentedFolds: [[UInt8]] = accentedRanges.flatMap { range in
    range.map { value -> [UInt8] in
      guard let scalar = Unicode.Scalar(value) else { return [] }
      var folded: [UInt8] = []
      for part in String(scalar)._nfd where part.properties.generalCategory != .nonspacingMark {
        appendLowercased(part, to: &folded)
      }
      return folded
    }
  }

  /// Where `value` is in `accentedFolds`, when it is in `accentedRanges`.
  private static func accentedIndex(_ value: UInt32) -> Int? {
    var start = 0
    for range in accentedRanges {
      if range.contains(value) { return start + Int(value - range.lowerBound) }
      start += range.count
    }
    return nil
  }

  /// Appends `scalar` folded: without its accents where it is in `accentedRanges`,
  /// lowercased; a combining accent on its own (text in decomposed form) is dropped.
  private static func appendFolded(_ scalar: Unicode.Scalar, to output: inout [UInt8]) {
    if (0x300...0x36F).contains(scalar.value) { return }
    guard let index = accentedIndex(scalar.value) else { return appendLowercased(scalar, to: &output) }
    output += accentedFolds[index]
  }

  /// Appends `scalar` lowercased; final sigma becomes σ, as case folding makes it, so that
  /// `ΟΔΟΣ` and `οδος` are one word.
  private static func appendLowercased(_ scalar: Unicode.Scalar, to output: inout [UInt8]) {
    if scalar.value == 0x3C2 { return append("σ", to: &output) }
    guard scalar.properties.changesWhenLowercased else { return append(scalar, to: &output) }
    for part in scalar.properties.lowercaseMapping.unicodeScalars { append(part, to: &output) }
  }

  @inline(__always)
  private static func append(_ scalar: Unicode.Scalar, to output: inout [UInt8]) {
    UTF8.encode(scalar) { output.append($0) }
  }
}
