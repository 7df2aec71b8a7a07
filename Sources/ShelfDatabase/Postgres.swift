internal import CPostgres
internal import CPostgresSupport
import ShelfCore

/// A failure of the catalogue's PostgreSQL server or of a statement sent to it. The message
/// names the catalogue by its masked URL only.
package struct PostgresError: ShelfError, Equatable {
  /// The catalogue's masked URL.
  package var catalogue: String
  /// What went wrong, as one line.
  package var reason: String
  package var failure: FailureKind
  /// The SQLSTATE code, when the server sent one.
  package var state: String?

  /// A failure of the catalogue named `catalogue` (its masked URL).
  package init(catalogue: String, reason: String, failure: FailureKind, state: String?) {
    self.catalogue = catalogue
    self.reason = reason
    self.failure = failure
    self.state = state
  }

  package var description: String { "catalogue \(catalogue): \(reason)" }
}

/// One connection to a PostgreSQL server: the one owner of its `PGconn`, used from one
/// thread at a time. Parameters are written `?` in the SQL and numbered here, each cast to the
/// type of the value bound (so a number compared with a column is never misread); byte
/// strings travel in binary, the rest as text.
package final class PostgresConnection {
  /// The catalogue as errors name it: its URL with any password masked.
  private let name: String
  private var handle: OpaquePointer?
  /// True while a statement sent by `sendPreparedWithoutWaiting` has not had its result read.
  private var inFlight = false
  /// The names of the statements prepared on this connection, by their SQL.
  private var preparedNames: [String: String] = [:]

  /// Connects to the server `connectionString` names (a URL libpq reads whole); errors name
  /// the catalogue `name`, the URL with its password masked. A server that cannot be reached
  /// is `.unavailable` (exit 69), a refused login `.noPermission`, a URL libpq cannot read
  /// `.usage`.
  package init(connectionString: String, name: String) throws(PostgresError) {
    self.name = name
    try Self.loadLibrary(name)
    var parseError: UnsafeMutablePointer<CChar>?
    if let options = PQconninfoParse(connectionString, &parseError) {
      PQconninfoFree(options)
    } else {
      let message = parseError.map { String(cString: $0) } ?? "cannot read the URL"
      if let parseError { PQfreemem(parseError) }
      throw PostgresError(
        catalogue: name, reason: Self.oneLine(message), failure: .usage, state: nil)
    }
    let connection = PQconnectdb(connectionString)
    guard let connection, PQstatus(connection) == CONNECTION_OK else {
      let message = connection.map { String(cString: PQerrorMessage($0)) } ?? "out of memory"
      PQfinish(connection)
      let reason = Self.oneLine(message)
      let refusedLogin =
        reason.contains("password authentication failed") || reason.contains("no password supplied")
      throw PostgresError(
        catalogue: name, reason: reason, failure: refusedLogin ? .noPermission : .unavailable,
        state: nil)
    }
    handle = connection
    // Notices ("extension already exists, skipping") would go to stderr unasked.
    PQsetNoticeProcessor(connection, { _, _ in }, nil)
    // The catalogue's statements are short or read their rows as they come: compiling a plan
    // to machine code (which PostgreSQL starts for any statement its planner costs high, such
    // as a listing of half the catalogue or the totals of `stats`) costs more than it saves.
    try execute("SET jit = off")
  }

  deinit { PQfinish(handle) }

  /// Loads libpq on the first connection (shelf does not link it: see PostgresLoader.c); a
  /// missing library is `.unavailable` (exit 69), as an unreachable server is.
  private static func loadLibrary(_ name: String) throws(PostgresError) {
    var reason = [CChar](repeating: 0, count: 512)
    guard shelf_postgres_load(&reason, reason.count) != 0 else { return }
    let message = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    throw PostgresError(
      catalogue: name, reason: "cannot load libpq: \(message)", failure: .unavailable, state: nil)
  }

  /// libpq's message reduced to its first line, without the severity and the connection
  /// preamble: `connection to server at "…", port 1 failed: Connection refused` says
  /// `connection refused`.
  static func oneLine(_ message: String) -> String {
    var line = message.split(separator: "\n").first.map(String.init) ?? message
    for prefix in ["FATAL:  ", "ERROR:  "] where line.hasPrefix(prefix) { line.removeFirst(prefix.count) }
    if line.hasPrefix("connection to server"), let range = line.firstRange(of: "failed: ") {
      line = String(line[range.upperBound...])
    }
    guard let first = line.first, line.dropFirst().first?.isLowercase ?? true else { return line }
    return first.lowercased() + line.dropFirst()
  }

  /// The error a failed result (or a lost connection) stands for.
  private func error(_ result: OpaquePointer?) -> PostgresError {
    let message =
      result.flatMap { PQresultErrorMessage($0) }.map { String(cString: $0) }.flatMap {
        $0.isEmpty ? nil : $0
      }
      ?? String(cString: PQerrorMessage(handle))
    let state = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map {
      String(cString: $0)
    }
    let lost =
      PQstatus(handle) != CONNECTION_OK || state?.hasPrefix("57P") == true || state?.hasPrefix("08") == true
    var failure = FailureKind.io
    if state == "42501" { failure = .noPermission }
    let reason = Self.oneLine(message)
    return PostgresError(
      catalogue: name, reason: lost && reason.isEmpty ? "the server went away" : reason,
      failure: failure, state: state)
  }

  /// Sends one statement with `?` parameters and returns at once, so that the server works on
  /// it while the caller prepares the next: its result (or failure) is read by the next call
  /// on this connection, or by `finishInFlight`. For a statement sent many times: it is
  /// prepared (parsed once per connection, and planned once after a few runs) and then sent
  /// by name, so its SQL must cast each `?` to its type itself, as the types cannot follow the
  /// values of each call.
  package func sendPreparedWithoutWaiting(_ sql: String, _ parameters: [DatabaseValue]) throws(PostgresError)
  {
    try finishInFlight()
    let name: String
    if let known = preparedNames[sql] {
      name = known
    } else {
      name = "shelf_\(preparedNames.count + 1)"
      let result = PQprepare(handle, name, Self.numbered(sql, []), 0, nil)
      defer { PQclear(result) }
      guard PQresultStatus(result) == PGRES_COMMAND_OK else { throw error(result) }
      preparedNames[sql] = name
    }
    let sent = try send("", parameters, numbering: false) {
      connection, _, count, values, lengths, formats -> OpaquePointer? in
      PQsendQueryPrepared(connection, name, count, values, lengths, formats, 0) == 1
        ? OpaquePointer(bitPattern: 1) : nil
    }
    guard sent != nil else { throw error(nil) }
    inFlight = true
  }

  /// Waits for the statement sent without waiting, if any, and throws its failure.
  package func finishInFlight() throws(PostgresError) {
    guard inFlight else { return }
    inFlight = false
    var failure: PostgresError?
    while let result = PQgetResult(handle) {
      let status = PQresultStatus(result)
      if failure == nil && status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK { failure = error(result) }
      PQclear(result)
    }
    if failure == nil && PQstatus(handle) != CONNECTION_OK { failure = error(nil) }
    if let failure { throw failure }
  }

  /// Runs statements that return no rows (several may be separated by semicolons when there
  /// are no parameters).
  package func execute(_ sql: String) throws(PostgresError) {
    try finishInFlight()
    let result = PQexec(handle, sql)
    defer { PQclear(result) }
    let status = PQresultStatus(result)
    guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else { throw error(result) }
  }

  /// Runs one statement with `?` parameters and returns all its rows.
  private func result(_ sql: String, _ parameters: [DatabaseValue]) throws(PostgresError) -> PostgresResult {
    try finishInFlight()
    let result = try send(sql, parameters) { connection, command, count, values, lengths, formats in
      PQexecParams(connection, command, count, nil, values, lengths, formats, 0)
    }
    let status = PQresultStatus(result)
    guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
      let failure = error(result)
      PQclear(result)
      throw failure
    }
    return PostgresResult(result!)
  }

  /// Runs one statement with `?` parameters, ignoring any rows.
  package func run(_ sql: String, _ parameters: [DatabaseValue] = []) throws(PostgresError) {
    _ = try result(sql, parameters)
  }

  /// Streams the rows of one statement to `body` one at a time (libpq's single-row mode), so
  /// a listing of a million entries never sits in memory. When `body` throws, the statement
  /// is cancelled and the connection left ready for the next one.
  package func forEachRow(
    _ sql: String, _ parameters: [DatabaseValue], _ body: (any DatabaseRow) throws -> Void
  ) throws {
    try finishInFlight()
    let sent = try send(sql, parameters) {
      connection, command, count, values, lengths, formats -> OpaquePointer? in
      PQsendQueryParams(connection, command, count, nil, values, lengths, formats, 0) == 1
        ? OpaquePointer(bitPattern: 1) : nil
    }
    guard sent != nil else { throw error(nil) }
    PQsetSingleRowMode(handle)
    var failure: (any Error)?
    while let result = PQgetResult(handle) {
      defer { PQclear(result) }
      guard failure == nil else { continue }
      switch PQresultStatus(result) {
      case PGRES_SINGLE_TUPLE:
        do {
          try body(PostgresResult(borrowing: result))
        } catch {
          failure = error
          if let cancel = PQgetCancel(handle) {
            var buffer = [CChar](repeating: 0, count: 256)
            _ = PQcancel(cancel, &buffer, 256)
            PQfreeCancel(cancel)
          }
        }
      case PGRES_TUPLES_OK, PGRES_COMMAND_OK: break
      default: failure = error(result)
      }
    }
    if PQstatus(handle) != CONNECTION_OK && failure == nil { failure = error(nil) }
    if let failure { throw failure }
  }

  /// Numbers the `?` parameters of `sql` (`$1::int8`, …; not with `numbering` false), lays the
  /// values out as libpq wants them and hands everything to `call`.
  private func send(
    _ sql: String, _ parameters: [DatabaseValue], numbering: Bool = true,
    _ call: (
      OpaquePointer?, String, Int32, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?,
      UnsafePointer<Int32>?
    ) -> OpaquePointer?
  ) throws(PostgresError) -> OpaquePointer? {
    let command = numbering ? Self.numbered(sql, parameters) : sql
    var buffer: [UInt8] = []
    var offsets: [Int?] = []
    var lengths: [Int32] = []
    var formats: [Int32] = []
    for value in parameters {
      switch value {
      case .null:
        offsets.append(nil)
        lengths.append(0)
        formats.append(0)
        continue
      case .blob(let bytes):
        offsets.append(buffer.count)
        buffer += bytes
        buffer.append(0)
        lengths.append(Int32(bytes.count))
        formats.append(1)
        continue
      case .integer(let number):
        offsets.append(buffer.count)
        buffer += Array(String(number).utf8)
      case .real(let number):
        offsets.append(buffer.count)
        buffer += Array(Self.text(of: number).utf8)
      case .text(var text):
        offsets.append(buffer.count)
        // PostgreSQL text cannot hold NUL; the bytes are copied whole when there is none.
        text.withUTF8 { bytes in
          if !bytes.contains(0) {
            buffer.append(contentsOf: bytes)
          } else {
            buffer += bytes.lazy.filter { $0 != 0 }
          }
        }
      }
      buffer.append(0)
      lengths.append(0)
      formats.append(0)
    }
    if buffer.isEmpty { buffer.append(0) }
    let result = buffer.withUnsafeBufferPointer { bytes in
      let base = UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self)
      let pointers: [UnsafePointer<CChar>?] = offsets.map { $0.map { base + $0 } }
      return pointers.withUnsafeBufferPointer { values in
        lengths.withUnsafeBufferPointer { lengthList in
          formats.withUnsafeBufferPointer { formatList in
            call(
              handle, command, Int32(parameters.count), values.baseAddress, lengthList.baseAddress,
              formatList.baseAddress)
          }
        }
      }
    }
    return result
  }

  /// A double as PostgreSQL reads it back exactly.
  private static func text(of number: Double) -> String {
    if number.isNaN { return "NaN" }
    if number.isInfinite { return number < 0 ? "-Infinity" : "Infinity" }
    return "\(number)"
  }

  /// `sql` with each `?` outside quotes replaced by `$N` cast to the bound value's type.
  package static func numbered(_ sql: String, _ parameters: [DatabaseValue]) -> String {
    var out = ""
    out.reserveCapacity(sql.utf8.count + parameters.count * 8)
    var index = 0
    var quoted = false
    for character in sql {
      if character == "'" { quoted.toggle() }
      guard character == "?" && !quoted else {
        out.append(character)
        continue
      }
      index += 1
      out += "$\(index)"
      switch index <= parameters.count ? parameters[index - 1] : .null {
      case .null: break
      case .integer: out += "::int8"
      case .real: out += "::float8"
      case .text: out += "::text"
      case .blob: out += "::bytea"
      }
    }
    return out
  }
}

