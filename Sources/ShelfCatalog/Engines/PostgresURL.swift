/// A PostgreSQL catalogue's address: the connection URL exactly as given (libpq reads it, with
/// `sslmode` and every other parameter), and the same URL with any password masked, which is
/// the only form shown in messages. It is one of the catalogue's addresses (`CatalogLocation`),
/// kept here rather than beside the libpq wrapper so that the command line, which reads and
/// masks it, needs no database library.
public struct PostgresURL: Sendable, Equatable, CustomStringConvertible {
  /// The URL handed to libpq.
  let connectionString: String
  /// The URL with the password (in the user part or a `password=` parameter) replaced by `***`.
  public let masked: String

  /// A PostgreSQL URL, or nil when `text` is not one (`postgresql://…` or `postgres://…`).
  public init?(_ text: String) {
    guard Self.isPostgres(text) else { return nil }
    connectionString = text
    masked = Self.mask(text)
  }

  /// True when `text` names a PostgreSQL catalogue rather than a file.
  public static func isPostgres(_ text: String) -> Bool {
    text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
  }

  /// True when the URL carries a password (which `ps` can show while the process starts).
  public var hasPassword: Bool { masked != connectionString }

  public var description: String { masked }

  /// `text` with the password of its user part and of any `password=` parameter masked: by
  /// `***`, or with `keepingLength` by as many `*` as it has bytes (to overwrite it in place).
  public static func mask(_ text: String, keepingLength: Bool = false) -> String {
    func hidden(_ password: Substring) -> String {
      keepingLength ? String(repeating: "*", count: password.utf8.count) : "***"
    }
    guard let schemeEnd = Substring(text).range(of: "://") else { return text }
    let scheme = text[..<schemeEnd.upperBound]
    var rest = text[schemeEnd.upperBound...]
    var query = ""
    if let mark = rest.firstIndex(of: "?") {
      query = String(rest[mark...])
      rest = rest[..<mark]
    }
    var authority = rest
    var path = Substring("")
    if let slash = rest.firstIndex(of: "/") {
      authority = rest[..<slash]
      path = rest[slash...]
    }
    if let at = authority.lastIndex(of: "@") {
      let user = authority[..<at]
      if let colon = user.firstIndex(of: ":") {
        authority = user[..<colon] + ":" + hidden(user[user.index(after: colon)...]) + authority[at...]
      }
    }
    if !query.isEmpty {
      let parameters = query.dropFirst().split(separator: "&", omittingEmptySubsequences: false).map {
        $0.lowercased().hasPrefix("password=") ? "password=" + hidden($0.dropFirst(9)) : String($0)
      }
      query = "?" + parameters.joined(separator: "&")
    }
    return scheme + authority + path + query
  }
}
