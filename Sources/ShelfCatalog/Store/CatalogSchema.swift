import ShelfDatabase

/// The catalogue's tables. One wide `files` row per file keeps queries simple; a few indexes
/// (`queryIndexes`) serve the filters a listing starts from most (kind, size, time, the
/// substrings of paths), so that `ls … --limit` reads the rows it shows, not the table. Audio
/// tags, plist keys and the beginning of text files also go into an FTS5 index whose rowid is
/// the file's id (names and paths are matched with LIKE, which finds any substring). The index
/// keeps neither token positions nor columns (`detail = none`): bare words are matched as
/// prefixes anywhere, ANDed, which is all `ls WORD…` asks, and the smallest index is the one
/// an index run writes fastest (see `fullTextDetailVersion`).
enum CatalogSchema {
  /// Bumped on every schema change; writers migrate older catalogues (see `upgrade(from:_:)`).
  static let version = 17

  /// The first schema that carries `applicationID` and the `meta` table; older ones are
  /// recognised by their tables.
  static let firstIdentifiedVersion = 5

  /// Written to the SQLite header (`PRAGMA application_id`, "SHLF"): it tells a shelf
  /// catalogue from any other SQLite database without reading its tables.
  static let applicationID: UInt32 = 0x5348_4C46

  /// Key of the `meta` row naming the shelf version that last wrote the catalogue. The `meta`
  /// table keeps this shape in every later schema, so an older shelf can name the newer one.
  static let writerVersionKey = "shelf_version"

  /// The written-out SQLite migrations from schema `N` to `N + 1`, keyed by `N`, for the
  /// schemas before the columns were listed once (`fileColumns`). Schemas older than the first
  /// key are rebuilt (roots kept).
  static let sqliteUpgrades: [Int: String] = [
    4: """
    ALTER TABLE roots ADD COLUMN excludes TEXT;
    CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
    """,
    5: """
    ALTER TABLE roots ADD COLUMN backup_device TEXT;
    ALTER TABLE roots ADD COLUMN backup_product TEXT;
    ALTER TABLE roots ADD COLUMN backup_ios TEXT;
    ALTER TABLE roots ADD COLUMN backup_date TEXT;
    ALTER TABLE roots ADD COLUMN backup_encrypted INTEGER;
    ALTER TABLE roots ADD COLUMN backup_format TEXT;
    ALTER TABLE files ADD COLUMN backup_domain TEXT;
    ALTER TABLE files ADD COLUMN backup_app TEXT;
    ALTER TABLE files ADD COLUMN backup_file_id TEXT;
    ALTER TABLE files ADD COLUMN backup_protection INTEGER;
    ALTER TABLE files ADD COLUMN backup_mode INTEGER;
    """,
  ]

  static let create = """
    CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS roots(
      id INTEGER PRIMARY KEY,
      path BLOB NOT NULL UNIQUE,
      path_text TEXT NOT NULL,
      is_sandbox INTEGER NOT NULL DEFAULT 0,
      bundle_path BLOB,
      bundle_id TEXT,
      bundle_name TEXT,
      bundle_version TEXT,
      last_scan_ns INTEGER,
      excludes TEXT,
      backup_device TEXT, backup_product TEXT, backup_ios TEXT, backup_date TEXT,
      backup_encrypted INTEGER, backup_format TEXT,
      parent_id INTEGER
    );
    \(filesTable(.sqlite));
    \(fullTextTable("files_fts"));
    \(queryIndexes(.sqlite))
    \(contentHashesTable(.sqlite))
    \(replayGainsTable(.sqlite))
    """

  /// The version that added `queryIndexes`.
  static let queryIndexesVersion = 10

  /// The version that added `roots.parent_id`: the root a backup was found in (a root of its
  /// own, listed under that one, forgotten with it). Roots added before have none.
  static let rootParentVersion = 11

  /// The version from which SQLite's writer fills the path trigram table itself, with the
  /// row (`SQLiteEngine.upsert`), rather than by an insert trigger: an older shelf,
  /// which relies on the trigger, must not write the catalogue after it.
  static let explicitPathTrigramsVersion = 12

  /// The version that added `livePhotoQueueIndex` (both dialects) and gave PostgreSQL the
  /// indexes a limited listing in path order is picked from: a kind's entries in path order
  /// (`files_kind_path`), and sizes carrying the path and the id (`files_size_path`, replacing
  /// `files_size`), so that the first entries of a size range in path order are found in the
  /// index alone. SQLite's indexes already carry the path.
  static let scanAndListingIndexesVersion = 13

