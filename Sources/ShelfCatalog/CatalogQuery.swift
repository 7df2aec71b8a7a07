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

  // MARK: Fields

  /// How a field's values compare with `:`.
  enum FieldType {
    /// Free text (tags, comments): `:` finds the value anywhere in it.
    case text
    /// A name (a kind, an extension, a MIME type): `:` matches the whole value.
    case name
    /// A path or file name: `:` takes a shell glob over the raw bytes.
    case glob
    case number, size, duration, time, boolean, keys
    /// Bits per second: `256k`, `1.4M`, `320kbps`, `128000`.
    case bitrate
    /// An ISO-8601 text date compared by the wall-clock time it names (`taken`): a photo's
    /// local time as the camera recorded it, a video's as its container gives it.
    case localTime
    /// A path to another file (`live_photo`): yes or no for whether there is one, else a glob
    /// as for `path`.
    case linkedPath
  }

  struct Field {
    /// The SQL value compared and sorted by.
    var column: String
    var type: FieldType
    /// For globs: the BLOB holding the raw path bytes, and whether only its last component
    /// counts.
    var bytes: (column: String, lastComponent: Bool)? = nil
  }

  /// The fields a query may name, with the SQL they stand for.
  static let fields: [String: Field] = [
    "kind": Field(column: "f.kind", type: .name),
    "type": Field(column: "f.mime", type: .name),
    "mime": Field(column: "f.mime", type: .name),
    "ext": Field(column: "f.ext", type: .name),
    "name": Field(column: "f.name", type: .glob, bytes: ("f.path", true)),
    "path": Field(column: "f.path_text", type: .glob, bytes: ("f.path", false)),
    "area": Field(column: "f.area", type: .name),
    "root": Field(column: "r.path_text", type: .glob, bytes: ("r.path", false)),
    "size": Field(column: "f.size", type: .size),
    "mtime": Field(column: "f.mtime_ns", type: .time),
    "modified": Field(column: "f.mtime_ns", type: .time),
    "width": Field(column: "f.width", type: .number),
    "height": Field(column: "f.height", type: .number),
    "depth": Field(column: "f.bit_depth", type: .number),
    "color": Field(column: "f.color_type", type: .name),
    "alpha": Field(column: "f.alpha", type: .boolean),
    "cgbi": Field(column: "f.cgbi", type: .boolean),
    "interlaced": Field(column: "f.interlaced", type: .boolean),
    "frames": Field(column: "f.frames", type: .number),
    "loop": Field(column: "f.loop_count", type: .number),
    "duration": Field(column: "f.duration", type: .duration),
    "rate": Field(column: "f.sample_rate", type: .number),
    "channels": Field(column: "f.channels", type: .number),
    "format": Field(column: "coalesce(f.format, f.image_format, f.plist_format)", type: .name),
    "codec": Field(column: "f.codec", type: .name),
    "audio_codec": Field(column: "f.audio_codec", type: .name),
    "bitrate": Field(column: "f.bitrate", type: .bitrate),
    "album_artist": Field(column: "f.album_artist", type: .text),
    "disc": Field(column: "f.disc", type: .number),
    "disc_total": Field(column: "f.disc_total", type: .number),
    "track_total": Field(column: "f.track_total", type: .number),
    "artwork": Field(column: "f.artwork", type: .boolean),
    "fps": Field(column: "f.frame_rate", type: .number),
    "frame_rate": Field(column: "f.frame_rate", type: .number),
    "rotation": Field(column: "f.rotation", type: .number),
    "taken": Field(column: "substr(f.taken, 1, 19)", type: .localTime),
    "camera": Field(column: "f.camera", type: .text),
    "lens": Field(column: "f.lens", type: .text),
    "software": Field(column: "f.software", type: .text),
    "orientation": Field(column: "f.orientation", type: .number),
    "gps": Field(column: "(f.gps_lat IS NOT NULL)", type: .boolean),
    "lat": Field(column: "f.gps_lat", type: .number),
    "lon": Field(column: "f.gps_lon", type: .number),
    "alt": Field(column: "f.gps_alt", type: .number),
    "live_photo": Field(column: "f.live_photo_text", type: .linkedPath, bytes: ("f.live_photo", false)),
    "artist": Field(column: "f.artist", type: .text),
    "album": Field(column: "f.album", type: .text),
    "title": Field(column: "f.title", type: .text),
    "genre": Field(column: "f.genre", type: .text),
    "comment": Field(column: "f.comment", type: .text),
    "year": Field(column: "f.year", type: .number),
    "track": Field(column: "f.track_no", type: .number),
    "encoding": Field(column: "f.encoding", type: .name),
    "bom": Field(column: "f.bom", type: .boolean),
    "endings": Field(column: "f.line_endings", type: .name),
    "lines": Field(column: "f.lines", type: .number),
    "words": Field(column: "f.words", type: .number),
    "chars": Field(column: "f.chars", type: .number),
    "plist": Field(column: "f.plist_format", type: .name),
    "key": Field(column: "f.plist_keys", type: .keys),
    "error": Field(column: "f.error", type: .text),
    "mismatch": Field(column: "f.ext_mismatch", type: .boolean),
    "detected": Field(column: "f.detected_by", type: .name),
    "domain": Field(column: "f.backup_domain", type: .name),
    "app": Field(column: "f.backup_app", type: .name),
    "file_id": Field(column: "f.backup_file_id", type: .name),
    "protection": Field(column: "f.backup_protection", type: .number),
  ]

  /// The names a query may use, sorted.
  public static var fieldNames: [String] { fields.keys.sorted() }

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

  /// How to list the best matches of the query's words first, when no sort is asked for: a
  /// join that brings in the relevance (empty when the engine needs none) and the ORDER BY
  /// keys, with the parameters of each; nil when the query has no words to rank by.
  ///
  /// Entries whose tags or text hold every word come first, ordered by the engine's own
  /// relevance (SQLite's `bm25`, PostgreSQL's `ts_rank` divided by the document length: both
  /// favour short documents, but their formulas differ, so two such entries may change places
  /// between the stores); then those found in their paths alone. Ties go by path.
  func relevanceOrder(_ dialect: SQLDialect) -> (
    join: String, joinParameters: [DatabaseValue], keys: String, keyParameters: [DatabaseValue]
  )? {
    var tokens: [String] = []
    for group in groups where !group.negated && group.alternatives.count == 1 {
      if case .words(let words) = group.alternatives[0], let found = try? Self.wordTokens(words) {
        tokens += found
      }
    }
    guard !tokens.isEmpty else { return nil }
    let query = Self.textSearchQuery(tokens, dialect)
    switch dialect {
    case .sqlite:
      // Ranked once, then looked up per entry.
      return (
        " LEFT JOIN (SELECT rowid AS id, bm25(files_fts) AS score FROM files_fts WHERE files_fts MATCH ?) relevance ON relevance.id = f.id",
        [query], "relevance.score ASC NULLS LAST", []
      )
    case .postgres:
      let tsquery = "to_tsquery('simple', unaccent(?))"
      return (
        "", [],
        "coalesce(f.search @@ \(tsquery), false) DESC, ts_rank(f.search, \(tsquery), 2) DESC NULLS LAST",
        [query, query]
      )
    }
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
      guard let (start, end) = Self.parseTime(text, now: now ?? Self.currentTime()) else { return nil }
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

  static func currentTime() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
  }

  /// The years a time may reach either way from now or from year 0: a million.
  static let yearLimit: Double = 1_000_000

  /// Parses a point in time as an interval of seconds since the epoch (UTC): `2024`,
  /// `2024-05`, `2024-05-17`, `2024-05-17T10:30[:00]`, or relative `-7d`, `-12h`, `-2w`,
  /// `-30min`, `-1y` (an instant).
  static func parseTime(_ text: String, now: Double) -> (Double, Double)? {
    if text.hasPrefix("-") || text.hasPrefix("+") {
      let body = text.dropFirst()
      let digits = body.prefix { $0.isNumber || $0 == "." }
      let unit = body.dropFirst(digits.count).lowercased()
      guard let amount = Double(digits) else { return nil }
      let factor: Double
      switch unit {
      case "s", "sec": factor = 1
      case "m", "min": factor = 60
      case "h": factor = 3600
      case "d", "": factor = 86400
      case "w": factor = 7 * 86400
      case "mo": factor = 30 * 86400
      case "y": factor = 365 * 86400
      default: return nil
      }
      // Beyond a million years a time is no time (and no longer converts to whole seconds).
      guard amount * factor <= yearLimit * 366 * 86400 else { return nil }
      let instant = text.hasPrefix("-") ? now - amount * factor : now + amount * factor
      return (instant, instant)
    }
    let separators: Set<Character> = ["-", "T", ":", " "]
    let fields = text.split(whereSeparator: { separators.contains($0) }).map(String.init)
    guard (1...6).contains(fields.count), let numbers = Optional(fields.compactMap { Int($0) }),
      numbers.count == fields.count
    else {
      return nil
    }
    var parts = numbers + Array(repeating: 0, count: 6 - numbers.count)
    if numbers.count < 2 { parts[1] = 1 }
    if numbers.count < 3 { parts[2] = 1 }
    guard parts[0] < Int(yearLimit), (1...12).contains(parts[1]), (1...31).contains(parts[2]), parts[3] < 24,
      parts[4] < 60, parts[5] < 61
    else {
      return nil
    }
    let start = Double(
      daysFromCivil(parts[0], parts[1], parts[2]) * 86400 + parts[3] * 3600 + parts[4] * 60 + parts[5])
    let end: Double
    switch numbers.count {
    case 1: end = Double(daysFromCivil(parts[0] + 1, 1, 1) * 86400)
    case 2:
      end = Double(
        (parts[1] == 12 ? daysFromCivil(parts[0] + 1, 1, 1) : daysFromCivil(parts[0], parts[1] + 1, 1))
          * 86400)
    case 3: end = start + 86400
    case 4: end = start + 3600
    case 5: end = start + 60
    default: end = start + 1
    }
    return (start, end)
  }

  /// `2024-05-17T10:30:00` for a count of seconds since the epoch, read as UTC.
  static func isoLocalTime(seconds: Double) -> String {
    let whole = Int(seconds.rounded(.down))
    let days = whole >= 0 ? whole / 86400 : (whole - 86399) / 86400
    let second = whole - days * 86400
    let (year, month, day) = civilFromDays(days)
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
    return
      "\(yearText)-\(two(month))-\(two(day))T\(two(second / 3600)):\(two(second / 60 % 60)):\(two(second % 60))"
  }

  /// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
  static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
    let z = days + 719468
    let era = (z >= 0 ? z : z - 146096) / 146097
    let doe = z - era * 146097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let day = doy - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }

  /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
  static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146097 + doe - 719468
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

