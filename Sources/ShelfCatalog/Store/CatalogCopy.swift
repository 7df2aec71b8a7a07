import ShelfCore

/// Copies a whole catalogue into another store: SQLite into a shared PostgreSQL catalogue to
/// move to a server, and back for a backup. Streams the entries (never all in memory),
/// commits at least every second, and checks the count at the end.
public enum CatalogCopy {
  /// Copies every root and entry of `source` into the catalogue at `location`, which must be
  /// missing or hold nothing yet (`.notEmpty`, told through a read-only look, so a refused
  /// catalogue is not changed at all), and returns the number of entries. `progress`
  /// receives (copied, total) about every thousand entries. A SQLite destination takes one
  /// machine's roots only (`.severalHosts`). Each entry keeps whether its timestamps are
  /// trusted, so the next scan reads again exactly what it would have read in the source.
  public static func copy(
    from source: CatalogStore, to location: CatalogLocation, shelfVersion: String,
    progress: (Int, Int) -> Void = { _, _ in }
  ) throws -> Int {
    do {
      let existing = try CatalogStore.openForReading(at: location, shelfVersion: shelfVersion)
      if try existing.fileCount() > 0 || !existing.roots().isEmpty {
        throw CatalogError(path: location.errorPath, reason: .notEmpty)
      }
    } catch let error as CatalogError where error.reason == .noCatalogue {}
    let roots = try source.roots()
    if case .file = location, Set(roots.map(\.host)).count > 1 {
      throw CatalogError(path: location.errorPath, reason: .severalHosts)
    }
    let destination = try CatalogStore.openForWriting(at: location, shelfVersion: shelfVersion)
    guard try destination.fileCount() == 0, try destination.roots().isEmpty else {
      throw CatalogError(path: location.errorPath, reason: .notEmpty)
    }
    let total = try source.fileCount()
    progress(0, total)
    var rootIDs: [RootKey: Int64] = [:]
    defer { destination.rollbackPending() }
    try destination.transaction(continuing: true) {
      var copiedIDs: [Int64: Int64] = [:]
      for root in roots {
        let id = try destination.addRoot(root)
        rootIDs[RootKey(host: root.host, path: root.path)] = id
        copiedIDs[root.id] = id
      }
      // The roots found in others (backups) stay listed under them.
      for root in roots {
        guard let parent = root.parentID.flatMap({ copiedIDs[$0] }), let id = copiedIDs[root.id] else {
          continue
        }
        try destination.setParent(rootID: id, parentID: parent)
      }
    }
    var copied = 0
    var lastCommit = MonotonicClock.seconds()
    try source.forEachEntryForCopy { entry, trusted in
      guard let root = entry.root, let rootID = rootIDs[RootKey(host: entry.host, path: root)] else { return }
      try destination.transaction(continuing: true) {
        try destination.upsert(entry, rootID: rootID, trusted: trusted, isNew: true)
      }
      copied += 1
      if copied % 1000 == 0 {
        progress(copied, total)
        if MonotonicClock.seconds() - lastCommit >= 1 {
          try destination.commitPending()
          lastCommit = MonotonicClock.seconds()
        }
      }
    }
    // Live Photo links are made from the copied content identifiers, as a scan makes them.
    for rootID in rootIDs.values {
      try destination.transaction(continuing: true) {
        try destination.linkLivePhotos(
          inFolders: try destination.foldersAwaitingLivePhotoLinks(rootID: rootID))
      }
    }
    try destination.commitPending()
    try destination.refreshPlannerStatistics()
    progress(copied, total)
    let found = try destination.fileCount()
    guard found == total else {
      throw CatalogError(
        path: destination.location.errorPath, reason: .countMismatch(expected: total, found: found))
    }
    return found
  }

  /// A root's identity across stores: its host (nil in SQLite) and path.
  private struct RootKey: Hashable {
    var host: String?
    var path: RawPath
  }
}
