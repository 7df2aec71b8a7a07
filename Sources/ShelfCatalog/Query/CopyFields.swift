import ShelfCore

/// The query fields that compare contents: `copies` (how many other catalogued files have
/// the same content) and `copy-in:FOLDER` (one of them lies under FOLDER). Their answers come
/// from content hashes, computed as `dupes` computes them, into two temporary tables of the
/// reading connection (`copy_facts`, `copy_in`), which the query's SQL then reads: the
/// catalogue itself is not written for them.
extension CatalogQuery {
  /// The fields whose answers come from comparing contents, not from an entry's row.
  public static let contentComparisonFields: Set<String> = ["copies", "copy-in"]

  /// True when a term names `copies` or `copy-in`: the store must `prepareCopyFields` first.
  public var namesCopyFields: Bool { !copyTerms.isEmpty }

  /// The folders the `copy-in` terms name, as their SQL compares them.
  var copyFolders: [RawPath] {
    copyTerms.compactMap { $0.name == "copy-in" ? Self.copyFolder($0.value) : nil }
  }

  private var copyTerms: [(name: String, value: String)] {
    groups.flatMap(\.alternatives).compactMap { term in
      guard case .field(let name, _, let value) = term, name == "copies" || name == "copy-in" else {
        return nil
      }
      return (name, value)
    }
  }

  /// A `copy-in` value as a folder: absolute, without a trailing slash.
  static func copyFolder(_ value: String) -> RawPath {
    var bytes = RawPath(value).absolute.bytes
    while bytes.count > 1 && bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
    return RawPath(bytes: bytes)
  }
}

extension CatalogStore {
  /// Computes what the `copies` and `copy-in` terms of `query` compare: every catalogued file
  /// of this machine whose size is shared is compared by content (`DuplicateFinder`, empty
  /// files left out, as `dupes` leaves them), and the answers go into temporary tables the
  /// query's SQL reads. Returns the search's report (what it skipped, the digests to keep),
  /// or nil when the query names neither field.
  public func prepareCopyFields(for query: CatalogQuery, backups: BackupEntryResolver, width: Int = 2)
    async throws
    -> DuplicateReport?
  {
    guard query.namesCopyFields else { return nil }
    writeQueuedRowsBeforeReading()
    try checkCopyFolders(query.copyFolders)
    var settings = DuplicateSettings()
    settings.width = width
    let report = try await DuplicateFinder(store: self, backups: backups).find(
      matching: .all, settings: settings)
    var ids: [PathKey: Int64] = [:]
    for file in report.searched { ids[PathKey(file.path.bytes)] = file.id }

    var copies: [(Int64, Int)] = []
    var copyIn: [(RawPath, Int64)] = []
    let folders = query.copyFolders
    for group in report.groups {
      let names = group.members.map { [$0.file.path] + $0.otherNames }
      for (index, memberNames) in names.enumerated() {
        let memberIDs = memberNames.compactMap { ids[PathKey($0.bytes)] }
        copies += memberIDs.map { ($0, group.members.count - 1) }
        for folder in folders {
          let elsewhere = names.indices.contains { other in
            other != index && names[other].contains { $0.isInside(folder) }
          }
          if elsewhere { copyIn += memberIDs.map { (folder, $0) } }
        }
      }
    }
    try fillCopyTables(copies: copies, copyIn: copyIn)
    return report
  }

  /// Refuses a `copy-in` folder that is neither a folder on disk nor one the catalogue holds
  /// files under (a typo, a folder never indexed): no file has a copy there, so
  /// `-copy-in:FOLDER` would list every file and `copy-in:FOLDER` none, without a word.
  /// A folder of backup entries exists only in the catalogue, and counts.
  private func checkCopyFolders(_ folders: [RawPath]) throws {
    for folder in folders {
      if let status = try? FileStatus.stat(folder) {
        guard status.type == .directory else {
          throw QueryError(message: "copy-in:\(folder.escaped): not a folder")
        }
        continue
      }
      let bounds = folder.descendantBounds
      let held = try connection.query(
        "SELECT 1 FROM files WHERE path >= ? AND path < ? LIMIT 1",
        [.blob(bounds.lower), .blob(bounds.upper)]
      ) { _ in true }
      guard held.isEmpty else { continue }
      throw QueryError(message: "copy-in:\(folder.escaped): no such folder, on disk or in the catalogue")
    }
  }

  /// Creates and fills the temporary `copy_facts` and `copy_in` tables, in a transaction that
  /// may write (a PostgreSQL reader's transactions are read-only by default; temporary tables
  /// are the connection's own).
  private func fillCopyTables(copies: [(Int64, Int)], copyIn: [(RawPath, Int64)]) throws {
    let (integer, blob) = (
      CatalogSchema.ColumnType.integer.name(dialect), CatalogSchema.ColumnType.blob.name(dialect)
    )
    try connection.execute(dialect.beginWriting)
    do {
      try connection.execute(
        """
        CREATE TEMP TABLE IF NOT EXISTS copy_facts(id \(integer) PRIMARY KEY, copies \(integer) NOT NULL);
        CREATE TEMP TABLE IF NOT EXISTS copy_in(folder \(blob) NOT NULL, id \(integer) NOT NULL);
        DELETE FROM copy_facts;
        DELETE FROM copy_in;
        """)
      for (id, count) in copies {
        try connection.run(
          "INSERT INTO copy_facts(id, copies) VALUES(?, ?)", [.integer(id), .integer(Int64(count))])
      }
      for (folder, id) in copyIn {
        try connection.run(
          "INSERT INTO copy_in(folder, id) VALUES(?, ?)", [.blob(folder.bytes), .integer(id)])
      }
      try connection.execute("COMMIT")
    } catch {
      try? connection.execute("ROLLBACK")
      throw error
    }
  }
}