extension PostgresConnection: DatabaseConnection {
  package func query<T>(
    _ sql: String, _ parameters: [DatabaseValue], _ row: (any DatabaseRow) throws -> T
  ) throws -> [T] {
    let result = try result(sql, parameters)
    return try (0..<result.count).map { try row(result.at($0)) }
  }

  package func beginTransaction() throws { try execute("BEGIN") }

  package func commitTransaction() throws { try execute("COMMIT") }

  /// Also after a failed statement still in flight, which would otherwise keep the ROLLBACK
  /// from being sent.
  package func rollbackTransaction() {
    try? finishInFlight()
    try? execute("ROLLBACK")
  }
}

/// A result of a PostgreSQL statement (text format): the one owner of its `PGresult`, read
/// row by row. In single-row mode it is borrowed, and freed by the connection.
final class PostgresResult: DatabaseRow {
  private let result: OpaquePointer
  private let owned: Bool
  /// The row read by the `DatabaseRow` accessors.
  var row: Int32 = 0

  init(_ result: OpaquePointer) {
    self.result = result
    owned = true
  }

  init(borrowing result: OpaquePointer) {
    self.result = result
    owned = false
  }

  deinit { if owned { PQclear(result) } }

  /// The number of rows.
  var count: Int { Int(PQntuples(result)) }

