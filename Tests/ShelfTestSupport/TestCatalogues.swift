import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A catalogue store the catalogue tests run against.
public enum CatalogueStoreKind: String, Sendable, CustomStringConvertible {
  case sqlite
  case postgres

  public var description: String { rawValue }
}

/// The stores the catalogue tests run against, and fresh catalogues in them: a SQLite file
/// always; a PostgreSQL database too when `SHELF_TEST_POSTGRES_URL` names a server (`make
/// test` starts one and sets it). Each PostgreSQL catalogue is a database of its own, created
/// on that server and dropped when the test process ends.
public enum TestCatalogues {
  /// `SHELF_TEST_POSTGRES_URL`: an administrative URL of the test server, nil when unset.
  public static let postgresURL: String? = {
    guard let url = ProcessInfo.processInfo.environment["SHELF_TEST_POSTGRES_URL"], !url.isEmpty else {
      return nil
    }
    return url
  }()

  /// Why PostgreSQL tests are skipped, for `.enabled(if:)`.
  public static let skipMessage =
    "SHELF_TEST_POSTGRES_URL is not set: the PostgreSQL catalogue tests are skipped (make test sets it)"

  /// The stores to run each catalogue test against. Says once, on stderr, when PostgreSQL is
  /// left out.
  public static let kinds: [CatalogueStoreKind] = {
    guard postgresURL != nil else {
      FileHandle.standardError.write(Data(("note: " + skipMessage + "\n").utf8))
      return [.sqlite]
    }
    return [.sqlite, .postgres]
  }()

  /// What `--db` takes for a new, empty catalogue of `kind`: a file in `folder`, or the URL of
  /// a new database on the test server.
  public static func location(_ kind: CatalogueStoreKind, in folder: String) throws -> String {
    switch kind {
    case .sqlite: return folder + "/catalog.sqlite"
    case .postgres: return try createDatabase()
    }
  }

  /// Creates a database on the test server and returns its URL; `characterType` sets its
  /// LC_CTYPE (the server's default otherwise), which decides how the server folds case.
  public static func createDatabase(characterType: String? = nil) throws -> String {
    guard let admin = postgresURL else { throw TestCatalogueError(message: skipMessage) }
    let name = "shelf_test_\(getpid())_\(UInt32.random(in: 0...UInt32.max))"
    try psql(
      admin,
      "CREATE DATABASE \(name)"
        + (characterType.map { " TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE '\($0)'" } ?? ""))
    created.withLock { $0.append(name) }
    registerCleanup
    return url(admin, database: name)
  }

  /// Runs SQL through `psql` against `url` and returns its unaligned output.
  @discardableResult
  public static func psql(_ url: String, _ sql: String) throws -> String {
    let outcome = try ExternalTool.run([
      "psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql,
    ])
    guard outcome.status == 0 else { throw TestCatalogueError(message: "psql: \(outcome.stderr)") }
    return String(decoding: outcome.stdout, as: UTF8.self)
  }

  /// `url` with its database name replaced by `database`.
  public static func url(_ url: String, database: String) -> String {
    guard let schemeEnd = url.range(of: "://") else { return url }
    let afterScheme = url[schemeEnd.upperBound...]
    let queryStart = afterScheme.firstIndex(of: "?") ?? afterScheme.endIndex
    let authorityEnd = afterScheme[..<queryStart].firstIndex(of: "/") ?? queryStart
    return String(url[..<authorityEnd]) + "/" + database + String(afterScheme[queryStart...])
  }

  private static let created = Mutex<[String]>([])

  /// Drops the databases the tests made when the process ends.
  private static let registerCleanup: Void = {
    atexit {
      guard let admin = TestCatalogues.postgresURL else { return }
      for name in TestCatalogues.created.withLock({ $0 }) {
        _ = try? TestCatalogues.psql(admin, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
      }
    }
  }()
}

/// A catalogue the tests could not set up.
public struct TestCatalogueError: Error, CustomStringConvertible {
  public var message: String
  public var description: String { message }
}