  /// The version that added `contentHashesTable`.
  static let contentHashesVersion = 14

  /// The version that added `replayGainsTable` and the tag gains' columns (`rg_*`).
  static let replayGainsVersion = 15

  /// The version whose full-text table keeps no columns (`detail = none`; `detail = column`
  /// before): no query filters by column, and writing the column lists was a fifth of
  /// SQLite's time in an index run. The migration copies the table's rows into a new one.
  static let fullTextDetailVersion = 16

  /// The version whose full-text words shelf folds and cuts itself (`SearchTextFolding`): the
  /// migration folds the words already stored, in Swift (`refoldFullText` of each engine).
  static let searchFoldingVersion = 17

  /// True when a catalogue of schema `version` migrates to the next one in `dialect`, by SQL
  /// (`upgrade(from:_:)`) or by the engine's refolding of the full text.
  static func migrates(from version: Int, _ dialect: SQLDialect) -> Bool {
    version + 1 == searchFoldingVersion || upgrade(from: version, dialect) != nil
  }

  /// SQLite's full-text table of tags and text, named `name`. It merges its segments 8 at a
  /// time rather than 4: an index run of /usr/share spent 5 % less CPU, for a few more
  /// segments for a word to be looked up in.
  static func fullTextTable(_ name: String) -> String {
    """
    CREATE VIRTUAL TABLE IF NOT EXISTS \(name) USING fts5(
      tags, body, tokenize = "unicode61 remove_diacritics 2", detail = none
    );
    INSERT INTO \(name)(\(name), rank) VALUES('automerge', 8)
    """
  }

  /// The migration to `fullTextDetailVersion` (SQLite; PostgreSQL has no such table).
  static let fullTextDetailUpgrade = """
    \(fullTextTable("files_fts_new"));
    INSERT INTO files_fts_new(rowid, tags, body) SELECT rowid, tags, body FROM files_fts;
    DROP TABLE files_fts;
    ALTER TABLE files_fts_new RENAME TO files_fts;
    """

  /// The ReplayGain values `shelf gain` measured (dB and linear true peaks), keyed as
  /// `content_hashes` is (device and inode) and valid while the file's size and times are those
  /// recorded: an unchanged file keeps them through rescans, a changed one loses them (its row
  /// no longer matches, and the next `shelf gain` replaces it). A file's own tags are facts of
  /// its entry (`files.rg_*`), not kept here.
  static func replayGainsTable(_ dialect: SQLDialect) -> String {
    let integer = ColumnType.integer.name(dialect)
    let real = ColumnType.real.name(dialect)
    return """
      CREATE TABLE IF NOT EXISTS replay_gains(
        device \(integer) NOT NULL, inode \(integer) NOT NULL, size \(integer) NOT NULL,
        mtime_ns \(integer) NOT NULL, ctime_ns \(integer) NOT NULL,
        track_gain \(real), track_peak \(real), album_gain \(real), album_peak \(real),
        PRIMARY KEY (device, inode)
      );
      """
  }

  /// The content hashes `dupes` and the `copies:` fields computed, keyed by the file's identity
  /// (device and inode: hard links share a row) and valid while its size and times are those
  /// recorded: a file changed since is hashed again, and its row replaced. `sample` is the
  /// XXH3-64 of the first and last 4 KiB, which settles most files of a shared size without
  /// reading them whole; `hash` (16 bytes, XXH3-128) is NULL until the whole file was read. A
  /// backup entry's row is keyed by its stored file (with the decrypted content's size).
  static func contentHashesTable(_ dialect: SQLDialect) -> String {
    let integer = ColumnType.integer.name(dialect)
    return """
      CREATE TABLE IF NOT EXISTS content_hashes(
        device \(integer) NOT NULL, inode \(integer) NOT NULL, size \(integer) NOT NULL,
        mtime_ns \(integer) NOT NULL, ctime_ns \(integer) NOT NULL,
        sample \(integer) NOT NULL, hash \(ColumnType.blob.name(dialect)),
        PRIMARY KEY (device, inode)
      );
      """
  }

