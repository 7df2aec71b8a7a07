import ShelfCore

/// Copies a whole catalogue into another store: SQLite into a shared PostgreSQL catalogue to
/// move to a server, and back for a backup. Streams the entries (never all in memory),
/// commits at least every second, and checks the count at the end.
public enum CatalogCopy {
  /// Copies every root and entry of `source` into `destination`, which must hold nothing yet
  /// (`.notEmpty`), and returns the number of entries. `progress` receives (copied, total)
  /// about every thousand entries. A SQLite destination takes one machine's roots only
  /// (`.severalHosts`). Entries read again on the next scan are those whose timestamps were
  /// too fresh to trust when their root was last scanned.
  public static func copy(
    from source: CatalogStore, to destination: CatalogStore, progress: (Int, Int) -> Void = { _, _ in }
  ) throws -> Int {
    let target = destination.backend
    guard try target.fileCount() == 0, try target.roots().isEmpty else {
      throw CatalogError(path: destination.location.errorPath, reason: .notEmpty)
    }
    let roots = try source.roots()
    if case .file = destination.location, Set(roots.map(\.host)).count > 1 {
      throw CatalogError(path: destination.location.errorPath, reason: .severalHosts)
    }
    let total = try source.backend.fileCount()
    progress(0, total)
    var rootIDs: [RootKey: (id: Int64, trustedBefore: Int64)] = [:]
    defer { target.rollbackPending() }
    try target.transaction(continuing: true) {
      for root in roots {
        let id = try target.addRoot(root)
        // As a scan trusts timestamps older than its start less a margin (IndexOptions).
        let trustedBefore = (root.lastScanNanoseconds ?? 0) - Int64(IndexOptions().recentWindow * 1e9)
        rootIDs[RootKey(host: root.host, path: root.path)] = (id, trustedBefore)
      }
    }
    var copied = 0
    var lastCommit = MonotonicClock.seconds()
    try source.backend.forEachEntryWithSearchText { entry, searchText in
      guard let root = entry.root, let target = rootIDs[RootKey(host: entry.host, path: root)] else { return }
      let trusted = entry.mtimeNanoseconds < target.trustedBefore && entry.ctimeNanoseconds < target.trustedBefore
      try destination.transaction(continuing: true) {
        try destination.upsert(entry, rootID: target.id, trusted: trusted, searchText: searchText, isNew: true)
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
    try destination.commitPending()
    progress(copied, total)
    let found = try target.fileCount()
    guard found == total else {
      throw CatalogError(path: destination.location.errorPath, reason: .countMismatch(expected: total, found: found))
    }
    return found
  }

  /// A root's identity across stores: its host (nil in SQLite) and path.
  private struct RootKey: Hashable {
    var host: String?
    var path: RawPath
  }

  /// Records the rest of what a copied root is, in the store that just added it as `id`.
  static func describe(_ root: CatalogRoot, as id: Int64, in store: any CatalogBackend) throws {
    try store.updateRoot(
      id: id, layout: SandboxLayout(isSandbox: root.isSandbox, bundleName: nil), bundle: root.bundle,
      scannedAt: root.lastScanNanoseconds)
    try store.setExcludes(rootID: id, patterns: root.excludes)
    if let backup = root.backup { try store.updateBackupRoot(id: id, facts: backup) }
  }
}
