public import ShelfCore

/// The folders one `shelf index` run scans: those named, else every catalogued root of this
/// machine once (a backup found in a root with that root). A catalogued root whose folder is
/// gone is skipped (its entries stay) or, when pruning, forgotten. The choice lives here so
/// that the command line only says what was skipped or forgotten.
package struct IndexRoots: Sendable, Equatable {
  /// The folders to scan, in order (for `IndexRun.run`).
  package var scan: [RawPath] = []
  /// Catalogued roots whose folder is gone, left out of the run with their entries kept (none
  /// when pruning).
  package var skippedGone: [CatalogRoot] = []

  /// Why there is nothing to choose from.
  package enum Failure: Error, Equatable {
    /// No folder was named and the catalogue holds no root of this machine.
    case noRoots
  }

  /// Chooses from `named` (empty: every catalogued root) in `store`; with `prune`, each gone
  /// root (among those named, or of all) is forgotten now, and `forgotten` told of it and of
  /// every root that went with it, as each goes.
  package static func choose(
    named: [RawPath], prune: Bool, in store: CatalogStore, forgotten: (ForgottenRoot) -> Void
  ) throws -> IndexRoots {
    var gone: [CatalogRoot] = []
    var roots = named
    if roots.isEmpty {
      let known = try store.localRoots()
      if known.isEmpty { throw Failure.noRoots }
      gone = known.filter(\.folderIsGone)
      // A backup found in a root is scanned with it (unless that root's folder is gone).
      let scannedWithParent = Set(known.filter { !$0.folderIsGone }.map(\.id))
      for root in known where !root.folderIsGone {
        if let parent = root.parentID, scannedWithParent.contains(parent) { continue }
        roots.append(root.path)
      }
    } else if prune {
      for path in roots {
        if let root = try store.root(at: path), root.folderIsGone { gone.append(root) }
      }
      roots.removeAll { path in gone.contains { $0.path == path.absolute } }
    }
    guard prune else { return IndexRoots(scan: roots, skippedGone: gone) }
    for root in gone {
      for dropped in try store.forgetRoot(root.path) { forgotten(dropped) }
    }
    return IndexRoots(scan: roots)
  }
}
