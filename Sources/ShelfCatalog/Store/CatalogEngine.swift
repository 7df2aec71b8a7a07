import ShelfCore
import ShelfDatabase

/// What differs between the two databases a catalogue is kept in: the SQLite file
/// (`SQLiteEngine`) and a PostgreSQL database several machines share
/// (`PostgresEngine`). Every read and write that is the same SQL on both is written once in
/// `CatalogStore`, over `connection` in `dialect`; an engine opens and migrates its database,
/// locks, writes a file's row (at once, or queued and sent in batches), and moves a damaged
/// file aside.
protocol CatalogEngine: AnyObject {
  /// The connection `CatalogStore` runs its statements on.
  var connection: any DatabaseConnection { get }
  var dialect: SQLDialect { get }
  var location: CatalogLocation { get }
  /// The host filter, as data: nil in a catalogue of one machine's roots (SQLite); this
  /// machine's name in one several machines share (PostgreSQL), where the roots it adds are
  /// recorded under it and paths are looked up among its roots only.
  var host: String? { get }
  /// Where a damaged catalogue was moved before this one was created (SQLite only).
  var movedAsideCorruptFile: RawPath? { get }
  /// Files the indexer must never catalogue: the database and its companions.
  var ownFiles: [RawPath] { get }
  /// Opens another connection to the catalogue, for reading on another thread.
  var connectionOpener: @Sendable () throws -> any DatabaseConnection { get }

  /// Moves this (damaged) catalogue aside and returns a fresh one in its place, holding the
  /// same lock.
  func movingAsideAndRebuilding(shelfVersion: String) throws -> any CatalogEngine
  /// True when `error`, thrown by a statement on this catalogue, says its file is damaged:
  /// a writer then moves it aside and starts afresh (`movingAsideAndRebuilding`).
  func isDamage(_ error: any Error) -> Bool
  /// Makes this writer the only indexer of the root at `path` (waiting up to `wait`
  /// seconds), or throws `.busy`.
  func lockRoot(_ path: RawPath, wait: Double) throws
  /// Writes (or queues, until `writeQueuedRows`) the row of `entry` and its full text.
  func upsert(_ entry: CatalogEntry, rootID: Int64, trusted: Bool, isNew: Bool) throws
  /// Writes the queued upserts, before a statement that must follow them and before a commit.
  func writeQueuedRows() throws
  /// Writes the queued upserts before a read, which would not see them otherwise; their
  /// failure is left for the next write or the commit to report.
  func writeQueuedRowsBeforeReading()
  /// Drops the queued upserts (the transaction is being rolled back).
  func discardQueuedRows()
  /// Brings the query planner's statistics up to date after a bulk load (`catalog copy`), so
  /// that the first queries are planned for the rows that are there.
  func refreshPlannerStatistics() throws
}
