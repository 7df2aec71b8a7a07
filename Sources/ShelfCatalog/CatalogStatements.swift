import ShelfCore
import ShelfSQLite

/// A connection to either catalogue engine, as far as the statements both engines share need
/// it: the SQL below is written once, in the dialect SQLite and PostgreSQL both accept, so the
/// two stores cannot drift apart on what a root or file update means.
protocol CatalogConnection {
  func run(_ sql: String, _ parameters: [DatabaseValue]) throws
}

extension SQLiteConnection: CatalogConnection {}
extension PostgresConnection: CatalogConnection {}

extension CatalogConnection {
  /// Replaces the exclude patterns stored with a root (empty patterns are dropped; none left
  /// clears them).
  func setExcludes(rootID: Int64, patterns: [String]) throws {
    let kept = patterns.filter { !$0.isEmpty }
    try run(
      "UPDATE roots SET excludes = ? WHERE id = ?",
      [kept.isEmpty ? .null : .text(ExcludeRules.storedText(kept)), .integer(rootID)])
  }

  /// Records what a scan learnt about a root.
  func updateRoot(id: Int64, layout: SandboxLayout, bundle: BundleInfo?, scannedAt: Int64?) throws {
    try run(
      "UPDATE roots SET is_sandbox = ?, bundle_path = ?, bundle_id = ?, bundle_name = ?, bundle_version = ?, last_scan_ns = coalesce(?, last_scan_ns) WHERE id = ?",
      [
        .from(layout.isSandbox), bundle.map { .blob($0.bundlePath.bytes) } ?? .null,
        .from(bundle?.identifier),
        .from(bundle?.name), .from(bundle?.version), .from(scannedAt), .integer(id),
      ])
  }

  /// Records what a backup root is (device, iOS version, date, encryption, era).
  func updateBackupRoot(id: Int64, facts: BackupRootFacts) throws {
    try run(
      "UPDATE roots SET backup_device = ?, backup_product = ?, backup_ios = ?, backup_date = ?, backup_encrypted = ?, backup_format = ? WHERE id = ?",
      [
        .from(facts.deviceName), .from(facts.productType), .from(facts.iosVersion), .from(facts.date),
        .from(facts.isEncrypted), .text(facts.format), .integer(id),
      ])
  }

  /// Moves the entries of root `inner` to root `outer` and forgets `inner` (a new root that
  /// contains it takes it over).
  func mergeRoot(_ inner: Int64, into outer: Int64) throws {
    try run("UPDATE files SET root_id = ? WHERE root_id = ?", [.integer(outer), .integer(inner)])
    try run("DELETE FROM roots WHERE id = ?", [.integer(inner)])
  }

  /// Records that a file moved (same inode and size): new path and status, facts kept.
  func moveFile(id: Int64, to path: RawPath, area: String, status: FileStatus, trusted: Bool) throws {
    let name = String(decoding: path.lastComponent.bytes, as: UTF8.self)
    let pathText = String(decoding: path.bytes, as: UTF8.self)
    try run(
      "UPDATE files SET path = ?, path_text = ?, name = ?, ext = ?, area = ?, mtime_ns = ?, ctime_ns = ?, trusted = ? WHERE id = ?",
      [
        .blob(path.bytes), .text(pathText), .text(name), .text(path.lowercasedExtension), .text(area),
        .integer(status.mtimeNanoseconds), .integer(status.ctimeNanoseconds), .from(trusted), .integer(id),
      ])
  }

  /// Links a Live Photo's still and movie (nil clears the link).
  func setLivePhoto(id: Int64, partner: [UInt8]?) throws {
    try run(
      "UPDATE files SET live_photo = ?, live_photo_text = ? WHERE id = ?",
      [
        partner.map { .blob($0) } ?? .null,
        partner.map { .text(String(decoding: $0, as: UTF8.self)) } ?? .null,
        .integer(id),
      ])
  }
}
