import ShelfCore
import ShelfFacts

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The fields a query names (`kind:`, `width>`, `taken:`): their columns and value types.
extension CatalogQuery {

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
    /// A folder where another catalogued file with the same content lies (`copy-in`), answered
    /// from the `copy_in` table `CatalogStore.prepareCopyFields` fills.
    case copyFolder
  }

  struct Field {
    /// The SQL value compared and sorted by.
    var column: String
    var type: FieldType
    /// For globs: the BLOB holding the raw path bytes, and whether only its last component
    /// counts.
    var bytes: (column: String, lastComponent: Bool)? = nil
  }

  /// The fields a query may name, with the SQL they stand for, from `FactField.table`.
  static let fields: [String: Field] = {
    var fields: [String: Field] = [:]
    for fact in FactField.table {
      guard let query = fact.query else { continue }
      let field = Field(
        column: query.sql ?? "f." + (fact.column?.name ?? fact.name), type: query.type, bytes: query.bytes)
      for name in query.names { fields[name] = field }
    }
    return fields
  }()

  /// The names a query may use, sorted.
  public static var fieldNames: [String] { fields.keys.sorted() }

  /// The fields whose values come from a fixed list, with the list in documented order: a
  /// value outside it can match nothing, so it is a typo to point out (`kind:imag`), never an
  /// empty listing that a script would take for "none".
  static let fixedValues: [String: [String]] = {
    var values: [String: [String]] = [:]
    for fact in FactField.table {
      guard let query = fact.query, let choices = query.choices else { continue }
      for name in query.names { values[name] = choices }
    }
    return values
  }()

  /// The values a field is completed with in the shells: its fixed list, yes and no for a
  /// boolean, else none (any value goes).
  public static func completionValues(of name: String) -> [String] {
    if let values = fixedValues[name] { return values }
    return fields[name]?.type == .boolean ? ["yes", "no"] : []
  }

  /// Refuses a value of a fixed-list field that is not in its list, suggesting the nearest.
  /// An empty value (`kind:`, "has one") and orderings (`kind>a`) are left to the SQL.
  static func checkValue(_ value: String, of name: String, op: Operator) throws {
    guard let allowed = fixedValues[name], !value.isEmpty, [.contains, .exact, .notEqual].contains(op)
    else { return }
    let lowered = value.lowercased()
    guard !allowed.contains(lowered) else { return }
    var message = "field '\(name)' has no value '\(value)'"
    if let suggestion = Suggestions.closest(to: lowered, among: allowed) {
      message += " (did you mean '\(suggestion)'?)"
    } else {
      message += " (it takes \(allowed.joined(separator: ", ")))"
    }
    throw QueryError(message: message)
  }
}
