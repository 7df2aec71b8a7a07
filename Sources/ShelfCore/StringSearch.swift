/// Substring search and replacement without Foundation (which shelf's libraries do not link).
extension String {
  /// Replaces every occurrence of `target` (non-empty) with `replacement`.
  package func replacingAll(_ target: String, with replacement: String) -> String {
    components(separatedByString: target).joined(separator: replacement)
  }

  /// The parts between the occurrences of `separator`, empty ones included.
  package func components(separatedByString separator: String) -> [String] {
    var parts: [String] = []
    var rest = Substring(self)
    while let range = rest.range(of: separator) {
      parts.append(String(rest[..<range.lowerBound]))
      rest = rest[range.upperBound...]
    }
    parts.append(String(rest))
    return parts
  }
}

extension Substring {
  /// The first occurrence of `needle` (non-empty), compared by characters.
  package func range(of needle: String) -> Range<Substring.Index>? {
    guard !needle.isEmpty else { return nil }
    var index = startIndex
    while index < endIndex {
      if self[index...].hasPrefix(needle) {
        return index..<self.index(index, offsetBy: needle.count)
      }
      index = self.index(after: index)
    }
    return nil
  }
}
