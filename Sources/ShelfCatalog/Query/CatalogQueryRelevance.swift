import ShelfCore
import ShelfDatabase

/// Bare words: the tokens they are searched by, and the order that lists the best matches first.
extension CatalogQuery {
  /// The letters-and-digits runs of a bare word, as the full-text indexes cut text; a word
  /// of punctuation alone is refused, since it would match every entry (and with `--in-place`
  /// downstream that is dangerous).
  static func wordTokens(_ words: String) throws -> [String] {
    let tokens = words.unicodeScalars.split {
      !($0.properties.isAlphabetic || $0.properties.numericType != nil)
    }
    .map { String(String.UnicodeScalarView($0)) }
    guard !tokens.isEmpty else {
      throw QueryError(message: "query term '\(words)' has no letters or digits to search for")
    }
    return tokens
  }

  /// A full-text query for every token, each a prefix, ANDed: FTS5's syntax or `to_tsquery`'s.
  /// Tokens are folded as the index is (`SearchTextFolding.queryWords`: a CJK word becomes its
  /// bigrams, ANDed, since the index keeps no positions for phrases); a token that folding
  /// empties (a lone combining mark) is searched as it is.
  static func textSearchQuery(_ words: [String], _ dialect: SQLDialect) -> DatabaseValue {
    let tokens = words.flatMap { word -> [String] in
      let folded = SearchTextFolding.queryWords(word)
      return folded.isEmpty ? [word] : folded
    }
    return .text(dialect.fullTextQuery(tokens))
  }

  /// How to list the best matches of the query's words first, when no sort is asked for: the
  /// ORDER BY keys and their parameters; nil when the query has no words to rank by.
  ///
  /// The score is shelf's own, computed alike by both engines, so that a catalogue in SQLite
  /// and one in PostgreSQL list the same entries in the same order (their own relevance
  /// functions, `bm25` and `ts_rank`, weigh words differently): first the entries whose name
  /// or tags hold every word, then those whose indexed text holds them, then those found in
  /// their paths alone; within each, the shorter text first (a text file's characters; 0 for
  /// other files); the path breaks ties (`CatalogSort.orderBy`).
  func relevanceOrder(_ dialect: SQLDialect) -> (keys: String, parameters: [DatabaseValue])? {
    var tokens: [String] = []
    for group in groups where !group.negated && group.alternatives.count == 1 {
      if case .words(let words) = group.alternatives[0], let found = try? Self.wordTokens(words) {
        tokens += found
      }
    }
    guard !tokens.isEmpty else { return nil }
    // Name and tags in one text, case folded for ASCII letters only on both engines (SQLite's
    // LIKE folds no others; PostgreSQL's own folding follows the database's locale).
    let tagColumns = (["f.name"] + FactField.searchedColumns).map { "coalesce(\($0), '')" }
    let named = dialect.foldingASCIICase(
      "(" + tagColumns.joined(separator: " || \(dialect.newline) || ") + ")")
    let holdsEveryWord = tokens.map { _ in "\(named) LIKE ? ESCAPE '\\'" }.joined(separator: " AND ")
    let patterns = tokens.map {
      DatabaseValue.text("%" + Self.escapeLike(PostgresEngine.lowercasedASCII($0)) + "%")
    }
    return (
      "CASE WHEN \(holdsEveryWord) THEN 0 WHEN \(dialect.fullTextMatchOrFalse) THEN 1 ELSE 2 END, coalesce(f.chars, 0)",
      patterns + [Self.textSearchQuery(tokens, dialect)]
    )
  }
}
