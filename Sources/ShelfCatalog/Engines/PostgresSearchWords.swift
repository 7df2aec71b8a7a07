import ShelfDatabase

/// The full text of a PostgreSQL catalogue's rows: cut into words here, as SQLite's tokenizer
/// cuts them, so that both engines find the same words.
extension PostgresEngine {
  /// What a row's full text is stored as: `text` (the `search_text` column, kept so that a copy
  /// can carry it) and the two halves of its `search` vector.
  struct SearchWords: Equatable {
    /// The tags and body cut into the runs of letters and digits the query language searches
    /// for (as SQLite's tokenizer cuts them), so that PostgreSQL finds the same words rather
    /// than URLs, paths or e-mail addresses; NULL when there are none.
    var text: DatabaseValue
    /// A `tsvector` literal of the plain ASCII words, lowercased, each at its place among all
    /// the words: what `to_tsvector('simple', unaccent(…))` makes of them, built here so that
    /// the server does not parse them (`unaccent` leaves ASCII alone, and `simple` only
    /// lowercases). Positions are kept: `ts_rank` counts them, and a query word the parser
    /// cuts in two (`1e4f`) is a phrase, which never matches lexemes without them.
    var lexemes: DatabaseValue
    /// The other words, for the server's `to_tsvector('simple', unaccent(…))`: those with
    /// other letters (folded by `unaccent`), digits followed by an `e` (which its parser reads
    /// as scientific notation: `1e4f` gives `1e4` and `f`), and words too long for a lexeme
    /// (which it drops). NULL when there are none.
    var serverWords: DatabaseValue
  }

  /// The last position a `tsvector` records (`to_tsvector` gives later words this one).
  private static let lastPosition = 16383

  /// The longest lexeme a `tsvector` holds, in bytes; `to_tsvector` drops longer words.
  private static let longestLexeme = 2047

  /// Splits `tags` and `body` into the `SearchWords` of a row, in one pass over their scalars
  /// (an indexing run makes millions of words: no string or array per word).
  static func searchWords(tags: String, body: String) -> SearchWords {
    var text: [UInt8] = []
    var lexemes: [UInt8] = []
    var serverWords: [UInt8] = []
    var word: [UInt8] = []
    var plainASCII = true
    var position = 1
    func endWord() {
      guard !word.isEmpty else { return }
      if !text.isEmpty { text.append(0x20) }
      text += word
      if plainASCII && word.count <= longestLexeme && !readAsScientificNotation(word) {
        if !lexemes.isEmpty { lexemes.append(0x20) }
        for byte in word {
          lexemes.append(Self.lowercasedASCII(byte))
        }
        lexemes.append(UInt8(ascii: ":"))
        lexemes += Array(String(min(position, Self.lastPosition)).utf8)
      } else {
        if !serverWords.isEmpty { serverWords.append(0x20) }
        serverWords += word
      }
      word.removeAll(keepingCapacity: true)
      plainASCII = true
      position += 1
    }
    for part in [tags, body] {
      for scalar in part.unicodeScalars {
        if scalar.isASCII {
          let byte = UInt8(scalar.value)
          guard
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
              || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
          else {
            endWord()
            continue
          }
          word.append(byte)
        } else if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
          plainASCII = false
          UTF8.encode(scalar) { word.append($0) }
        } else {
          endWord()
        }
      }
      endWord()
    }
    guard !text.isEmpty else { return SearchWords(text: .null, lexemes: .null, serverWords: .null) }
    return SearchWords(
      text: .text(String(decoding: text, as: UTF8.self)),
      lexemes: .text(String(decoding: lexemes, as: UTF8.self)),
      serverWords: serverWords.isEmpty ? .null : .text(String(decoding: serverWords, as: UTF8.self)))
  }

  /// `byte` with an ASCII capital lowercased: how the stored lexemes and the query words are
  /// folded, here rather than by the server, whose lowercasing follows the database's locale
  /// (in a Turkish one `I` becomes a dotless `ı`, which no lexeme built here holds).
  @inline(__always)
  static func lowercasedASCII(_ byte: UInt8) -> UInt8 {
    (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
  }

  /// `word` with its ASCII capitals lowercased (`lowercasedASCII`); other letters are left
  /// to the server, which folds them alike in the stored vectors and in queries.
  static func lowercasedASCII(_ word: String) -> String {
    String(decoding: word.utf8.map { lowercasedASCII($0) }, as: UTF8.self)
  }

  /// True when PostgreSQL's parser reads `word` (ASCII letters and digits) as more than a
  /// word: digits then an `e` start a number in scientific notation (`1e4f` is `1e4` and `f`).
  private static func readAsScientificNotation(_ word: [UInt8]) -> Bool {
    let digits = word.prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }.count
    return digits > 0 && digits < word.count && word[digits] | 0x20 == UInt8(ascii: "e")
  }
}
