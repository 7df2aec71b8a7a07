import ShelfBackup
import ShelfCore
import ShelfFacts
import ShelfWorkers

#if canImport(Glibc)
  import Glibc
#endif

extension BackupRootFacts {
  /// The facts a backup's Info.plist, Manifest.plist and Status.plist give.
  init(_ info: BackupInfo) {
    self.init(
      deviceName: info.deviceName, productType: info.productType, iosVersion: info.iosVersion,
      date: info.date,
      isEncrypted: info.isEncrypted, format: info.format)
  }
}

extension Indexer {
  /// Catalogues an iPhone backup by the real names of its files: each file entry becomes
  /// `BACKUP/DOMAIN/relativePath`, its kind and facts read from its content: a plain stored
  /// file in place, an encrypted one decrypted into a private file with no name (in memory up
  /// to `options.inMemorySpoolLimit`, else in the temporary folder, so a long video does not
  /// fill the memory). Entries whose size and time the catalogue already has are
  /// not read again; entries gone from the manifest leave. Rows the manifest cannot give and
  /// files that cannot be read are the summary's `problems`; the rest is catalogued. A backup
  /// found inside the root `parentID` is recorded as found there (nil keeps what is recorded).
  func indexBackup(_ root: RawPath, parentID: Int64?, progress: (IndexProgress) -> Void) async throws
    -> RootScanSummary
  {
    let folder = try TreeWalker.realPath(root.absolute)
    let backup = try Backup.open(folder, password: options.backupPassword)
    let start = CatalogQuery.currentTime()
    var summary = RootScanSummary(root: folder)
    let facts = BackupRootFacts(backup.info)
    summary.backup = facts
    try store.lockRoot(folder, wait: options.lockWait)
    let rootID = try store.transaction {
      let id = try store.rootID(for: folder)
      try store.updateRoot(
        id: id, layout: SandboxLayout(isSandbox: false, bundleName: nil), bundle: nil, scannedAt: nil)
      try store.updateBackupRoot(id: id, facts: facts)
      if let parentID { try store.setParent(rootID: id, parentID: parentID) }
      return id
    }
    progress(IndexProgress(root: folder, phase: .walking, done: 0, total: 0))
    let listed = await BlockingThread.run { Result { try backup.entries() } }
    let (entries, problems) = try listed.get()
    summary.problems = problems.map { WalkProblem(path: $0.path, reason: $0.explanation) }
    let files = entries.filter { $0.type == .file }
    summary.walk.skippedLinks = entries.count { $0.type == .symlink }
    summary.files = files.count

    let known = try store.knownFiles(rootID: rootID, rootPath: folder)
    var met = [Bool](repeating: false, count: known.count)
    var work: [(entry: BackupEntry, knownID: Int64?)] = []
    for entry in files {
      let path = entry.cataloguePath(in: folder)
      guard let index = known.index(of: path.bytes), !met[index] else {
        work.append((entry, nil))
        continue
      }
      met[index] = true
      let old = known.entry(at: index)
      if !options.full && old.size == entry.size && old.mtime == entry.modified
        && old.extractorVersion == MetadataExtractor.version
      {
        summary.unchanged += 1
      } else {
        work.append((entry, old.id))
      }
    }
    try store.transaction {
      for index in known.indices where !met[index] {
        try store.deleteFile(id: known.entry(at: index).id)
        summary.removed += 1
      }
    }

    defer { store.rollbackPending() }
    let batchSize = max(1, options.batchSize)
    let spoolFolders = SpoolFolders(
      memory: SpooledFile.preferredFolder(fallback: options.temporaryFolder), disk: options.temporaryFolder,
      memoryLimit: options.inMemorySpoolLimit)
    var lastCommit = CatalogQuery.currentTime()
    var done = 0
    progress(IndexProgress(root: folder, phase: .extracting, done: 0, total: work.count))
    while done < work.count {
      let batch = Array(work[done..<min(work.count, done + batchSize)])
      let results = await Self.extractBackupFiles(
        batch.map(\.entry), from: backup, spoolFolders: spoolFolders, jobs: options.jobs,
        extractors: options.extractors)
      try store.transaction(continuing: true) {
        for (item, result) in zip(batch, results) {
          let entry = try catalogueEntry(item.entry, result, folder: folder, summary: &summary)
          try store.upsert(
            entry, rootID: rootID, trusted: true, isNew: item.knownID == nil)
          if item.knownID == nil { summary.added += 1 } else { summary.updated += 1 }
        }
      }
      done += batch.count
      let stopping = options.shouldStop()
      if done == work.count || stopping || CatalogQuery.currentTime() - lastCommit >= options.commitInterval {
        try store.commitPending()
        lastCommit = CatalogQuery.currentTime()
      }
      progress(IndexProgress(root: folder, phase: .extracting, done: done, total: work.count))
      if options.pauseAfterBatch > 0 { usleep(UInt32(options.pauseAfterBatch * 1e6)) }
      if stopping { throw CatalogError(path: folder, reason: .interrupted) }
    }
    try store.transaction {
      try store.updateRoot(
        id: rootID, layout: SandboxLayout(isSandbox: false, bundleName: nil), bundle: nil,
        scannedAt: Int64(start * 1e9))
    }
    return summary
  }

