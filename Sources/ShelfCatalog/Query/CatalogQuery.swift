import ShelfCore

/// A query that could not be understood: the term and what is wrong with it.
public struct QueryError: ShelfError, Equatable {
  public var message: String
  public var failure: FailureKind { .usage }
  public var description: String { message }
}

/// A catalogue query parsed from the words of `shelf ls QUERY…`.
///
/// Syntax: `field:value` (a whole name for fields such as `kind` and `ext`, a shell glob for
/// `name`, `path` and `root`, contained text for tags), `field:=value` (exact), `field>v`,
/// `>=`, `<`, `<=`, ranges `field:a..b` (either end open), negation `-term`, OR with `,`
/// (`kind:image,audio` or `kind:image,ext:wav`), and bare words searched in names, paths,
/// tags and text. Values that are names compare whole because `ext:png` must never reach a
/// `.libpng16` file that a pipeline would then rewrite.
public struct CatalogQuery: Sendable, Equatable {
  /// Terms that must all hold; each is an OR group, possibly negated.
  public var groups: [Group]

  /// One AND-ed element: alternatives OR-ed together, the whole possibly negated.
  public struct Group: Sendable, Equatable {
    public var negated: Bool
    public var alternatives: [Term]
  }

  /// One condition.
  public enum Term: Sendable, Equatable {
    case field(name: String, op: Operator, value: String)
    case words(String)
  }

  /// A comparison.
  public enum Operator: String, Sendable, Equatable {
    case contains = ":"
    case exact = ":="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case notEqual = "!="
  }

  /// True when a term names the root (`root:`), whose path only the `roots` table holds.
  var namesRoots: Bool {
    groups.contains { group in
      group.alternatives.contains {
        if case .field(let name, _, _) = $0 { return name == "root" }
        return false
      }
    }
  }

  /// The query matching everything.
  public static let all = CatalogQuery(groups: [])

  /// A query made of already parsed groups.
  public init(groups: [Group]) { self.groups = groups }

  /// Parses the words of a query (each command-line argument one or more terms).
  public init(arguments: [String], now: Double? = nil) throws {
    self.now = now
    groups = []
    for argument in arguments {
      for token in Self.tokens(argument) {
        groups.append(try Self.parseGroup(token))
      }
    }
    // Check every term now, so that errors surface before any output.
    _ = try sql()
  }

  /// The reference time for relative dates (seconds since the epoch); the clock when nil.
  var now: Double?

  public static func == (lhs: CatalogQuery, rhs: CatalogQuery) -> Bool { lhs.groups == rhs.groups }

  // MARK: Parsing

  /// Splits an argument into terms: a `field…` argument is one term (the shell already grouped
  /// it); other arguments split at spaces outside double quotes.
  static func tokens(_ argument: String) -> [String] {
    let trimmed = argument.trimmingWhitespace()
    if trimmed.isEmpty { return [] }
    if fieldPrefix(trimmed) != nil { return [trimmed] }
    var tokens: [String] = []
    var current = ""
    var quoted = false
    for character in trimmed {
      if character == "\"" {
        quoted.toggle()
        current.append(character)
      } else if character == " " && !quoted {
        if !current.isEmpty { tokens.append(current) }
        current = ""
      } else {
        current.append(character)
      }
    }
    if !current.isEmpty { tokens.append(current) }
    return tokens
  }

  /// True when `term` (after an optional `-`) starts with a known field and its operator
  /// (`root:/x`, `-kind:image`, `size>1M`): a query term by its form, whatever follows.
  public static func namesField(_ term: String) -> Bool {
    guard let (name, _, _) = fieldPrefix(term) else { return false }
    return fields[name] != nil
  }

