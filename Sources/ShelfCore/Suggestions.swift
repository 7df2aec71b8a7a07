/// "Did you mean" suggestions by edit distance, shared by the command line (commands, options,
/// option values) and the query language (field names), so that a typo is judged the same way
/// everywhere.
public enum Suggestions {
  /// The candidate closest to `word`, when it is close enough to be a likely typo, or the one
  /// candidate that `word` abbreviates (starts it, or spells it with letters left out, as
  /// `docs` does `documents`); nil otherwise.
  public static func closest(to word: String, among candidates: [String]) -> String? {
    let scored = candidates.map { ($0, distance(word, $0)) }
    guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
    // Short words tolerate one edit, longer ones up to three: beyond that a "suggestion" is noise.
    let limit = max(1, min(3, word.count / 3 + 1))
    if best.1 <= limit { return best.0 }
    guard word.count >= 2 else { return nil }
    let prefixed = candidates.filter { $0.hasPrefix(word) }
    if prefixed.count == 1 { return prefixed[0] }
    let abbreviated = candidates.filter { $0.first == word.first && abbreviates(word, $0) }
    return abbreviated.count == 1 ? abbreviated[0] : nil
  }

  /// True when the characters of `word` appear in `candidate` in order.
  static func abbreviates(_ word: String, _ candidate: String) -> Bool {
    var rest = Substring(candidate)
    for character in word {
      guard let found = rest.firstIndex(of: character) else { return false }
      rest = rest[rest.index(after: found)...]
    }
    return true
  }

  /// Damerau–Levenshtein (optimal string alignment) distance: a swapped pair of neighbouring
  /// characters, the commonest typo, counts as one edit.
  public static func distance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var matrix = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { matrix[i][0] = i }
    for j in 0...b.count { matrix[0][j] = j }
    for i in 1...a.count {
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        matrix[i][j] = min(matrix[i - 1][j] + 1, matrix[i][j - 1] + 1, matrix[i - 1][j - 1] + cost)
        if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
          matrix[i][j] = min(matrix[i][j], matrix[i - 2][j - 2] + 1)
        }
      }
    }
    return matrix[a.count][b.count]
  }
}