  /// The entries whose Live Photo partner is still to be looked for, by root: every scan asks
  /// for them (a scan interrupted before linking leaves some), and without this small partial
  /// index the question read the whole table, the largest part of an unchanged rescan.
  static let livePhotoQueueIndex =
    "CREATE INDEX IF NOT EXISTS files_live_photo_queue ON files(root_id) WHERE content_id IS NOT NULL AND live_photo IS NULL;"

  /// The indexes queries are answered from (schema 10): a kind with its entries by size (the
  /// filter and the sort listings start from most); size and modification time (in SQLite,
  /// kind and size carry the path, so that the first entries in path order are found in the
  /// index alone; PostgreSQL has its own indexes for that since schema 13); the artist,
  /// the tag queried most; the totals of `stats` by kind and area, read from the index alone;
  /// and, for the substrings a bare word or a glob looks for in paths, trigrams (SQLite: an
  /// FTS5 `trigram` table over `files.path_text`, written with each new row and kept current
  /// by triggers on deletes and moves; PostgreSQL:
  /// `pg_trgm`, as for names, and the few paths that are not UTF-8, whose text form a glob
  /// cannot judge). Each costs inserts a little, which is why other fields have none.
  static func queryIndexes(_ dialect: SQLDialect) -> String {
    switch dialect {
    case .sqlite:
      """
      CREATE INDEX IF NOT EXISTS files_kind_size ON files(kind COLLATE NOCASE, size, path);
      CREATE INDEX IF NOT EXISTS files_size ON files(size, path);
      CREATE INDEX IF NOT EXISTS files_mtime ON files(mtime_ns);
      CREATE INDEX IF NOT EXISTS files_artist ON files(artist) WHERE artist IS NOT NULL;
      CREATE INDEX IF NOT EXISTS files_totals ON files(kind, area, size, duration, ext_mismatch, error, taken);
      \(livePhotoQueueIndex)
      CREATE VIRTUAL TABLE IF NOT EXISTS files_paths USING fts5(
        path_text, content = 'files', content_rowid = 'id', tokenize = 'trigram', detail = none
      );
      CREATE TRIGGER IF NOT EXISTS files_paths_delete AFTER DELETE ON files BEGIN
        INSERT INTO files_paths(files_paths, rowid, path_text) VALUES ('delete', old.id, old.path_text);
      END;
      CREATE TRIGGER IF NOT EXISTS files_paths_update AFTER UPDATE OF path_text ON files
        WHEN old.path_text IS NOT new.path_text BEGIN
        INSERT INTO files_paths(files_paths, rowid, path_text) VALUES ('delete', old.id, old.path_text);
        INSERT INTO files_paths(rowid, path_text) VALUES (new.id, new.path_text);
      END;
      """
    case .postgres:
      """
      CREATE INDEX IF NOT EXISTS files_kind_size ON files (lower(kind), size);
      \(postgresPathOrderIndexes)
      CREATE INDEX IF NOT EXISTS files_mtime ON files (mtime_ns);
      CREATE INDEX IF NOT EXISTS files_artist_trigrams ON files USING gin (artist gin_trgm_ops)
        WHERE artist IS NOT NULL;
      CREATE INDEX IF NOT EXISTS files_undecodable ON files (id) WHERE strpos(path_text, chr(65533)) > 0;
      \(livePhotoQueueIndex)
      """
    }
  }

  /// PostgreSQL's indexes of schema 13 (see `scanAndListingIndexesVersion`). A path is bounded by
  /// the B-tree entry limit already, through `UNIQUE (root_id, path)`.
  static let postgresPathOrderIndexes = """
    CREATE INDEX IF NOT EXISTS files_kind_path ON files (lower(kind), path);
    CREATE INDEX IF NOT EXISTS files_size_path ON files (size) INCLUDE (path, id);
    """

  static let drop = """
    DROP TABLE IF EXISTS replay_gains;
    DROP TABLE IF EXISTS content_hashes;
    DROP TABLE IF EXISTS files_paths;
    DROP TABLE IF EXISTS files_fts;
    DROP TABLE IF EXISTS files;
    DROP TABLE IF EXISTS roots;
    DROP TABLE IF EXISTS meta;
    """

  /// What an entry query selects: every field read back, or only those a listing shows
  /// (`listed`) or a comparison of contents reads (`compared`), by name (see `EntryColumns`).
  enum EntryReading: Sendable {
    case full, listing, comparison

    /// The fields read, in the order they are selected.
    var fields: [FactField] {
      switch self {
      case .full: FactField.readFields
      case .listing: Self.listedFields
      case .comparison: Self.comparedFields
      }
    }