/// A sort order for listings: a query field, ascending or descending.
public struct CatalogSort: Sendable, Equatable {
  public var field: String
  public var descending: Bool

  /// The directions a sort may name after its field.
  public static let directions = ["asc", "desc"]

  /// Parses `FIELD` or `FIELD:desc` (also `:asc`).
  public init(_ text: String) throws {
    let lowered = text.lowercased()
    var name = Substring(lowered)
    descending = false
    if let colon = lowered.lastIndex(of: ":") {
      name = lowered[..<colon]
      let direction = lowered[lowered.index(after: colon)...]
      guard Self.directions.contains(String(direction)) else {
        try CatalogQuery.checkField(String(name))
        throw QueryError(
          message: "unknown sort direction '\(direction)' (use \(Self.directions.joined(separator: " or ")))")
      }
      descending = direction == "desc"
    }
    field = String(name)
    try CatalogQuery.checkField(field)
  }

  /// The ORDER BY list for sorts in order of precedence (entries without a value last), ending
  /// with the path so that ties list in a stable order.
  static func orderBy(_ sorts: [CatalogSort], _ dialect: SQLDialect) -> String {
    let keys = sorts.map { sort in
      let field = CatalogQuery.fields[sort.field]!
      let isText = [.text, .name, .glob, .keys].contains(field.type)
      let column = field.column + (isText ? dialect.byteOrder : "")
      let direction = "\(column) \(sort.descending ? "DESC" : "ASC")"
      // A column that is never NULL needs no key for NULLs, which would keep an index on it
      // from giving the order.
      let bare = field.column.hasPrefix("f.") ? String(field.column.dropFirst(2)) : ""
      if CatalogSchema.fileColumns.contains(where: { $0.name == bare && $0.notNull }) { return direction }
      return "\(field.column) IS NULL, " + direction
    }
    // `+` keeps SQLite from walking the path index for the order instead of filtering first.
    return (keys + [dialect == .sqlite ? "+f.path" : "f.path"]).joined(separator: ", ")
  }
}