  /// If `text` (after an optional `-`) starts with `name` + operator, returns them and the rest.
  static func fieldPrefix(_ text: String) -> (name: String, op: Operator, rest: String)? {
    var body = Substring(text)
    if body.hasPrefix("-") { body = body.dropFirst() }
    var name = body.prefix { $0.isASCII && ($0.isLetter || $0 == "_") }
    guard !name.isEmpty else { return nil }
    // A field whose name has a hyphen (`copy-in`) is one only when it is a known field, so
    // that a hyphenated word stays a word.
    let hyphenated = body.prefix { $0.isASCII && ($0.isLetter || $0 == "_" || $0 == "-") }
    if hyphenated.count > name.count, fields[hyphenated.lowercased()] != nil { name = hyphenated }
    let after = body.dropFirst(name.count)
    for op in [Operator.exact, .greaterOrEqual, .lessOrEqual, .notEqual, .contains, .greater, .less] {
      if after.hasPrefix(op.rawValue) {
        return (name.lowercased(), op, String(after.dropFirst(op.rawValue.count)))
      }
    }
    if after.hasPrefix("=") { return (name.lowercased(), .exact, String(after.dropFirst())) }
    return nil
  }

  static func parseGroup(_ token: String) throws -> Group {
    var text = Substring(token)
    var negated = false
    if text.hasPrefix("-") && text.count > 1 {
      negated = true
      text = text.dropFirst()
    }
    guard let (name, op, rest) = fieldPrefix(String(text)) else {
      // `,kind:image` is a field term after an empty alternative, not words to search for.
      let afterCommas = text.drop { $0 == "," }
      if afterCommas.count < text.count, namesField(String(afterCommas)) {
        throw emptyAlternative(in: token, position: .first)
      }
      return Group(negated: negated, alternatives: [.words(unquote(String(text)))])
    }
    try checkField(name)
    var alternatives: [Term] = []
    var currentName = name
    var currentOp = op
    var first = true
    let pieces = rest.split(separator: ",", omittingEmptySubsequences: false)
    for (index, piece) in pieces.enumerated() {
      let pieceText = String(piece)
      // One value alone may be empty (`artist:`, "has one"); beside a comma an empty value is
      // a slip that would match what has any value (`kind:image,`), so it is refused.
      if pieces.count > 1, pieceText.trimmingWhitespace().isEmpty {
        throw emptyAlternative(
          in: token, position: index == 0 ? .first : index == pieces.count - 1 ? .last : .between)
      }
      if !first, let (nextName, nextOp, nextRest) = fieldPrefix(pieceText), fields[nextName] != nil {
        currentName = nextName
        currentOp = nextOp
        alternatives.append(.field(name: currentName, op: currentOp, value: unquote(nextRest)))
      } else {
        alternatives.append(.field(name: currentName, op: currentOp, value: unquote(pieceText)))
      }
      first = false
    }
    for case .field(let name, let op, let value) in alternatives {
      try checkValue(value, of: name, op: op)
    }
    return Group(negated: negated, alternatives: alternatives)
  }

  /// Where an empty alternative lies in its term, for the message.
  enum EmptyAlternativePosition { case first, between, last }

  /// The usage error for an empty alternative, saying where it is.
  static func emptyAlternative(in term: String, position: EmptyAlternativePosition) -> QueryError {
    let place =
      switch position {
      case .first: "before its first ','"
      case .between: "between two commas"
      case .last: "after its last ','"
      }
    return QueryError(message: "query term '\(term)' has an empty alternative \(place)")
  }

  static func unquote(_ text: String) -> String {
    if text.count >= 2 && text.hasPrefix("\"") && text.hasSuffix("\"") {
      return String(text.dropFirst().dropLast())
    }
    return text
  }

  static func checkField(_ name: String) throws {
    guard fields[name] == nil else { return }
    var message = "unknown query field '\(name)'"
    if let suggestion = Suggestions.closest(to: name, among: fields.keys.sorted()) {
      message += " (did you mean '\(suggestion)'?)"
    }
    throw QueryError(message: message)
  }
}