  /// The catalogue entry of a backup file: facts from its content, or its error (a missing
  /// stored file, a bad ciphertext) with a kind guessed from its name, which is a problem.
  private func catalogueEntry(
    _ file: BackupEntry, _ result: Result<ReadFacts, FileFactsError>, folder: RawPath,
    summary: inout RootScanSummary
  ) throws -> CatalogEntry {
    let path = file.cataloguePath(in: folder)
    var entry = CatalogEntry(backupFile: file, path: path, root: folder, facts: result.map(\.facts))
    let reason: String?
    switch result {
    case .success(let read):
      reason = read.error?.reason
      if let reason { summary.extractionErrors.append(WalkProblem(path: path, reason: reason)) }
    case .failure(let error):
      reason = error.reason
      summary.problems.append(WalkProblem(path: path, reason: error.reason))
    }
    // A failure from outside the file (or any error under too low an address-space limit):
    // recorded as read by no extractor, so that the next run reads it again.
    if let reason, WorkerFailure.isInterruption(reason) || AddressSpaceShortfall.current != nil {
      entry.extractorVersion = 0
    }
    return entry
  }

  /// Where decrypted content is spooled: `memory` for entries up to `memoryLimit` bytes,
  /// `disk` above it.
  struct SpoolFolders {
    var memory: RawPath
    var disk: RawPath
    var memoryLimit: Int64

    func folder(forSize size: Int64) -> RawPath { size <= memoryLimit ? memory : disk }
  }

  /// Reads a batch of backup files on `jobs` threads of their own. Keeps the batch's order.
  private static func extractBackupFiles(
    _ batch: [BackupEntry], from backup: Backup, spoolFolders: SpoolFolders, jobs: Int,
    extractors: ExtractorPool?
  ) async -> [Result<ReadFacts, FileFactsError>] {
    let workers = max(1, min(jobs, batch.count))
    let counter = NextIndex()
    return await withTaskGroup(of: [(Int, Result<ReadFacts, FileFactsError>)].self) { group in
      for _ in 0..<workers {
        group.addTask {
          await BlockingThread.run {
            var done: [(Int, Result<ReadFacts, FileFactsError>)] = []
            while case let index = counter.take(), index < batch.count {
              done.append(
                (
                  index,
                  extractBackupFile(
                    batch[index], from: backup, spoolFolders: spoolFolders, extractors: extractors)
                ))
            }
            return done
          }
        }
      }
      var results = [Result<ReadFacts, FileFactsError>?](repeating: nil, count: batch.count)
      for await part in group {
        for (index, result) in part { results[index] = result }
      }
      return results.map { $0! }
    }
  }

  /// The facts of one backup file: read in place when it is stored as it is, else from its
  /// decrypted or unpacked content spooled to a private file.
  static func extractBackupFile(
    _ entry: BackupEntry, from backup: Backup, spoolFolders: SpoolFolders, extractors: ExtractorPool? = nil
  ) -> Result<ReadFacts, FileFactsError> {
    do {
      let fileExtension = entry.relativePath.lowercasedExtension
      if let stored = try backup.plainStoredFile(of: entry) {
        return .success(try ReadFacts(stored, fileExtension: fileExtension, in: extractors))
      }
      let spool = try SpooledFile(in: spoolFolders.folder(forSize: entry.size))
      try backup.read(entry) { try spool.write($0) }
      return .success(try ReadFacts(spool.open(), fileExtension: fileExtension, in: extractors))
    } catch let error as WorkerFailure {
      return .failure(FileFactsError(reason: error.reason, failure: error.failure))
    } catch let error as BackupError {
      return .failure(FileFactsError(reason: error.explanation, failure: error.failure))
    } catch let error as FileError {
      return .failure(FileFactsError(error))
    } catch {
      return .failure(FileFactsError(reason: "\(error)", failure: (error as? any ShelfError)?.failure ?? .io))
    }
  }
}
