public import ShelfBackup
public import ShelfCore
public import ShelfFacts
public import ShelfWorkers

extension CatalogEntry {
  /// The entry of a file read live rather than from the catalogue (`info` on a file not
  /// catalogued, or changed since): inside one of the catalogued `roots` (found by its
  /// `resolved` path), its area follows that root's sandbox layout, as the indexer would
  /// record it; elsewhere it is `other`. It names no root.
  public init(live path: RawPath, resolved: RawPath, read: ReadFacts, roots: [CatalogRoot]) {
    var area = CatalogArea.other
    if let (root, relative) = CatalogRoot.innermost(holding: resolved, in: roots) {
      area = SandboxLayout.detect(root: root.path).area(of: relative)
    }
    self.init(path: path, root: nil, area: area, status: read.status, facts: read.facts)
  }

  /// The entry of a file of an iPhone backup, catalogued at `path` under the backup's root
  /// (nil for a live look): its area from its domain, its size and time from the manifest,
  /// and the facts of its content, or why they could not be read (its kind then guessed from
  /// its name).
  public init(
    backupFile file: BackupEntry, path: RawPath, root: RawPath?, facts: Result<FileFacts, FileFactsError>
  ) {
    let area = BackupLayout.area(domain: file.domain, relativePath: file.relativePath.bytes)
    let backup = BackupFacts(
      domain: file.domain, app: file.app, fileID: file.fileID, protectionClass: file.protectionClass,
      mode: file.mode)
    switch facts {
    case .success(let facts):
      self.init(
        path: path, root: root, area: area, size: file.size, mtimeNanoseconds: file.modified, facts: facts,
        backup: backup)
    case .failure(let error):
      self.init(
        unreadable: path, root: root, area: area, size: file.size, mtimeNanoseconds: file.modified,
        error: error, backup: backup)
    }
  }
}

extension BackupEntryResolver {
  /// The entry of the backup file catalogued at `path` (`BACKUP/DOMAIN/relativePath`), as the
  /// indexer records it: the catalogue's when `store` has it (nothing is read, `catalogued`),
  /// else from its content read (and decrypted) from the backup into a private file in
  /// `temporaryFolder`, its facts read in one of `extractors`' workers. Nil when `path` names
  /// no backup entry; throws the backup's errors (a wrong password, a missing stored file).
  public func entry(
    describing path: RawPath, store: CatalogStore?, temporaryFolder: RawPath, extractors: ExtractorPool? = nil
  ) throws -> (entry: CatalogEntry, catalogued: Bool)? {
    guard let (_, cataloguePath) = Self.locate(path) else { return nil }
    if let store, let entry = try? store.entry(path: cataloguePath) { return (entry, true) }
    guard let (file, spooled) = try spool(path, temporaryFolder: temporaryFolder) else { return nil }
    let facts = try MetadataExtractor.extract(
      RegularFile(path: spooled.path), fileExtension: file.relativePath.lowercasedExtension, in: extractors)
    return (CatalogEntry(backupFile: file, path: cataloguePath, root: nil, facts: .success(facts)), false)
  }
}

extension CatalogRoot {
  /// The innermost of `roots` that holds `path` (absolute and resolved), with the path's bytes
  /// relative to it; nil when none does.
  public static func innermost(holding path: RawPath, in roots: [CatalogRoot]) -> (
    root: CatalogRoot, relative: [UInt8]
  )? {
    guard
      let root = roots.filter({ path.bytes.starts(with: $0.path.bytes + [UInt8(ascii: "/")]) })
        .max(by: { $0.path.bytes.count < $1.path.bytes.count })
    else { return nil }
    return (root, Array(path.bytes.dropFirst(root.path.bytes.count + 1)))
  }
}