    /// The columns of `fields`, in order.
    var columns: [FactField.Column] {
      switch self {
      case .full: Self.fullColumns
      case .listing: Self.listedColumns
      case .comparison: Self.comparedColumns
      }
    }

    private static let fullColumns = FactField.readFields.map { $0.column! }
    private static let listedColumns = listedFields.map { $0.column! }
    private static let comparedColumns = comparedFields.map { $0.column! }
    private static let listedFields = FactField.readFields.filter(\.listed)
    private static let comparedFields = FactField.readFields.filter(\.compared)
  }

  /// The columns an entry is read from, selected from `files f JOIN roots r`, in the order of
  /// `reading.fields` (see `CatalogStore.entry(from:_:)`).
  static func entryColumns(_ dialect: SQLDialect, _ reading: EntryReading = .full) -> String {
    reading.fields.map { $0.column!.selected(dialect) }.joined(separator: ", ")
  }

  /// The columns a `CatalogRoot` is read from, in the order of `RootColumn` (see
  /// `CatalogStore.root(from:)`).
  static func rootColumns(_ dialect: SQLDialect) -> String {
    RootColumn.allCases.map { $0 == .host && dialect == .sqlite ? "NULL" : $0.sql }.joined(separator: ", ")
  }

  /// The columns of `roots` a `CatalogRoot` is read from, by position in `rootColumns`; the
  /// host is recorded by PostgreSQL catalogues only.
  enum RootColumn: Int, SelectedColumn {
    case id, path, isSandbox, bundlePath, bundleID, bundleName, bundleVersion, lastScan, excludes
    case backupDevice, backupProduct, backupIOS, backupDate, backupEncrypted, backupFormat, host, parentID

    var sql: String {
      switch self {
      case .id: "id"
      case .path: "path"
      case .isSandbox: "is_sandbox"
      case .bundlePath: "bundle_path"
      case .bundleID: "bundle_id"
      case .bundleName: "bundle_name"
      case .bundleVersion: "bundle_version"
      case .lastScan: "last_scan_ns"
      case .excludes: "excludes"
      case .backupDevice: "backup_device"
      case .backupProduct: "backup_product"
      case .backupIOS: "backup_ios"
      case .backupDate: "backup_date"
      case .backupEncrypted: "backup_encrypted"
      case .backupFormat: "backup_format"
      case .host: "host"
      case .parentID: "parent_id"
      }
    }
  }

  // MARK: The files table, for both dialects

  /// A column's type, spelt per dialect (PostgreSQL's `integer` and `real` are too narrow).
  enum ColumnType {
    case integer, real, text, blob

    func name(_ dialect: SQLDialect) -> String {
      switch (self, dialect) {
      case (.integer, .sqlite): "INTEGER"
      case (.real, .sqlite): "REAL"
      case (.text, .sqlite): "TEXT"
      case (.blob, .sqlite): "BLOB"
      case (.integer, .postgres): "bigint"
      case (.real, .postgres): "double precision"
      case (.text, .postgres): "text"
      case (.blob, .postgres): "bytea"
      }
    }
  }

  /// One column of `files`, from its row of `FactField.table`.
  typealias Column = FactField.Column

  /// The columns of `files` after its `id`, in table order. Schema 7 (media facts: codec, bit
  /// rate, album artist, disc and totals, cover art; video facts) is the first whose migration
  /// is made from the list. Entries extracted before a migration keep NULLs until a rescan
  /// (the extractor version goes up with it).
  static var fileColumns: [Column] { FactField.fileColumns }

  /// `CREATE TABLE files(…)` in `dialect`. SQLite keeps the path unique in the whole
  /// catalogue (one machine); PostgreSQL per root, as machines may share paths.
  static func filesTable(_ dialect: SQLDialect) -> String {
    var lines =
      dialect == .sqlite
      ? ["id INTEGER PRIMARY KEY"] : ["id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"]
    for column in fileColumns {
      var line = "\(column.name) \(column.type.name(dialect))"
      if column.notNull { line += " NOT NULL" }
      if column.name == "root_id" { line += " REFERENCES roots(id) ON DELETE CASCADE" }
      if column.name == "path" && dialect == .sqlite { line += " UNIQUE" }
      lines.append(line)
    }
    if dialect == .postgres {
      // The words the search vector was made from, kept so that a copy can carry them.
      lines.append("search_text text")
      lines.append("search tsvector")
      lines.append("UNIQUE (root_id, path)")
    }
    return "CREATE TABLE IF NOT EXISTS files(\n  " + lines.joined(separator: ",\n  ") + "\n)"
  }

