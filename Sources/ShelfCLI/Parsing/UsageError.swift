/// A mistake in how a command was invoked; printed as `error: …`, the usage line and a hint,
/// with exit status 64.
public struct UsageError: Error, Equatable, CustomStringConvertible {
  public let message: String
  /// The command whose usage to print, or nil for the top level.
  public var commandName: String?

  public init(_ message: String, command: String? = nil) {
    self.message = message
    self.commandName = command
  }

  public var description: String { message }
}

/// "Did you mean" suggestions by edit distance.
enum Suggestions {
  /// The candidate closest to `word`, when it is close enough to be a likely typo.
  static func closest(to word: String, among candidates: [String]) -> String? {
    let scored = candidates.map { ($0, distance(word, $0)) }
    guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
    let limit = max(1, min(3, word.count / 3 + 1))
    if best.1 <= limit { return best.0 }
    // A prefix of a single candidate is a likely abbreviation.
    let prefixed = candidates.filter { $0.hasPrefix(word) && word.count >= 2 }
    return prefixed.count == 1 ? prefixed[0] : nil
  }

  /// Damerau–Levenshtein (optimal string alignment) distance.
  static func distance(_ a: String, _ b: String) -> Int {
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
