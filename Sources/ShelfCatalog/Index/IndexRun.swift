import ShelfCore

/// One `shelf index` run over a list of roots: each folder scanned once (a backup scanned with
/// the folder it was found in is not scanned again when it is named too), and a catalogue that
/// SQLite finds damaged part way moved aside, started afresh and every root it knew scanned
/// again, once a run. The policy lives here so that the command line only presents what
/// happened, as it happens.
package struct IndexRun {
  /// What happened, reported while the run goes on (summaries print as each root ends).
  package enum Event {
    /// A root was scanned; its summary holds the backups found in it.
    case scanned(RootScanSummary)
    /// A root could not be scanned; the run goes on with the next unless the handler throws.
    case failed(root: RawPath, error: any Error)
    /// The catalogue was damaged and has been rebuilt as `CatalogStore` (its
    /// `movedAsideCorruptFile` says where the damaged file went): what was reported before
    /// is void, and every root is scanned again.
    case rebuilt(CatalogStore)
  }

  /// The catalogue written to: after a rebuild, the fresh one.
  package private(set) var store: CatalogStore
  /// How each root is scanned.
  package var options: IndexOptions
  /// Recorded as the writer of a rebuilt catalogue.
  package let shelfVersion: String

  package init(store: CatalogStore, options: IndexOptions, shelfVersion: String) {
    self.store = store
    self.options = options
    self.shelfVersion = shelfVersion
  }

  /// Scans `roots` in order, reporting each outcome to `report` (an error it throws ends the
  /// run) and each scan's progress to `progress`.
  package mutating func run(
    _ roots: [RawPath], progress: (IndexProgress) -> Void, report: (Event) throws -> Void
  ) async throws {
    var rebuilt = false
    var pending = roots[...]
    var scanned = Set<RawPath>()
    while let root = pending.first {
      if let resolved = try? TreeWalker.realPath(root.absolute),
        scanned.contains(resolved) || options.failedThisRun.contains(resolved)
      {
        pending = pending.dropFirst()
        continue
      }
      let summary: RootScanSummary
      do {
        summary = try await Indexer(store: store, options: options).index(root: root, progress: progress)
      } catch let error where store.isDamage(error) && !rebuilt {
        // Damage found part way: the roots it knew are read while it can still be read.
        rebuilt = true
        let known = (try? store.roots().filter { $0.parentID == nil }.map(\.path)) ?? []
        store = try store.movingAsideAndRebuilding(shelfVersion: shelfVersion)
        try report(.rebuilt(store))
        scanned = []
        var all = roots
        for path in known where !all.contains(path) { all.append(path) }
        pending = all[...]
        continue
      } catch {
        if let resolved = try? TreeWalker.realPath(root.absolute) { options.failedThisRun.insert(resolved) }
        try report(.failed(root: root, error: error))
        pending = pending.dropFirst()
        continue
      }
      scanned.insert(summary.root)
      for nested in summary.nested { scanned.insert(nested.folder) }
      try report(.scanned(summary))
      pending = pending.dropFirst()
    }
  }
}
