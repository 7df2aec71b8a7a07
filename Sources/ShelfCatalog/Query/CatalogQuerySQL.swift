import ShelfCore
import ShelfDatabase

/// The WHERE clause a query stands for, in each SQL dialect.
extension CatalogQuery {
  /// The WHERE clause and its parameters, for SQLite.
  public func sql() throws -> (String, [DatabaseValue]) { try sql(.sqlite) }

  /// The WHERE clause and its parameters (`?`) in `dialect`: the same query compiled for each
  /// database, through its own full-text index and pattern matching.
  package func sql(_ dialect: SQLDialect) throws -> (String, [DatabaseValue]) {
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
      // Each query token is a prefix, ANDed, of the tokens the full text is cut into (in
      // PostgreSQL, `PostgresEngine.searchWords`).
      parameters.append(Self.textSearchQuery(tokens, dialect))
      let inPath = "f.path_text \(dialect.like) ? ESCAPE '\\'"
      guard dialect.hasPathTrigramTable, let trigrams = Self.trigramQuery(words.unicodeScalars.map(\.value))
      else {
        parameters.append(like)
        return "(\(dialect.fullTextMatch) OR \(inPath))"
      }
      parameters += [.text(trigrams), like]
      return "(\(dialect.fullTextMatch) OR (\(Self.pathTrigramsSQL) AND \(inPath)))"
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
        guard let globFunction = dialect.globFunction else {
          return Self.regularExpressionSQL(field, op: op, value: value, parameters: &parameters)
        }
        var mode: PathGlobMode = []
        if !PathGlob.hasCapitals(value) { mode.insert(.foldCase) }
        if op != .contains { mode.insert(.literal) }
        parameters.append(.text(value))
        let match = "\(globFunction)(?, \(bytes.column), \(mode.rawValue))"
        return op == .notEqual ? "NOT coalesce(\(match), 0)" : match
      case .copyFolder:
        guard op == .contains, !value.isEmpty else {
          throw QueryError(message: "field '\(name)' takes ':' and a folder, e.g. \(name):~/Pictures")
        }
        parameters.append(.blob(Self.copyFolder(value).bytes))
        return "\(column) IN (SELECT c.id FROM copy_in c WHERE c.folder = ?)"
      case .localTime where value.isEmpty && op == .contains:
        return "\(column) IS NOT NULL"
      case .glob:
        guard let bytes = field.bytes, op == .contains || op == .exact || op == .notEqual else {
          return try textSQL(column, dialect, op: op, value: value, fieldName: name, parameters: &parameters)
        }
        guard let globFunction = dialect.globFunction else {
          return Self.regularExpressionSQL(field, op: op, value: value, parameters: &parameters)
        }
        var mode: PathGlobMode = bytes.lastComponent ? [.lastComponent] : []
        if !PathGlob.hasCapitals(value) { mode.insert(.foldCase) }
        if op != .contains { mode.insert(.literal) }
        var match = "\(globFunction)(?, \(bytes.column), \(mode.rawValue))"
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
          return "(\(dialect.newline) || \(column) || \(dialect.newline)) \(dialect.like) ? ESCAPE '\\'"
        default: throw QueryError(message: "field 'key' takes ':' or ':=', not '\(op.rawValue)'")
        }
      case .boolean:
        guard let flag = Self.parseBoolean(value) else {
          throw QueryError(message: "field '\(name)' takes yes or no, not '\(value)'")
        }
        guard op == .contains || op == .exact || op == .notEqual else {
          throw QueryError(message: "field '\(name)' takes ':' (yes or no), not '\(op.rawValue)'")
        }
        let value = dialect.integer(column)
        return op == .notEqual
          ? "coalesce(\(value), 0) != \(flag ? 1 : 0)" : "coalesce(\(value), 0) = \(flag ? 1 : 0)"
      case .number, .size, .duration, .time, .bitrate, .localTime:
        return try orderedSQL(
          column, dialect, type: field.type, op: op, value: value, fieldName: name, parameters: &parameters)
      }
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
      return dialect.containsPattern(column)
    case .exact:
      parameters.append(.text(value))
      return dialect.equalsIgnoringCase(column)
    case .notEqual:
      parameters.append(.text(value))
      return dialect.differsIgnoringCase(column)
    default:
      parameters.append(.text(value))
      return "\(column)\(dialect.byteOrder) \(op.rawValue) ?"
    }
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
    // Where an integer column compared with a real parameter would be read without its index,
    // the bound becomes the integer that selects the same rows.
    let bare = column.hasPrefix("f.") ? String(column.dropFirst(2)) : ""
    let integerColumn =
      dialect.comparesIntegersAsReals && type != .localTime
      && CatalogSchema.fileColumns.contains(where: { $0.name == bare && $0.type == .integer })
    func comparison(_ sqlOperator: String, _ value: Double) -> String {
      let rounded: Double
      switch sqlOperator {
      case ">=", "<": rounded = value.rounded(.up)
      case ">", "<=": rounded = value.rounded(.down)
      default: rounded = value
      }
      if integerColumn, sqlOperator != "=" || value == value.rounded(), rounded.isFinite,
        rounded >= -0x1p63, rounded < 0x1p63
      {
        parameters.append(.integer(Int64(rounded)))
      } else {
        parameters.append(parameter(value))
      }
      return "\(column) \(sqlOperator) ?"
    }
    func lowerBound(_ bound: Interval, strict: Bool) -> String {
      if strict { return comparison(bound.halfOpen ? ">=" : ">", bound.high) }
      return comparison(">=", bound.low)
    }
    func upperBound(_ bound: Interval, strict: Bool) -> String {
      if strict { return comparison("<", bound.low) }
      return comparison(bound.halfOpen ? "<" : "<=", bound.high)
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
      if !bound.halfOpen && bound.low == bound.high { return comparison("=", bound.low) }
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

  static func escapeLike(_ text: String) -> String {
    var out = ""
    for character in text {
      if character == "%" || character == "_" || character == "\\" { out.append("\\") }
      out.append(character)
    }
    return out
  }
}
