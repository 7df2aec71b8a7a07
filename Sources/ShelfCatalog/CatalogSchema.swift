/// The catalogue's tables. Besides the path's, there are no indexes: queries use LIKE and
/// ranges a full scan answers in milliseconds, and each index would slow every insert.
/// One wide `files` row per file keeps queries simple and fast; audio
/// tags, plist keys and the beginning of text files also go into an FTS5 index whose rowid is
/// the file's id (names and paths are matched with LIKE, which finds any substring). The index
/// keeps no token positions (`detail = column`): bare words are matched as prefixes, ANDed,
/// which is what `ls WORD…` needs, at about half the cost of a full index.
enum CatalogSchema {
  /// Bumped on every schema change; writers migrate older catalogues (see `upgrades`).
  static let version = 8

  /// The first schema that carries `applicationID` and the `meta` table; older ones are
  /// recognised by their tables.
  static let firstIdentifiedVersion = 5

  /// Written to the SQLite header (`PRAGMA application_id`, "SHLF"): it tells a shelf
  /// catalogue from any other SQLite database without reading its tables.
  static let applicationID: UInt32 = 0x5348_4C46

  /// Key of the `meta` row naming the shelf version that last wrote the catalogue. The `meta`
  /// table keeps this shape in every later schema, so an older shelf can name the newer one.
  static let writerVersionKey = "shelf_version"

  /// Migrations from schema `N` to `N + 1`, keyed by `N`. Schemas older than the first key
  /// are rebuilt (roots kept).
  static let upgrades: [Int: String] = [
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
    // Media facts: codec, bit rate, album artist, disc and totals, cover art; video facts.
    // Entries extracted before keep NULLs until a rescan (the extractor version went up).
    6: """
    ALTER TABLE files ADD COLUMN codec TEXT;
    ALTER TABLE files ADD COLUMN bitrate INTEGER;
    ALTER TABLE files ADD COLUMN album_artist TEXT;
    ALTER TABLE files ADD COLUMN disc INTEGER;
    ALTER TABLE files ADD COLUMN disc_total INTEGER;
    ALTER TABLE files ADD COLUMN track_total INTEGER;
    ALTER TABLE files ADD COLUMN artwork INTEGER;
    ALTER TABLE files ADD COLUMN frame_rate REAL;
    ALTER TABLE files ADD COLUMN rotation INTEGER;
    ALTER TABLE files ADD COLUMN audio_codec TEXT;
    ALTER TABLE files ADD COLUMN taken TEXT;
    """,
    // EXIF facts of photos (`taken` is shared with videos) and Live Photo pairs.
    7: """
    ALTER TABLE files ADD COLUMN camera TEXT;
    ALTER TABLE files ADD COLUMN lens TEXT;
    ALTER TABLE files ADD COLUMN orientation INTEGER;
    ALTER TABLE files ADD COLUMN gps_lat REAL;
    ALTER TABLE files ADD COLUMN gps_lon REAL;
    ALTER TABLE files ADD COLUMN gps_alt REAL;
    ALTER TABLE files ADD COLUMN software TEXT;
    ALTER TABLE files ADD COLUMN content_id TEXT;
    ALTER TABLE files ADD COLUMN live_photo BLOB;
    ALTER TABLE files ADD COLUMN live_photo_text TEXT;
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
      backup_encrypted INTEGER, backup_format TEXT
    );
    CREATE TABLE IF NOT EXISTS files(
      id INTEGER PRIMARY KEY,
      root_id INTEGER NOT NULL REFERENCES roots(id) ON DELETE CASCADE,
      path BLOB NOT NULL UNIQUE,
      path_text TEXT NOT NULL,
      name TEXT NOT NULL,
      ext TEXT NOT NULL,
      area TEXT NOT NULL,
      kind TEXT NOT NULL,
      mime TEXT NOT NULL,
      detected_by TEXT NOT NULL,
      ext_mismatch INTEGER NOT NULL,
      size INTEGER NOT NULL,
      mtime_ns INTEGER NOT NULL,
      ctime_ns INTEGER NOT NULL,
      inode INTEGER NOT NULL,
      device INTEGER NOT NULL,
      trusted INTEGER NOT NULL,
      extractor_version INTEGER NOT NULL,
      error TEXT,
      width INTEGER, height INTEGER, bit_depth INTEGER, color_type TEXT, alpha INTEGER,
      interlaced INTEGER, cgbi INTEGER, frames INTEGER, image_format TEXT, chunks TEXT,
      duration REAL, sample_rate INTEGER, channels INTEGER, audio_frames INTEGER, format TEXT,
      subtype TEXT, title TEXT, artist TEXT, album TEXT, date TEXT, year INTEGER, track TEXT,
      track_no INTEGER, genre TEXT, comment TEXT,
      encoding TEXT, bom INTEGER, line_endings TEXT, lines INTEGER, words INTEGER, chars INTEGER,
      first_line TEXT,
      plist_format TEXT, plist_root TEXT, plist_keys TEXT,
      backup_domain TEXT, backup_app TEXT, backup_file_id TEXT, backup_protection INTEGER,
      backup_mode INTEGER,
      codec TEXT, bitrate INTEGER, album_artist TEXT, disc INTEGER, disc_total INTEGER,
      track_total INTEGER, artwork INTEGER, frame_rate REAL, rotation INTEGER, audio_codec TEXT,
      taken TEXT,
      camera TEXT, lens TEXT, orientation INTEGER, gps_lat REAL, gps_lon REAL, gps_alt REAL, software TEXT,
      content_id TEXT, live_photo BLOB, live_photo_text TEXT
    );
    CREATE VIRTUAL TABLE IF NOT EXISTS files_fts USING fts5(
      tags, body, tokenize = "unicode61 remove_diacritics 2", detail = column
    );
    """

  static let drop = """
    DROP TABLE IF EXISTS files_fts;
    DROP TABLE IF EXISTS files;
    DROP TABLE IF EXISTS roots;
    DROP TABLE IF EXISTS meta;
    """

  /// The columns a `CatalogEntry` is read from, in order (see `CatalogStore.entry(from:)`).
  static let entryColumns = """
    f.path, r.path, f.area, f.kind, f.mime, f.detected_by, f.ext_mismatch, f.size, f.mtime_ns,
    f.ctime_ns, f.inode, f.device, f.error, f.extractor_version,
    f.width, f.height, f.bit_depth, f.color_type, f.alpha, f.interlaced, f.cgbi, f.frames,
    f.image_format, f.chunks,
    f.duration, f.sample_rate, f.channels, f.audio_frames, f.format, f.subtype, f.title, f.artist,
    f.album, f.date, f.track, f.genre, f.comment,
    f.encoding, f.bom, f.line_endings, f.lines, f.words, f.chars, f.first_line,
    f.plist_format, f.plist_root, f.plist_keys,
    f.backup_domain, f.backup_app, f.backup_file_id, f.backup_protection, f.backup_mode,
    f.codec, f.bitrate, f.album_artist, f.disc, f.disc_total, f.track_total, f.artwork, f.frame_rate,
    f.rotation, f.audio_codec, f.taken,
    f.camera, f.lens, f.orientation, f.gps_lat, f.gps_lon, f.gps_alt, f.software, f.content_id, f.live_photo
    """
}
