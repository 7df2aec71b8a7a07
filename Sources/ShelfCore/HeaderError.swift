/// Why a header or structure could not be read: a reason without the path (the caller adds it).
public struct HeaderError: Error, Equatable, CustomStringConvertible {
  public var reason: String
  /// An error with a short reason, e.g. `truncated GIF: header cut off`.
  public init(_ reason: String) { self.reason = reason }
  public var description: String { reason }
}