  /// The row at `index`, for the accessors.
  func at(_ index: Int) -> PostgresResult {
    row = Int32(index)
    return self
  }

  private func raw(_ index: Int) -> UnsafeBufferPointer<UInt8>? {
    guard PQgetisnull(result, row, Int32(index)) == 0, let value = PQgetvalue(result, row, Int32(index))
    else {
      return nil
    }
    return UnsafeBufferPointer(
      start: UnsafeRawPointer(value).assumingMemoryBound(to: UInt8.self),
      count: Int(PQgetlength(result, row, Int32(index))))
  }

  func text(at index: Int) -> String? { raw(index).map { String(decoding: $0, as: UTF8.self) } }

  func integerOrZero(at index: Int) -> Int64 { integer(at: index) ?? 0 }

  func integer(at index: Int) -> Int64? {
    guard let text = text(at: index) else { return nil }
    return Int64(text) ?? Double(text).map { Int64($0) }
  }

  func real(at index: Int) -> Double? { text(at: index).flatMap { Double($0) } }

  /// A `bytea` column: the server's hex form (`\x…`) decoded.
  func blob(at index: Int) -> [UInt8] {
    guard let value = raw(index) else { return [] }
    guard value.count >= 2, value[0] == UInt8(ascii: "\\"), value[1] == UInt8(ascii: "x") else {
      return Array(value)
    }
    let raw = value
    func nibble(_ byte: UInt8) -> UInt8 {
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
      default: byte &- UInt8(ascii: "A") &+ 10
      }
    }
    var bytes: [UInt8] = []
    bytes.reserveCapacity((raw.count - 2) / 2)
    var index = 2
    while index + 1 < raw.count {
      bytes.append(nibble(raw[index]) << 4 | nibble(raw[index + 1]))
      index += 2
    }
    return bytes
  }
}
