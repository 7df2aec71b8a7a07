import ShelfCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A sort order for listings: a query field, ascending or descending.
public struct CatalogSort: Sendable, Equatable {
  public var field: String
  public var descending: Bool

  /// The directions a sort may name after its field.
  public static let directions = ["asc", "desc"]

  /// The fields entries can be sorted by: every query field but those that compare contents.
  public static var fields: [String] {
    CatalogQuery.fieldNames.filter { !CatalogQuery.contentComparisonFields.contains($0) }
  }

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
    // Their answers exist only for the entries a query compared (see `prepareCopyFields`).
    if CatalogQuery.contentComparisonFields.contains(field) {
      throw QueryError(message: "entries cannot be sorted by '\(field)'; use it as a query term (copies>0)")
    }
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
    return (keys + [dialect.pathTieBreak]).joined(separator: ", ")
  }
}