  /// The migration from schema `version` to the next, in `dialect`: the written-out SQLite
  /// steps for the oldest schemas, else the columns of `fileColumns` added by the next
  /// version. Nil when there is no step (an older SQLite schema is then rebuilt).
  static func upgrade(from version: Int, _ dialect: SQLDialect) -> String? {
    if dialect == .sqlite, let step = sqliteUpgrades[version] { return step }
    if version + 1 == fullTextDetailVersion {
      // PostgreSQL has no step: nil, as an empty statement is refused as a failure.
      return dialect == .sqlite ? fullTextDetailUpgrade : nil
    }
    if version + 1 == replayGainsVersion {
      return replayGainsTable(dialect) + "\n"
        + fileColumns.filter { $0.since == replayGainsVersion }.map {
          "ALTER TABLE files ADD COLUMN \($0.name) \($0.type.name(dialect));"
        }.joined(separator: "\n")
    }
    if version + 1 == contentHashesVersion { return contentHashesTable(dialect) }
    if version + 1 == scanAndListingIndexesVersion {
      // PostgreSQL's planner needs the new indexes' statistics.
      return dialect == .sqlite
        ? livePhotoQueueIndex
        : livePhotoQueueIndex + "\n" + postgresPathOrderIndexes
          + "\nDROP INDEX IF EXISTS files_size;\nANALYZE files;"
    }
    if version + 1 == explicitPathTrigramsVersion {
      // PostgreSQL has no step (no trigger): nil, as an empty statement is refused as a failure.
      return dialect == .sqlite ? "DROP TRIGGER IF EXISTS files_paths_insert;" : nil
    }
    if version + 1 == rootParentVersion {
      return "ALTER TABLE roots ADD COLUMN parent_id \(ColumnType.integer.name(dialect));"
    }
    if version + 1 == queryIndexesVersion {
      // SQLite fills the path trigram table from the rows already there; PostgreSQL learns
      // the distribution of `lower(kind)`, which only ANALYZE samples.
      return queryIndexes(dialect)
        + (dialect == .sqlite
          ? "\nINSERT INTO files_paths(files_paths) VALUES ('rebuild');" : "\nANALYZE files;")
    }
    let added = fileColumns.filter { $0.since == version + 1 }
    guard !added.isEmpty else { return nil }
    return added.map { "ALTER TABLE files ADD COLUMN \($0.name) \($0.type.name(dialect));" }.joined(
      separator: "\n")
  }

  /// The columns an upsert writes, in the order of `fileValues`.
  static let writtenFileColumns = fileColumns.filter { $0.writer != nil }.map(\.name)

  /// Where the path and its text are in `writtenFileColumns` (and `fileValues`).
  static let pathValueIndex = writtenFileColumns.firstIndex(of: "path")!
  static let pathTextValueIndex = writtenFileColumns.firstIndex(of: "path_text")!

  /// The columns an update of a known file writes: all but the path, its text and the root,
  /// which are what made it known (SQLite: changing none of them, the update needs no
  /// statement journal; see `SQLiteEngine.upsert`).
  static let updatedFileColumns = writtenFileColumns.filter { !unchangedByUpdate.contains($0) }
  private static let unchangedByUpdate: Set<String> = ["path", "path_text", "root_id"]

  /// The values of `updatedFileColumns`, from the values of `writtenFileColumns`.
  static func updatedValues(_ values: [DatabaseValue]) -> [DatabaseValue] {
    zip(writtenFileColumns, values).compactMap { unchangedByUpdate.contains($0.0) ? nil : $0.1 }
  }

  /// The writers of `writtenFileColumns`, in order.
  private static let fileWriters = fileColumns.compactMap(\.writer)

  /// The values of `entry`'s row, in the order of `writtenFileColumns`.
  static func fileValues(_ entry: CatalogEntry, rootID: Int64, trusted: Bool) -> [DatabaseValue] {
    let row = FactField.FileRowContext(rootID: rootID, trusted: trusted)
    return fileWriters.map { $0.write(entry, row) }
  }
}

/// The SQL dialect a query or a table is written in.
package enum SQLDialect: Sendable {
  case sqlite, postgres
}
