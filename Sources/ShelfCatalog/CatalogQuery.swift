import ShelfCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

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
    let name = body.prefix { $0.isASCII && ($0.isLetter || $0 == "_") }
    guard !name.isEmpty else { return nil }
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
      return Group(negated: negated, alternatives: [.words(unquote(String(text)))])
    }
    try checkField(name)
    var alternatives: [Term] = []
    var currentName = name
    var currentOp = op
    var first = true
    for piece in rest.split(separator: ",", omittingEmptySubsequences: false) {
      let pieceText = String(piece)
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

  // MARK: SQL

  /// The WHERE clause and its parameters, for SQLite.
  public func sql() throws -> (String, [DatabaseValue]) { try sql(.sqlite) }

  /// The WHERE clause and its parameters (`?`) in `dialect`: the same query compiled for each
  /// database, through its own full-text index and pattern matching.
  func sql(_ dialect: SQLDialect) throws -> (String, [DatabaseValue]) {
    var clauses: [String] = []
    var parameters: [DatabaseValue] = []
    for group in groups {
      var alternatives: [String] = []
      for term in group.alternatives {
        alternatives.append(try sql(for: term, dialect, parameters: &parameters))
      }
      let joined =
        alternatives.count == 1 ? alternatives[0] : "(" + alternatives.joined(separator: " OR ") + ")"
      clauses.append(group.negated ? "NOT coalesce(\(joined), \(dialect.falseValue))" : joined)
    }
    return (clauses.isEmpty ? dialect.trueValue : clauses.joined(separator: " AND "), parameters)
  }

  private func sql(for term: Term, _ dialect: SQLDialect, parameters: inout [DatabaseValue]) throws -> String
  {
    switch term {
    case .words(let words):
      let tokens = try Self.wordTokens(words)
      // A name is the end of its path, and decodes as that end does: the path alone is
      // searched for the word as a substring.
      let like = DatabaseValue.text("%" + Self.escapeLike(words) + "%")
      if dialect == .postgres {
        // The `search` column holds the same letters-and-digits tokens (see
        // `PostgresCatalogStore.searchWords`); each query token is a prefix, ANDed.
        parameters += [Self.textSearchQuery(tokens, .postgres), like]
        return "(f.search @@ to_tsquery('simple', unaccent(?)) OR f.path_text ILIKE ? ESCAPE '\\')"
      }
      parameters.append(Self.textSearchQuery(tokens, .sqlite))
      let fullText = "f.id IN (SELECT rowid FROM files_fts WHERE files_fts MATCH ?)"
      guard let trigrams = Self.trigramQuery(words.unicodeScalars.map(\.value)) else {
        parameters.append(like)
        return "(\(fullText) OR f.path_text LIKE ? ESCAPE '\\')"
      }
      parameters += [.text(trigrams), like]
      return "(\(fullText) OR (\(Self.pathTrigramsSQL) AND f.path_text LIKE ? ESCAPE '\\'))"
    case .field(let name, let op, let value):
      try Self.checkField(name)
      let field = Self.fields[name]!
      let column = field.column
      switch field.type {
      case .text:
        return try textSQL(column, dialect, op: op, value: value, fieldName: name, parameters: &parameters)
      case .name:
        let whole = name == "ext" && value.hasPrefix(".") ? String(value.dropFirst()) : value
        return try textSQL(
          column, dialect, op: op == .contains && !whole.isEmpty ? .exact : op, value: whole, fieldName: name,
          parameters: &parameters)
      case .linkedPath:
        if value.isEmpty && op == .contains { return "\(column) IS NOT NULL" }
        if let flag = Self.parseBoolean(value), op == .contains || op == .exact {
          return flag ? "\(column) IS NOT NULL" : "\(column) IS NULL"
        }
        guard let bytes = field.bytes, op == .contains || op == .exact || op == .notEqual else {
          throw QueryError(message: "field '\(name)' takes yes, no or a glob, not '\(op.rawValue)'")
        }
        if dialect == .postgres {
          return Self.regularExpressionSQL(field, op: op, value: value, parameters: &parameters)
        }
        var mode: PathGlobMode = []
        if !PathGlob.hasCapitals(value) { mode.insert(.foldCase) }
        if op != .contains { mode.insert(.literal) }
        parameters.append(.text(value))
        let match = "shelf_glob(?, \(bytes.column), \(mode.rawValue))"
        return op == .notEqual ? "NOT coalesce(\(match), 0)" : match
      case .localTime where value.isEmpty && op == .contains:
        return "\(column) IS NOT NULL"
      case .glob:
        guard let bytes = field.bytes, op == .contains || op == .exact || op == .notEqual else {
          return try textSQL(column, dialect, op: op, value: value, fieldName: name, parameters: &parameters)
        }
        if dialect == .postgres {
          return Self.regularExpressionSQL(field, op: op, value: value, parameters: &parameters)
        }
        var mode: PathGlobMode = bytes.lastComponent ? [.lastComponent] : []
        if !PathGlob.hasCapitals(value) { mode.insert(.foldCase) }
        if op != .contains { mode.insert(.literal) }
        var match = "shelf_glob(?, \(bytes.column), \(mode.rawValue))"
        // The literal runs of the pattern, looked up in the path trigrams first, narrow the
        // rows the glob is tried on; the glob alone decides.
        let glob = PathGlob(
          pattern: Array(value.utf8), foldCase: mode.contains(.foldCase), literal: mode.contains(.literal))
        if bytes.column == "f.path", let trigrams = Self.trigramQuery(glob.elements) {
          parameters.append(.text(trigrams))
          match = "(\(Self.pathTrigramsSQL) AND \(match))"
        }
        parameters.append(.text(value))
        return op == .notEqual ? "NOT coalesce(\(match), 0)" : match
      case .keys:
        switch op {
        case .contains:
          parameters.append(.text("%" + Self.escapeLike(value) + "%"))
          return "\(column) \(dialect.like) ? ESCAPE '\\'"
        case .exact:
          parameters.append(.text("%\n" + Self.escapeLike(value) + "\n%"))
          let newline = dialect == .sqlite ? "char(10)" : "chr(10)"
          return "(\(newline) || \(column) || \(newline)) \(dialect.like) ? ESCAPE '\\'"
        default: throw QueryError(message: "field 'key' takes ':' or ':=', not '\(op.rawValue)'")
        }
      case .boolean:
        guard let flag = Self.parseBoolean(value) else {
          throw QueryError(message: "field '\(name)' takes yes or no, not '\(value)'")
        }
        guard op == .contains || op == .exact || op == .notEqual else {
          throw QueryError(message: "field '\(name)' takes ':' (yes or no), not '\(op.rawValue)'")
        }
        // PostgreSQL will not coalesce a condition (`x IS NOT NULL`) with a number.
        let value = dialect == .sqlite ? column : "(\(column))::int"
        return op == .notEqual
          ? "coalesce(\(value), 0) != \(flag ? 1 : 0)" : "coalesce(\(value), 0) = \(flag ? 1 : 0)"
      case .number, .size, .duration, .time, .bitrate, .localTime:
        return try orderedSQL(
          column, dialect, type: field.type, op: op, value: value, fieldName: name, parameters: &parameters)
      }
    }
  }

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
  static func textSearchQuery(_ tokens: [String], _ dialect: SQLDialect) -> DatabaseValue {
    switch dialect {
    case .sqlite:
      .text(tokens.map { "\"" + $0.replacingAll("\"", with: "\"\"") + "\"*" }.joined(separator: " "))
    case .postgres:
      .text(tokens.map { PostgresCatalogStore.lowercasedASCII($0) + ":*" }.joined(separator: " & "))
    }
  }

  /// The rows whose path holds some trigrams, read from SQLite's path trigram table
  /// (`files_paths`) alone: a superset, always ANDed with the exact condition.
  static let pathTrigramsSQL = "f.id IN (SELECT rowid FROM files_paths WHERE files_paths MATCH ?)"

  /// The most trigrams a lookup names: each is a list of rows to intersect, and a few spread
  /// over the runs narrow the rows about as well as all of them.
  static let trigramLimit = 8

  /// An FTS5 query (`"lig" "hth" "use"`, ANDed) for trigrams that every path matching the
  /// literal runs of `units` holds, for `pathTrigramsSQL`; nil when no run of ASCII is three
  /// characters long. Only ASCII goes in: SQLite's trigram table folds case as the glob does
  /// there (KELVIN SIGN included), while its folding of other letters may differ.
  static func trigramQuery(_ units: [UInt32]) -> String? {
    trigramQuery(units.map { PathGlob.Element.unit($0) })
  }

  static func trigramQuery(_ elements: [PathGlob.Element]) -> String? {
    var runs: [[Unicode.Scalar]] = [[]]
    for element in elements {
      if case .unit(let unit) = element, unit < 0x80, let scalar = Unicode.Scalar(unit) {
        runs[runs.count - 1].append(scalar)
      } else if !runs[runs.count - 1].isEmpty {
        runs.append([])
      }
    }
    var trigrams: [String] = []
    for run in runs where run.count >= 3 {
      // Trigrams that do not overlap, and the run's last one.
      var starts = Array(stride(from: 0, through: run.count - 3, by: 3))
      if starts.last != run.count - 3 { starts.append(run.count - 3) }
      for start in starts {
        var trigram = String.UnicodeScalarView()
        trigram.append(contentsOf: run[start..<start + 3])
        trigrams.append("\"" + String(trigram).replacingAll("\"", with: "\"\"") + "\"")
      }
    }
    guard !trigrams.isEmpty else { return nil }
    // Spread over the whole pattern when there are more than the limit.
    let step = max(1, (trigrams.count + trigramLimit - 1) / trigramLimit)
    return stride(from: 0, to: trigrams.count, by: step).map { trigrams[$0] }.joined(separator: " ")
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
    let tagColumns =
      ["f.name", "f.title", "f.artist", "f.album", "f.album_artist", "f.genre", "f.comment"]
      .map { "coalesce(\($0), '')" } + ["coalesce(f.plist_keys, '')"]
    let newline = dialect == .sqlite ? "char(10)" : "chr(10)"
    var named = "(" + tagColumns.joined(separator: " || \(newline) || ") + ")"
    if dialect == .postgres {
      named = "translate(\(named), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')"
    }
    let holdsEveryWord = tokens.map { _ in "\(named) LIKE ? ESCAPE '\\'" }.joined(separator: " AND ")
    let patterns = tokens.map {
      DatabaseValue.text("%" + Self.escapeLike(PostgresCatalogStore.lowercasedASCII($0)) + "%")
    }
    let fullText =
      dialect == .sqlite
      ? "f.id IN (SELECT rowid FROM files_fts WHERE files_fts MATCH ?)"
      : "coalesce(f.search @@ to_tsquery('simple', unaccent(?)), false)"
    return (
      "CASE WHEN \(holdsEveryWord) THEN 0 WHEN \(fullText) THEN 1 ELSE 2 END, coalesce(f.chars, 0)",
      patterns + [Self.textSearchQuery(tokens, dialect)]
    )
  }

  /// A glob (`:`, or a literal path with `:=` and `!=`) in PostgreSQL: a regular expression
  /// over the path's bytes (`PathGlob.byteExpression`), exact as SQLite's `shelf_glob` is,
  /// tried on the rows whose text form matches a looser one (`PathGlob.textExpression`, which
  /// the trigram indexes answer) or is not UTF-8 (a U+FFFD, which the text form cannot tell
  /// from other bytes; `files_undecodable` lists them); smart case as for SQLite.
  private static func regularExpressionSQL(
    _ field: Field, op: Operator, value: String, parameters: inout [DatabaseValue]
  ) -> String {
    let foldCase = !PathGlob.hasCapitals(value)
    let glob = PathGlob(pattern: Array(value.utf8), foldCase: foldCase, literal: op != .contains)
    guard let bytes = field.bytes else { preconditionFailure("a glob field names its bytes") }
    var match = "convert_from(\(bytes.column), 'LATIN1') ~ ?"
    if bytes.column == "f.path" {
      parameters.append(.text(glob.textExpression))
      // Where the text form decides alone, the bytes are looked at only for paths that are
      // not UTF-8.
      let exact = glob.textExpressionIsExact ? "strpos(f.path_text, chr(65533)) = 0 OR " : ""
      match =
        "(\(field.column) \(foldCase ? "~*" : "~") ? OR strpos(f.path_text, chr(65533)) > 0) AND (\(exact)\(match))"
    }
    parameters.append(.text(glob.byteExpression(lastComponent: bytes.lastComponent)))
    return op == .notEqual ? "NOT coalesce(\(match), false)" : "(\(match))"
  }

  private func textSQL(
    _ column: String, _ dialect: SQLDialect, op: Operator, value: String, fieldName: String,
    parameters: inout [DatabaseValue]
  ) throws -> String {
    switch op {
    case .contains:
      if value.isEmpty { return "coalesce(\(column), '') != ''" }
      parameters.append(.text("%" + Self.escapeLike(value) + "%"))
      // Said outright, the column's not being NULL lets SQLite read a partial index of it
      // (`files_artist`) rather than the table; PostgreSQL infers it.
      return dialect == .sqlite
        ? "(\(column) IS NOT NULL AND \(column) LIKE ? ESCAPE '\\')" : "\(column) ILIKE ? ESCAPE '\\'"
    case .exact:
      parameters.append(.text(value))
      return dialect == .sqlite ? "\(column) = ? COLLATE NOCASE" : "lower(\(column)) = lower(?)"
    case .notEqual:
      parameters.append(.text(value))
      return dialect == .sqlite
        ? "coalesce(\(column), '') != ? COLLATE NOCASE" : "lower(coalesce(\(column), '')) != lower(?)"
    default:
      parameters.append(.text(value))
      return "\(column)\(dialect.byteOrder) \(op.rawValue) ?"
    }
  }

  /// An interval a value stands for: a point for numbers, a whole day for a date.
  private struct Interval {
    var low: Double
    var high: Double
    /// True when `high` is excluded (dates), false when included (points).
    var halfOpen: Bool
  }

  private func orderedSQL(
    _ column: String, _ dialect: SQLDialect, type: FieldType, op: Operator, value: String, fieldName: String,
    parameters: inout [DatabaseValue]
  ) throws -> String {
    func interval(_ text: String) throws -> Interval {
      guard let parsed = parseValue(text, type: type) else {
        throw QueryError(message: "field '\(fieldName)' cannot compare with '\(text)'")
      }
      return parsed
    }
    // A local time compares as ISO-8601 text, which sorts as the time it names.
    func parameter(_ value: Double) -> DatabaseValue {
      type == .localTime ? .text(Self.isoLocalTime(seconds: value)) : .real(value)
    }
    func lowerBound(_ bound: Interval, strict: Bool) -> String {
      if strict {
        parameters.append(parameter(bound.high))
        return bound.halfOpen ? "\(column) >= ?" : "\(column) > ?"
      }
      parameters.append(parameter(bound.low))
      return "\(column) >= ?"
    }
    func upperBound(_ bound: Interval, strict: Bool) -> String {
      if strict {
        parameters.append(parameter(bound.low))
        return "\(column) < ?"
      }
      parameters.append(parameter(bound.high))
      return bound.halfOpen ? "\(column) < ?" : "\(column) <= ?"
    }
    if (op == .contains || op == .exact) && value.contains("..") {
      let parts = value.components(separatedByString: "..")
      guard parts.count == 2, !(parts[0].isEmpty && parts[1].isEmpty) else {
        throw QueryError(message: "field '\(fieldName)': bad range '\(value)'")
      }
      var sides: [String] = []
      if !parts[0].isEmpty { sides.append(lowerBound(try interval(parts[0]), strict: false)) }
      if !parts[1].isEmpty { sides.append(upperBound(try interval(parts[1]), strict: false)) }
      return "(" + sides.joined(separator: " AND ") + ")"
    }
    let bound = try interval(value)
    switch op {
    case .contains, .exact:
      if !bound.halfOpen && bound.low == bound.high {
        parameters.append(parameter(bound.low))
        return "\(column) = ?"
      }
      let low = lowerBound(bound, strict: false)
      let high = upperBound(bound, strict: false)
      return "(\(low) AND \(high))"
    case .notEqual:
      let low = lowerBound(bound, strict: false)
      let high = upperBound(bound, strict: false)
      return "NOT coalesce(\(low) AND \(high), \(dialect.falseValue))"
    case .greater: return lowerBound(bound, strict: true)
    case .greaterOrEqual: return lowerBound(bound, strict: false)
    case .less: return upperBound(bound, strict: true)
    case .lessOrEqual: return upperBound(bound, strict: false)
    }
  }

  private func parseValue(_ text: String, type: FieldType) -> Interval? {
    switch type {
    case .number:
      guard let number = Double(text) else { return nil }
      return Interval(low: number, high: number, halfOpen: false)
    case .size:
      guard let bytes = Quantities.parseByteSize(text) else { return nil }
      return Interval(low: Double(bytes), high: Double(bytes), halfOpen: false)
    case .bitrate:
      guard let bits = Self.parseBitrate(text) else { return nil }
      return Interval(low: bits, high: bits, halfOpen: false)
    case .duration:
      guard let seconds = Quantities.parseDuration(text) else { return nil }
      return Interval(low: seconds, high: seconds, halfOpen: false)
    case .time:
      guard let (start, end) = Self.parseTime(text, now: now ?? Self.currentTime(), inLocalZone: true)
      else { return nil }
      return Interval(low: start * 1e9, high: end * 1e9, halfOpen: true)
    case .localTime:
      guard let (start, end) = Self.parseTime(text, now: now ?? Self.currentTime()) else { return nil }
      return Interval(low: start, high: end, halfOpen: true)
    default:
      return nil
    }
  }

  /// Bits per second from `256k`, `256kbps`, `1.4M`, `1.4mbps` or a plain number (decimal
  /// multiples, as bit rates are counted).
  static func parseBitrate(_ text: String) -> Double? {
    var body = text.lowercased()
    if body.hasSuffix("bps") { body.removeLast(3) }
    if body.hasSuffix("b/s") { body.removeLast(3) }
    var factor = 1.0
    if body.hasSuffix("k") {
      factor = 1000
      body.removeLast()
    } else if body.hasSuffix("m") {
      factor = 1_000_000
      body.removeLast()
    }
    guard let number = Double(body), number >= 0 else { return nil }
    return number * factor
  }

  static func parseBoolean(_ text: String) -> Bool? {
    switch text.lowercased() {
    case "yes", "y", "true", "1", "on": true
    case "no", "n", "false", "0", "off": false
    default: nil
    }
  }

  static func escapeLike(_ text: String) -> String {
    var out = ""
    for character in text {
      if character == "%" || character == "_" || character == "\\" { out.append("\\") }
      out.append(character)
    }
    return out
  }
}

extension SQLDialect {
  /// ASCII-case-insensitive LIKE, as SQLite's LIKE is.
  var like: String { self == .sqlite ? "LIKE" : "ILIKE" }
  var trueValue: String { self == .sqlite ? "1" : "true" }
  var falseValue: String { self == .sqlite ? "0" : "false" }
  /// Makes text compare and sort by its bytes, as SQLite's default collation does, whatever
  /// the PostgreSQL database's locale.
  var byteOrder: String { self == .sqlite ? "" : " COLLATE \"C\"" }
}
