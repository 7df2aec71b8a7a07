/// A value bound to or read from a SQLite or PostgreSQL statement.
public enum DatabaseValue: Sendable, Hashable {
  case null
  case integer(Int64)
  case real(Double)
  case text(String)
  case blob([UInt8])
}

extension DatabaseValue {
  /// The value as an integer when it is one (a real in Int64's range, truncated; beyond it,
  /// or not finite, nil rather than a trap).
  package var integer: Int64? {
    switch self {
    case .integer(let value): value
    case .real(let value): Int64(exactly: value.rounded(.towardZero))
    default: nil
    }
  }

  /// The value as a double when it is numeric.
  package var real: Double? {
    switch self {
    case .integer(let value): Double(value)
    case .real(let value): value
    default: nil
    }
  }

  /// The value as text when it is text.
  package var text: String? {
    if case .text(let value) = self { return value }
    return nil
  }

  /// The value as bytes when it is a blob or text.
  package var bytes: [UInt8]? {
    switch self {
    case .blob(let value): value
    case .text(let value): Array(value.utf8)
    default: nil
    }
  }

  /// Wraps an optional integer.
  package static func from(_ value: Int64?) -> DatabaseValue { value.map { .integer($0) } ?? .null }
  /// Wraps an optional integer.
  package static func from(_ value: Int?) -> DatabaseValue { value.map { .integer(Int64($0)) } ?? .null }
  /// Wraps an optional boolean as 0/1.
  package static func from(_ value: Bool?) -> DatabaseValue { value.map { .integer($0 ? 1 : 0) } ?? .null }
  /// Wraps an optional double.
  package static func from(_ value: Double?) -> DatabaseValue { value.map { .real($0) } ?? .null }
  /// Wraps an optional string.
  package static func from(_ value: String?) -> DatabaseValue { value.map { .text($0) } ?? .null }
}

/// A result row read by column position, from either database, so that what is decoded from
/// rows (the catalogue's entries and roots) is written once for both.
package protocol DatabaseRow {
  /// An integer column, nil when NULL.
  func integer(at index: Int) -> Int64?
  /// An integer column, 0 when NULL: one call per value for columns that are never NULL,
  /// read row after row (a rescan's known files).
  func integerOrZero(at index: Int) -> Int64
  /// A floating-point column, nil when NULL.
  func real(at index: Int) -> Double?
  /// A text column, nil when NULL.
  func text(at index: Int) -> String?
  /// A byte-string column (empty when NULL).
  func blob(at index: Int) -> [UInt8]
  /// Calls `body` with a byte-string column's bytes (empty when NULL), copied only where the
  /// database's form needs decoding: thousands of short blobs are read per search.
  func withBlob<R>(at index: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R
}

extension DatabaseRow {
  package func withBlob<R>(at index: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R {
    blob(at: index).withUnsafeBytes(body)
  }
}
