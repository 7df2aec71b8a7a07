import ShelfCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Glob patterns that keep files and folders out of a scan: `--exclude` options and the lines of
/// `.shelfignore` files.
///
/// A pattern without a slash matches a name at any depth (`*.tmp`, `node_modules`); one with a
/// slash matches the path relative to the folder that holds the rule (`Library/Caches`, `/tmp`).
/// A trailing slash limits a pattern to folders. `#` starts a comment line.
public struct ExcludeRules: Sendable {
  struct Rule: Sendable {
    var pattern: [UInt8]
    var anchored: Bool
    var directoriesOnly: Bool
    /// The relative path of the folder whose `.shelfignore` holds the rule (empty for options).
    var base: [UInt8]
    /// Where the walk starts, relative to the folder the rule was written for (a root's
    /// patterns applied to a scan of one of its sub-folders); empty when they are the same.
    var walkStart: [UInt8] = []
  }

  var rules: [Rule] = []

  /// Rules from `--exclude` options.
  public init(patterns: [String] = []) {
    for pattern in patterns { add(Array(pattern.utf8), base: []) }
  }

  /// A root's patterns for a walk that starts at `walkStart` (relative to the root): path
  /// patterns still match paths relative to the root.
  init(patterns: [String], walkStart: [UInt8]) {
    self.init(patterns: patterns)
    for index in rules.indices { rules[index].walkStart = walkStart }
  }

  /// Patterns as a root stores them: one per line (a pattern holds no line break).
  static func storedText(_ patterns: [String]) -> String { patterns.joined(separator: "\n") }

  /// The patterns of a root's stored text (none when NULL).
  static func storedPatterns(_ text: String?) -> [String] {
    guard let text, !text.isEmpty else { return [] }
    return text.split(separator: "\n").map(String.init)
  }

  /// True when there are no rules.
  public var isEmpty: Bool { rules.isEmpty }

  /// Adds the lines of a `.shelfignore` file found in the folder at `base` (relative path).
  mutating func addIgnoreFile(_ contents: [UInt8], base: [UInt8]) {
    for line in contents.split(separator: UInt8(ascii: "\n")) {
      var text = Array(line)
      while let last = text.last, last == UInt8(ascii: "\r") || last == UInt8(ascii: " ") {
        text.removeLast()
      }
      if text.isEmpty || text.first == UInt8(ascii: "#") { continue }
      add(text, base: base)
    }
  }

  private mutating func add(_ raw: [UInt8], base: [UInt8]) {
    var pattern = raw
    var directoriesOnly = false
    if pattern.count > 1 && pattern.last == UInt8(ascii: "/") {
      directoriesOnly = true
      pattern.removeLast()
    }
    var anchored = pattern.contains(UInt8(ascii: "/"))
    if pattern.first == UInt8(ascii: "/") {
      pattern.removeFirst()
      anchored = true
    }
    if pattern.starts(with: Array("**/".utf8)) {
      pattern.removeFirst(3)
      anchored = pattern.contains(UInt8(ascii: "/"))
    }
    guard !pattern.isEmpty else { return }
    rules.append(Rule(pattern: pattern, anchored: anchored, directoriesOnly: directoriesOnly, base: base))
  }

  /// True when the entry at `relative` (path from the root, no leading slash) with last
  /// component `name` is excluded.
  public func excludes(relative: [UInt8], name: [UInt8], isDirectory: Bool) -> Bool {
    for rule in rules {
      if rule.directoriesOnly && !isDirectory { continue }
      if rule.anchored {
        var subject =
          rule.walkStart.isEmpty ? relative[...] : (rule.walkStart + [UInt8(ascii: "/")] + relative)[...]
        if !rule.base.isEmpty {
          guard relative.starts(with: rule.base + [UInt8(ascii: "/")]) else { continue }
          subject = relative[(rule.base.count + 1)...]
        }
        if Self.matches(rule.pattern, Array(subject), flags: FNM_PATHNAME | FNM_PERIOD) { return true }
      } else {
        if !rule.base.isEmpty && !relative.starts(with: rule.base + [UInt8(ascii: "/")]) { continue }
        if Self.matches(rule.pattern, name, flags: 0) { return true }
      }
    }
    return false
  }

  static func matches(_ pattern: [UInt8], _ subject: [UInt8], flags: Int32) -> Bool {
    let p = pattern.map { CChar(bitPattern: $0) } + [0]
    let s = subject.map { CChar(bitPattern: $0) } + [0]
    return fnmatch(p, s, flags) == 0
  }
}
