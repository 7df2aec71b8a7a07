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
      // Letters and digits only, as the index's tokenizer sees them; each token a prefix.
      let tokens = words.unicodeScalars.split {
        !($0.properties.isAlphabetic || $0.properties.numericType != nil)
      }
      .map { String(String.UnicodeScalarView($0)) }
      // A term of punctuation alone would match every entry: with `--in-place` downstream
      // that is dangerous, so it is refused.
      guard !tokens.isEmpty else {
        throw QueryError(message: "query term '\(words)' has no letters or digits to search for")
      }
      let like = DatabaseValue.text("%" + Self.escapeLike(words) + "%")
      if dialect == .postgres {
        // The `search` column holds the same letters-and-digits tokens (see
        // `PostgresCatalogStore.searchWords`); each query token is a prefix, ANDed.
        parameters.append(.text(tokens.map { $0 + ":*" }.joined(separator: " & ")))
        parameters += [like, like]
        return
          "(f.search @@ to_tsquery('simple', unaccent(?)) OR f.name ILIKE ? ESCAPE '\\' OR f.path_text ILIKE ? ESCAPE '\\')"
      }
      parameters.append(.text(tokens.map { "\"" + $0 + "\"*" }.joined(separator: " ")))
      parameters += [like, like]
      return
        "(f.id IN (SELECT rowid FROM files_fts WHERE files_fts MATCH ?) OR f.name LIKE ? ESCAPE '\\' OR f.path_text LIKE ? ESCAPE '\\')"
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
          return Self.regularExpressionSQL(column, op: op, value: value, parameters: &parameters)
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
          return Self.regularExpressionSQL(column, op: op, value: value, parameters: &parameters)
        }
        var mode: PathGlobMode = bytes.lastComponent ? [.lastComponent] : []
        if !PathGlob.hasCapitals(value) { mode.insert(.foldCase) }
        if op != .contains { mode.insert(.literal) }
        parameters.append(.text(value))
        let match = "shelf_glob(?, \(bytes.column), \(mode.rawValue))"
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

  /// A glob (`:`, or a literal path with `:=` and `!=`) as a regular expression on a
  /// PostgreSQL text column, which its trigram index answers; smart case as for SQLite.
  private static func regularExpressionSQL(
    _ column: String, op: Operator, value: String, parameters: inout [DatabaseValue]
  ) -> String {
    let glob = PathGlob(pattern: Array(value.utf8), foldCase: false, literal: op != .contains)
    parameters.append(.text(glob.regularExpression))
    let match = "\(column) \(PathGlob.hasCapitals(value) ? "~" : "~*") ?"
    return op == .notEqual ? "NOT coalesce(\(match), false)" : match
  }

  private func textSQL(
    _ column: String, _ dialect: SQLDialect, op: Operator, value: String, fieldName: String,
    parameters: inout [DatabaseValue]
  ) throws -> String {
    switch op {
    case .contains:
      if value.isEmpty { return "coalesce(\(column), '') != ''" }
      parameters.append(.text("%" + Self.escapeLike(value) + "%"))
      return "\(column) \(dialect.like) ? ESCAPE '\\'"
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
    guard (1...12).contains(parts[1]), (1...31).contains(parts[2]), parts[3] < 24, parts[4] < 60,
      parts[5] < 61
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
      return "\(field.column) IS NULL, \(column) \(sort.descending ? "DESC" : "ASC")"
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
  /// The glob as a PostgreSQL regular expression over the text form of a path, anchored at
  /// both ends. Every character is written as an escape (`\U0000002A`), so nothing in a name
  /// is taken for regex syntax; a byte that is not UTF-8 stands for U+FFFD, as in the text
  /// column.
  var regularExpression: String {
    func escape(_ unit: UInt32) -> String {
      let scalar = unit > 0x10FFFF ? 0xFFFD : unit
      if let character = Unicode.Scalar(scalar), character.isASCII,
        character.properties.isAlphabetic || character.properties.numericType != nil
      {
        return String(character)
      }
      let hex = String(scalar, radix: 16)
      return "\\U" + String(repeating: "0", count: max(0, 8 - hex.count)) + hex
    }
    var out = "^"
    for element in elements {
      switch element {
      case .unit(let unit): out += escape(unit)
      case .anyUnit: out += "."
      case .anySequence: out += ".*"
      case .set(let negated, let ranges):
        out += negated ? "[^" : "["
        for range in ranges {
          out +=
            range.lowerBound == range.upperBound
            ? escape(range.lowerBound) : escape(range.lowerBound) + "-" + escape(range.upperBound)
        }
        out += "]"
      }
    }
    return out + "$"
  }
}