extension String {
  func replacingAll(_ target: String, with replacement: String) -> String {
    components(separatedByString: target).joined(separator: replacement)
  }

  func components(separatedByString separator: String) -> [String] {
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
  func range(of needle: String) -> Range<Substring.Index>? {
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

extension SQLDialect {
  /// ASCII-case-insensitive LIKE, as SQLite's LIKE is.
  var like: String { self == .sqlite ? "LIKE" : "ILIKE" }
  var trueValue: String { self == .sqlite ? "1" : "true" }
  var falseValue: String { self == .sqlite ? "0" : "false" }
  /// Makes text compare and sort by its bytes, as SQLite's default collation does, whatever
  /// the PostgreSQL database's locale.
  var byteOrder: String { self == .sqlite ? "" : " COLLATE \"C\"" }
}

extension PathGlob {
  /// The glob as a looser PostgreSQL regular expression over the text form of a path,
  /// anchored at both ends, for the trigram indexes to answer: each character written as an
  /// escape (`\U0000002A`) unless an ASCII letter or digit, so nothing is taken for regex
  /// syntax; when case folds, every character that folds alike (`[k\U0000212a]`); a set or a
  /// byte that is not UTF-8 as `.`. Every valid UTF-8 path the glob matches matches this too.
  var textExpression: String {
    func escape(_ unit: UInt32) -> String {
      if let character = Unicode.Scalar(unit), character.isASCII,
        character.properties.isAlphabetic || character.properties.numericType != nil
      {
        return String(character)
      }
      let hex = String(unit, radix: 16)
      return "\\U" + String(repeating: "0", count: max(0, 8 - hex.count)) + hex
    }
    var out = "^"
    for element in elements {
      switch element {
      case .unit(let unit) where unit <= 0x10FFFF:
        let members = foldCase ? ByteExpression.foldMembers(unit) : [unit]
        out += members.count == 1 ? escape(members[0]) : "[" + members.map(escape).joined() + "]"
      case .unit, .anyUnit, .set: out += "."
      case .anySequence: out += ".*"
      }
    }
    return out + "$"
  }

  /// True when `textExpression` matches a path whose text form has no U+FFFD exactly as the
  /// glob does: ASCII only, no set, and no `k` folded (which KELVIN SIGN folds to, while the
  /// server's case-insensitive match may not).
  var textExpressionIsExact: Bool {
    elements.allSatisfy { element in
      switch element {
      case .unit(let unit): unit < 0x80 && !(foldCase && (unit == 0x6B || unit == 0x4B))
      case .anyUnit, .anySequence: true
      case .set: false
      }
    }
  }

  /// The glob as a PostgreSQL regular expression over a path's bytes read as LATIN1, each byte
  /// the character of the same number (`convert_from(path, 'LATIN1')`), matching what
  /// `matches` does: units are decoded as there (a valid UTF-8 sequence, else one byte that
  /// starts none), case folds as there (every scalar whose simple lowercase is the pattern's).
  /// With `lastComponent`, only what follows the path's last `/` is matched.
  func byteExpression(lastComponent: Bool) -> String {
    typealias Bytes = Self.ByteExpression
    let unit = lastComponent ? "(?:(?!/)\(Bytes.unit))" : Bytes.unit
    func member(_ expression: String) -> String { lastComponent ? "(?:(?!/)\(expression))" : expression }
    var out = lastComponent ? "^.*/" : "^"
    for (index, element) in elements.enumerated() {
      switch element {
      case .unit(let value):
        out += member(Bytes.alternatives(foldCase ? Bytes.foldMembers(value) : [value]))
      case .anyUnit: out += unit
      case .anySequence:
        // Before an ASCII character (never inside a sequence) or the end, any bytes are
        // whole units: the plain `.*` spares the engine a lookahead per byte.
        let next = index + 1 < elements.count ? elements[index + 1] : nil
        if case .unit(let value)? = next, value < 0x80, !lastComponent || value != 0x2F {
          out += lastComponent ? "[^/]*" : ".*"
        } else if next == nil {
          out += lastComponent ? "[^/]*" : ".*"
        } else {
          out += unit + "*"
        }
      case .set(let negated, let ranges):
        let inSet = member(Bytes.set(ranges, foldCase: foldCase))
        out += negated ? "(?:(?!\(inSet))\(unit))" : inSet
      }
    }
    return out + "$"
  }

  /// The pieces of `byteExpression`.
  enum ByteExpression {
    /// One byte, as the LATIN1 character `\u00XX`.
    static func byte(_ value: UInt8) -> String {
      let hex = String(value, radix: 16)
      return "\\u00" + (hex.count == 1 ? "0" : "") + hex
    }

    static func bytes(_ range: ClosedRange<UInt8>) -> String {
      range.lowerBound == range.upperBound
        ? byte(range.lowerBound) : "[\(byte(range.lowerBound))-\(byte(range.upperBound))]"
    }

    /// A valid UTF-8 sequence (no NUL, which no path holds): as `PathGlob.units` accepts them.
    static let valid =
      "(?:[\\u0001-\\u007f]|[\\u00c2-\\u00df][\\u0080-\\u00bf]|\\u00e0[\\u00a0-\\u00bf][\\u0080-\\u00bf]|[\\u00e1-\\u00ec\\u00ee\\u00ef][\\u0080-\\u00bf]{2}|\\u00ed[\\u0080-\\u009f][\\u0080-\\u00bf]|\\u00f0[\\u0090-\\u00bf][\\u0080-\\u00bf]{2}|[\\u00f1-\\u00f3][\\u0080-\\u00bf]{3}|\\u00f4[\\u0080-\\u008f][\\u0080-\\u00bf]{2})"

    /// One of `bytes` (all 0x80 or above) where it starts no valid sequence: a unit of its own.
    static func invalid(_ bytes: String) -> String { "(?:(?!\(valid))\(bytes))" }

    /// Any one unit.
    static let unit = "(?:\(valid)|\(invalid("[\\u0080-\\u00ff]")))"

    /// Matches nothing: no LATIN1 text holds a character above U+00FF.
    static let nothing = "[^\\u0001-\\u00ff]"

    /// The bytes of one unit (a scalar, or `0x110000 + byte` for a byte that is not UTF-8).
    static func encoded(_ unit: UInt32) -> String {
      if unit >= 0x11_0000 { return invalid(byte(UInt8(truncatingIfNeeded: unit - 0x11_0000))) }
      guard let scalar = Unicode.Scalar(unit) else { return nothing }
      return String(scalar).utf8.map(byte).joined()
    }

    static func alternatives(_ units: [UInt32]) -> String {
      switch units.count {
      case 0: nothing
      case 1: encoded(units[0])
      default: "(?:" + units.map(encoded).joined(separator: "|") + ")"
      }
    }

    /// Every scalar that changes when folded, by what it folds to: worked out once, from the
    /// same folding as `PathGlob.folded` (no cased letter lies beyond U+1FFFF).
    static let foldedFrom: [UInt32: [UInt32]] = {
      var table: [UInt32: [UInt32]] = [:]
      for value in UInt32(0x41)...0x1FFFF where !(0xD800...0xDFFF).contains(value) {
        let folded = PathGlob.folded(value)
        if folded != value { table[folded, default: []].append(value) }
      }
      return table
    }()

    /// The units whose folding is `unit` (itself when folding keeps it).
    static func foldMembers(_ unit: UInt32) -> [UInt32] {
      (PathGlob.folded(unit) == unit ? [unit] : []) + (foldedFrom[unit] ?? [])
    }

    /// One unit of a `[…]` set: one whose (folded) value lies in `ranges`.
    static func set(_ ranges: [ClosedRange<UInt32>], foldCase: Bool) -> String {
      var choices = ranges.flatMap(rangeExpressions)
      guard foldCase else { return choices.isEmpty ? nothing : "(?:" + choices.joined(separator: "|") + ")" }
      func inSet(_ value: UInt32) -> Bool { ranges.contains { $0.contains(value) } }
      // In the ranges but folding out of them; out of them but folding in.
      var leaving: [UInt32] = []
      var entering: [UInt32] = []
      for (folded, units) in foldedFrom {
        for unit in units where inSet(unit) != inSet(folded) {
          if inSet(unit) { leaving.append(unit) } else { entering.append(unit) }
        }
      }
      if !leaving.isEmpty && !choices.isEmpty {
        choices = ["(?:(?!\(alternatives(leaving.sorted())))(?:\(choices.joined(separator: "|"))))"]
      }
      choices += entering.sorted().map(encoded)
      return choices.isEmpty ? nothing : "(?:" + choices.joined(separator: "|") + ")"
    }

    /// The units of a range of units, as alternatives: UTF-8 sequences byte range by byte
    /// range, and bytes that are not UTF-8.
    static func rangeExpressions(_ range: ClosedRange<UInt32>) -> [String] {
      var out: [String] = []
      var scalarRanges: [ClosedRange<UInt32>] = []
      let low = max(range.lowerBound, 1)
      let high = min(range.upperBound, 0x10FFFF)
      if low <= high {
        // Surrogates are not scalars.
        if low < 0xD800 { scalarRanges.append(low...min(high, 0xD7FF)) }
        if high > 0xDFFF { scalarRanges.append(max(low, 0xE000)...high) }
      }
      for scalars in scalarRanges {
        for sequence in utf8Sequences(scalars) { out.append(sequence.map(bytes).joined()) }
      }
      if range.upperBound >= 0x11_0080 {
        let first = UInt8(max(range.lowerBound, 0x11_0080) - 0x11_0000)
        let last = UInt8(min(range.upperBound, 0x11_00FF) - 0x11_0000)
        out.append(invalid(bytes(first...last)))
      }
      return out
    }

    /// A range of scalars of one encoded length or more, as sequences of byte ranges (each
    /// sequence every combination of its ranges), split where the leading bytes change.
    static func utf8Sequences(_ range: ClosedRange<UInt32>) -> [[ClosedRange<UInt8>]] {
      for boundary: UInt32 in [0x7F, 0x7FF, 0xFFFF]
      where range.lowerBound <= boundary && range.upperBound > boundary {
        return utf8Sequences(range.lowerBound...boundary) + utf8Sequences(boundary + 1...range.upperBound)
      }
      let length =
        range.upperBound <= 0x7F ? 1 : range.upperBound <= 0x7FF ? 2 : range.upperBound <= 0xFFFF ? 3 : 4
      for position in 1..<length {
        let mask: UInt32 = (1 << (6 * UInt32(position))) - 1
        if range.lowerBound & ~mask != range.upperBound & ~mask {
          if range.lowerBound & mask != 0 {
            return utf8Sequences(range.lowerBound...(range.lowerBound | mask))
              + utf8Sequences((range.lowerBound | mask) + 1...range.upperBound)
          }
          if range.upperBound & mask != mask {
            return utf8Sequences(range.lowerBound...(range.upperBound & ~mask) - 1)
              + utf8Sequences((range.upperBound & ~mask)...range.upperBound)
          }
        }
      }
      let low = Array(String(Unicode.Scalar(range.lowerBound)!).utf8)
      let high = Array(String(Unicode.Scalar(range.upperBound)!).utf8)
      return [zip(low, high).map { $0...$1 }]
    }
  }
}
