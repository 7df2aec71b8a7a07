import ShelfAudio
public import ShelfBackup
import ShelfCore
import ShelfFacts
import ShelfWorkers
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A path as a dictionary key, hashed in one pass over its bytes (RawPath hashes byte by byte,
/// which dominates when every path of a large tree is looked up).
struct PathKey: Hashable, Sendable {
  let bytes: [UInt8]
  init(_ bytes: [UInt8]) { self.bytes = bytes }
  /// The path's XXH3-64, then hashed by Swift's seeded hasher as one integer: SipHash over
  /// each byte was most of the cost of a lookup.
  func hash(into hasher: inout Hasher) {
    hasher.combine(bytes.withUnsafeBytes { ContentHasher.sampleHash($0) })
  }

  static func == (left: PathKey, right: PathKey) -> Bool {
    left.bytes.count == right.bytes.count && RawPath.order(left.bytes, right.bytes) == 0
  }

}

/// Scans roots into the catalogue incrementally: unchanged files (size, mtime, ctime, inode)
/// are not read again, moved files keep their facts, deleted files leave, and work is committed
/// in batches so an interrupted scan loses nothing already committed.
public final class Indexer {
  public let store: CatalogStore
  public let options: IndexOptions
  private let skipPaths: Set<RawPath>

  public init(store: CatalogStore, options: IndexOptions) {
    self.store = store
    self.options = options
    skipPaths = Set(store.ownFiles)
  }

  private struct Work: Sendable {
    var file: WalkedFile
    var known: KnownFile?
  }

  /// The root a scan writes to and what the scan needs to know about it.
  private struct ScanTarget {
    /// The folder walked (resolved).
    var scanned: RawPath
    /// The catalogued root that holds it: itself, or a root that contains it.
    var rootPath: RawPath
    var rootID: Int64
    /// The walked folder relative to `rootPath` (empty when they are the same).
    var subtree: [UInt8]
    var layout: SandboxLayout
    var bundle: BundleInfo?
    var excludes: ExcludeRules
    /// The catalogued roots inside the walked folder, which the walk leaves out.
    var innerRoots: Set<RawPath>
    /// When the scan started (seconds since the epoch) and the newest timestamps trusted.
    var start: Double
    var untrustedAfter: Int64

    /// A walked file's sandbox area, from its path relative to the catalogue root.
    func area(_ file: WalkedFile) -> CatalogArea {
      layout.area(of: subtree.isEmpty ? file.relative : subtree + [UInt8(ascii: "/")] + file.relative)
    }

    /// Whether a file's timestamps are old enough to trust on the next scan.
    func trusted(_ status: FileStatus) -> Bool {
      status.mtimeNanoseconds < untrustedAfter && status.ctimeNanoseconds < untrustedAfter
    }
  }

  /// The catalogue's knowledge sorted against what the walk found.
  private struct Classification {
    /// New, changed or untrusted files to read.
    var work: [Work] = []
    /// Vanished entries matched to a new path by device, inode, size and mtime.
    var moves: [(KnownFile, WalkedFile)] = []
    /// Entries whose files are gone.
    var removed: [KnownFile] = []
    var unchanged = 0

    /// The folders where a file is new, changed, moved or gone: their Live Photo links are
    /// recomputed after the scan.
    var folders: Set<RawPath> {
      var folders = Set(work.map { $0.file.path.parent })
      for (entry, file) in moves {
        folders.insert(entry.path.parent)
        folders.insert(file.path.parent)
      }
      for entry in removed { folders.insert(entry.path.parent) }
      return folders
    }
  }

  /// The most batches read ahead of the one being stored: the workers go on reading while the
  /// catalogue is written, and a long write (a commit merging the full-text index's segments)
  /// does not leave them idle. With two ahead the cores of a fresh index of /usr/share stood
  /// idle a fifth of the time, most at each commit; with eight it ran 7-9 % faster.
  static let batchesAhead = 8
  /// The batches read ahead whatever their facts may hold.
  static let batchesAheadAtLeast = 2
  /// What the facts read ahead may hold, at most, beyond `batchesAheadAtLeast` batches
  /// (estimated by `heldBytesEstimate`): a tree of large texts is read two batches ahead.
  static let bytesAhead = 32 << 20

  /// What the facts of a file of `size` bytes may hold in memory: its text's first 64 KiB (the
  /// full-text body) and a little more.
  static func heldBytesEstimate(_ size: Int64) -> Int {
    Int(clamping: min(max(size, 0), Int64(TextAnalyzer.searchTextLimit))) + 1024
  }

  /// Past this many folders to relink, those holding a Live Photo candidate are found first.
  static let foldersLinkedOneByOne = 32

  /// Scans one root (adding it when new) and returns what happened. The backups found in it
  /// become roots of their own, scanned after it (`nested`); catalogued roots inside it keep
  /// their entries and are left out (`coveredRoots`). A folder inside a catalogued root is
  /// scanned as part of that root, and adds none.
  public func index(root: RawPath, progress: (IndexProgress) -> Void = { _ in }) async throws
    -> RootScanSummary
  {
    let scanned = try TreeWalker.realPath(root.absolute)
    let knownRoots = try store.localRoots()
    // A catalogued root is scanned as itself, even inside another.
    let container =
      knownRoots.contains { $0.path == scanned }
      ? nil
      : knownRoots.filter { scanned.bytes.starts(with: $0.path.bytes + [UInt8(ascii: "/")]) }
        .max { $0.path.bytes.count < $1.path.bytes.count }
    if let container, container.backup != nil {
      // A folder inside a backup's stored files: the backup is what there is to scan.
      return try await indexBackup(container.path, parentID: nil, progress: progress)
    }
    if Backup.isBackup(scanned) {
      return try await indexBackup(scanned, parentID: container?.id, progress: progress)
    }
    let target = try prepareTarget(scanned, container: container, knownRoots: knownRoots)
    // Every file of a root new to the catalogue is to be read: its workers start as it is walked.
    let isNewRoot = !knownRoots.contains { $0.path == target.rootPath }
    let workersStarting = isNewRoot ? startWorkers(for: target) : nil
    var summary = RootScanSummary(root: target.scanned)
    summary.partOf = container?.path
    summary.isSandbox = target.layout.isSandbox
    summary.bundle = target.bundle
    // `--full` reads every file again: nothing is passed over.
    let sieve =
      options.full
      ? nil
      : UnchangedFileSieve(extractorVersion: MetadataExtractor.version, retryingFailures: options.retryFailed)
    let knownTask = loadKnownFiles(target, publishingTo: sieve)
    if options.walkAfterLoadingKnownFiles { _ = try await knownTask.value }
    progress(IndexProgress(root: target.scanned, phase: .walking, done: 0, total: 0))
    let found = try await walk(target, sieve: sieve, into: &summary)
    let classification = classify(found, known: try await knownTask.value, sieve: sieve, summary: &summary)
    try applyRemovalsAndMoves(classification, target, into: &summary)
    await workersStarting?.value
    try await extractAndStore(classification.work, target, into: &summary, progress: progress)
    var touched = classification.folders.union(try store.foldersAwaitingLivePhotoLinks(rootID: target.rootID))
    if touched.count > Self.foldersLinkedOneByOne {
      // Each folder's query reads every entry below it (a fresh index of /usr/share: 0.13 s
      // of rows fetched after the last batch), and most folders hold no half of a Live Photo:
      // those that do are found in one pass.
      touched.formIntersection(try store.foldersWithLivePhotoCandidates(rootID: target.rootID))
    }
    try store.transaction {
      try store.linkLivePhotos(inFolders: touched)
      try store.updateRoot(
        id: target.rootID, layout: target.layout, bundle: target.bundle, scannedAt: Int64(target.start * 1e9))
    }
    try await indexNestedBackups(target, knownRoots: knownRoots, into: &summary, progress: progress)
    return summary
  }

  /// Scans each backup the walk found, and each catalogued backup root inside the folder, as
  /// a root of its own under the scanned one. A backup that cannot be opened or read costs
  /// that backup only; the catalogue's own failures (busy, interrupted, damaged) end the run.
  private func indexNestedBackups(
    _ target: ScanTarget, knownRoots: [CatalogRoot], into summary: inout RootScanSummary,
    progress: (IndexProgress) -> Void
  ) async throws {
    let backupRoots = Set(knownRoots.filter { $0.backup != nil }.map(\.path))
    var backups = summary.walk.backups
    for skipped in summary.walk.skippedRoots {
      if backupRoots.contains(skipped) {
        backups.append(skipped)
      } else {
        summary.coveredRoots.append(skipped)
      }
    }
    for folder in backups.sorted() where !options.failedThisRun.contains(folder) {
      do {
        let scan = try await indexBackup(folder, parentID: target.rootID, progress: progress)
        summary.nested.append(NestedScan(folder: folder, outcome: .success(scan)))
      } catch let error as BackupError {
        summary.nested.append(NestedScan(folder: folder, outcome: .failure(error)))
      } catch let error as FileError {
        summary.nested.append(NestedScan(folder: folder, outcome: .failure(error)))
      }
    }
  }

  /// Adds (or finds) the catalogue root a scan writes to and records its layout, bundle and
  /// excludes: the scanned folder itself, or the catalogued root `container` that holds it
  /// (whose areas, bundle and excludes it then takes). The catalogued roots inside the folder
  /// keep their entries: the walk leaves their folders out.
  private func prepareTarget(_ scanned: RawPath, container: CatalogRoot?, knownRoots: [CatalogRoot]) throws
    -> ScanTarget
  {
    if let container, options.excludes != nil {
      throw CatalogError(path: scanned, reason: .excludesBelongToRoot(container.path))
    }
    let rootPath = container?.path ?? scanned
    let subtree: [UInt8] = container == nil ? [] : Array(scanned.bytes.dropFirst(rootPath.bytes.count + 1))
    let inner = knownRoots.filter { $0.path.bytes.starts(with: scanned.bytes + [UInt8(ascii: "/")]) }
    let stored = knownRoots.first { $0.path == rootPath }?.excludes ?? []
    let patterns = options.excludes ?? stored
    try store.lockRoot(rootPath, wait: options.lockWait)
    let start = CatalogQuery.currentTime()
    let layout = SandboxLayout.detect(root: rootPath)
    let bundle = layout.bundleInfo(root: rootPath)
    let rootID = try store.transaction {
      let id = try store.rootID(for: rootPath)
      try store.updateRoot(id: id, layout: layout, bundle: bundle, scannedAt: nil)
      if let replaced = options.excludes { try store.setExcludes(rootID: id, patterns: replaced) }
      return id
    }
    return ScanTarget(
      scanned: scanned, rootPath: rootPath, rootID: rootID, subtree: subtree, layout: layout, bundle: bundle,
      excludes: ExcludeRules(patterns: patterns, walkStart: subtree), innerRoots: Set(inner.map(\.path)),
      start: start, untrustedAfter: Int64((start - options.recentWindow) * 1e9))
  }

  /// What is known about the root's files, loaded on a connection of its own while the tree
  /// is walked, and handed to the walk's `sieve` as soon as it is.
  private func loadKnownFiles(_ target: ScanTarget, publishingTo sieve: UnchangedFileSieve?) -> Task<
    KnownFiles, any Error
  > {
    let load = store.knownFilesLoader()
    let rootID = target.rootID
    let rootPath = target.rootPath
    let partial = !target.subtree.isEmpty
    let prefix = target.scanned.bytes + [UInt8(ascii: "/")]
    return Task.detached { () throws -> KnownFiles in
      let loaded = try load(rootID, rootPath)
      // Only the scanned folder's entries are this scan's business.
      let known = partial ? loaded.filtered(prefix: prefix) : loaded
      sieve?.publish(known)
      return known
    }
  }

  /// Starts a worker per extraction thread, on a thread of its own, for a root whose every
  /// file is to be read; nil when facts are read in this process.
  private func startWorkers(for target: ScanTarget) -> Task<Void, Never>? {
    guard let extractors = options.extractors else { return nil }
    let count = max(1, options.jobs)
    let path = target.rootPath
    return Task.detached { await BlockingThread.run { extractors.startWorkers(upTo: count, for: path) } }
  }

  private func interrupted(_ target: ScanTarget) -> CatalogError {
    CatalogError(path: target.scanned, reason: .interrupted)
  }

  /// Walks the folder (on as many threads as extraction gets), passing over the files `sieve`
  /// finds unchanged.
  private func walk(_ target: ScanTarget, sieve: UnchangedFileSieve?, into summary: inout RootScanSummary)
    async throws -> [WalkedFile]
  {
    var walker = try TreeWalker(
      root: target.scanned, followLinks: options.followLinks, excludes: target.excludes, skipPaths: skipPaths,
      skipFolders: target.innerRoots, findBackups: true)
    walker.sieve = sieve
    let walked = await BlockingThread.run { [walker, options] in
      walker.collect(threads: max(1, options.jobs), shouldStop: options.shouldStop)
    }
    if walked.stopped { throw interrupted(target) }
    summary.walk = walked.summary
    summary.unreadable = summary.walk.unreadable
    summary.files = walked.files.count + walked.summary.passedUnchanged
    return walked.files
  }

  /// Sorts the walked files into unchanged, to read, moved and removed.
  private func classify(
    _ found: [WalkedFile], known: KnownFiles, sieve: UnchangedFileSieve?, summary: inout RootScanSummary
  ) -> Classification {
    var result = Classification()
    var fresh: [WalkedFile] = []
    // Which known files the walk met, by record number: first those it passed over.
    var met = [Bool](repeating: false, count: known.count)
    var metCount = summary.walk.passedUnchanged
    result.unchanged = metCount
    if metCount > 0, let passed = sieve?.loaded?.passed {
      for index in known.indices where passed[index] != 0 { met[index] = true }
    }
    let version = MetadataExtractor.version
    // Read in place: a copy of each walked file costs its paths' reference counts.
    found.withUnsafeBufferPointer { found in
      for position in found.indices {
        guard let index = found[position].path.bytes.withUnsafeBytes({ known.index(of: $0) }) else {
          fresh.append(found[position])
          continue
        }
        if !met[index] { metCount += 1 }
        met[index] = true
        if !options.full
          && known.isUnchanged(
            at: index, status: found[position].status, extractorVersion: version,
            retryingFailures: options.retryFailed)
        {
          result.unchanged += 1
        } else {
          // Changed, read by an older extractor, asked for (--full), or read last time while
          // its timestamps were too fresh to trust.
          result.work.append(Work(file: found[position], known: known.entry(at: index)))
        }
      }
    }
    guard metCount < known.count || !fresh.isEmpty else {
      summary.unchanged = result.unchanged
      return result
    }
    // What lies below a folder the walk could not read is not known to be gone: kept.
    if metCount < known.count && !summary.walk.unreadable.isEmpty {
      let folders = summary.walk.unreadable.map { $0.path.bytes + [UInt8(ascii: "/")] }
      for index in known.indices where !met[index] {
        let path = known.entry(at: index).path.bytes
        if folders.contains(where: { path.starts(with: $0) }) {
          met[index] = true
          metCount += 1
        }
      }
    }
    // Moves: a vanished entry with the same device, inode, size and mtime as a new file.
    var vanishedByInode: [[UInt64]: (index: Int, entry: KnownFile)] = [:]
    if !fresh.isEmpty && metCount < known.count {
      for index in known.indices where !met[index] {
        let entry = known.entry(at: index)
        vanishedByInode[[entry.device, entry.inode]] = (index, entry)
      }
    }
    for file in fresh {
      if !options.full, let (index, entry) = vanishedByInode[[file.status.device, file.status.inode]],
        entry.size == file.status.size, entry.mtime == file.status.mtimeNanoseconds,
        entry.extractorVersion == MetadataExtractor.version
      {
        vanishedByInode[[file.status.device, file.status.inode]] = nil
        met[index] = true
        metCount += 1
        result.moves.append((entry, file))
      } else {
        result.work.append(Work(file: file, known: nil))
      }
    }
    if metCount < known.count {
      result.removed = known.indices.filter { !met[$0] }.map { known.entry(at: $0) }
    }
    summary.unchanged = result.unchanged
    return result
  }

  /// Removals and moves, in one transaction.
  private func applyRemovalsAndMoves(
    _ classification: Classification, _ target: ScanTarget, into summary: inout RootScanSummary
  ) throws {
    try store.transaction {
      for entry in classification.removed {
        try store.deleteFile(id: entry.id)
        summary.removed += 1
      }
      for (entry, file) in classification.moves {
        try store.moveFile(
          id: entry.id, to: file.path, area: target.area(file), status: file.status,
          trusted: target.trusted(file.status))
        summary.moved += 1
      }
    }
  }

  /// Extracts in parallel and writes in batches of committed transactions; the extraction
  /// of the next batch overlaps the (single-threaded) writing of this one.
  private func extractAndStore(
    _ work: [Work], _ target: ScanTarget, into summary: inout RootScanSummary,
    progress: (IndexProgress) -> Void
  ) async throws {
    let total = work.count
    var done = 0
    progress(IndexProgress(root: target.scanned, phase: .extracting, done: 0, total: total))
    let jobs = max(1, options.jobs)
    let batchSize = max(1, options.batchSize)
    let extractors = options.extractors
    typealias Extraction = (
      batch: [Work], task: Task<[Result<ReadFacts, OpenFailure>], Never>, heldBytes: Int
    )
    // Batches are read one after the other, ahead of the one being stored (see
    // `batchesAhead`).
    var pending: [Extraction] = []
    var queued = 0
    func queueBatches() {
      while queued < work.count
        && (pending.count < Self.batchesAheadAtLeast
          || (pending.count < Self.batchesAhead
            && pending.reduce(0, { $0 + $1.heldBytes }) < Self.bytesAhead))
      {
        let batch = Array(work[queued..<min(work.count, queued + batchSize)])
        let previous = pending.last?.task
        let held = batch.reduce(0) { $0 + Self.heldBytesEstimate($1.file.status.size) }
        pending.append(
          (
            batch,
            Task {
              _ = await previous?.value
              return await Self.extract(batch, jobs: jobs, extractors: extractors)
            },
            held
          ))
        queued += batch.count
      }
    }
    queueBatches()
    var lastCommit = CatalogQuery.currentTime()
    // A failure leaves the open transaction uncommitted: roll it back.
    defer { store.rollbackPending() }
    while !pending.isEmpty {
      let (batch, task, _) = pending.removeFirst()
      let results = await task.value
      queueBatches()
      try store.transaction(continuing: true) {
        for (item, result) in zip(batch, results) {
          try storeResult(result, of: item, target, into: &summary)
        }
      }
      done += batch.count
      let stopping = options.shouldStop()
      if pending.isEmpty || stopping || CatalogQuery.currentTime() - lastCommit >= options.commitInterval {
        try store.commitPending()
        lastCommit = CatalogQuery.currentTime()
      }
      progress(IndexProgress(root: target.scanned, phase: .extracting, done: done, total: total))
      if options.pauseAfterBatch > 0 { usleep(UInt32(options.pauseAfterBatch * 1e6)) }
      if stopping {
        for extraction in pending { extraction.task.cancel() }
        throw interrupted(target)
      }
    }
  }

  /// Writes one file's extraction (or its failure) to the catalogue.
  private func storeResult(
    _ result: Result<ReadFacts, OpenFailure>, of item: Work, _ target: ScanTarget,
    into summary: inout RootScanSummary
  ) throws {
    let file = item.file
    let entry: CatalogEntry
    var isTrusted = target.trusted(file.status)
    switch result {
    case .success(let read):
      entry = CatalogEntry(
        path: file.path, root: target.rootPath, area: target.area(file), status: read.status,
        facts: read.facts)
      if let error = read.error {
        summary.extractionErrors.append(WalkProblem(path: file.path, reason: error.reason))
        // Under an address-space limit below what reading needs, the error may be the
        // limit's (a library that could not be mapped): read again on the next run.
        if AddressSpaceShortfall.current != nil { isTrusted = false }
      }
    case .failure(let failure):
      if failure.vanished {
        if let id = item.known?.id {
          try store.deleteFile(id: id)
          summary.removed += 1
        }
        return
      }
      if failure.inWorker {
        // Recorded like any error of its content: not read again until it changes, unless the
        // cause lay outside the file (then untrusted, as a file not read: read next run).
        summary.extractionErrors.append(WalkProblem(path: file.path, reason: failure.error.reason))
        if failure.outsideFile { isTrusted = false }
      } else {
        summary.unreadable.append(WalkProblem(path: file.path, reason: failure.error.reason))
        isTrusted = false
      }
      entry = CatalogEntry(
        unreadable: file.path, root: target.rootPath, area: target.area(file), size: file.status.size,
        mtimeNanoseconds: file.status.mtimeNanoseconds, ctimeNanoseconds: file.status.ctimeNanoseconds,
        inode: file.status.inode, device: file.status.device, error: failure.error)
    }
    try store.upsert(
      entry, rootID: target.rootID, trusted: isTrusted, isNew: item.known == nil
    )
    if item.known == nil { summary.added += 1 } else { summary.updated += 1 }
  }

  /// Catalogues one file that lies inside a known root (a finished recording, say) and returns
  /// its entry; nil when no catalogued root holds it. The caller holds the `WriterLock`.
  public func indexFile(_ path: RawPath) throws -> CatalogEntry? {
    let resolved = try TreeWalker.realPath(path.absolute)
    guard let (root, relative) = CatalogRoot.innermost(holding: resolved, in: try store.localRoots()) else {
      return nil
    }
    let layout = SandboxLayout.detect(root: root.path)
    let read = try ReadFacts(
      MetadataExtractor.open(path: resolved, followLinks: false), fileExtension: resolved.lowercasedExtension)
    let status = read.status
    let recent = Int64((CatalogQuery.currentTime() - options.recentWindow) * 1e9)
    let entry = CatalogEntry(
      path: resolved, root: root.path, area: layout.area(of: relative), status: status, facts: read.facts)
    try store.transaction {
      try store.upsert(
        entry, rootID: root.id, trusted: status.mtimeNanoseconds < recent && status.ctimeNanoseconds < recent)
      try store.linkLivePhotos(inFolders: [resolved.parent])
    }
    return try store.entry(path: resolved)
  }

  struct OpenFailure: Error, Sendable {
    /// Why, as the entry records it.
    var error: FileFactsError
    var vanished: Bool
    /// The file opened, but its worker crashed, hung or ran out of memory reading it.
    var inWorker = false
    /// And the file was not the cause (`WorkerFailure.isCausedByFile`).
    var outsideFile = false
  }

  /// Extracts a batch on `jobs` threads of their own (file reads and libsndfile block, and
  /// must not hold up the shared async pool), keeping the batch's order.
  private static func extract(_ batch: [Work], jobs: Int, extractors: ExtractorPool?) async
    -> [Result<ReadFacts, OpenFailure>]
  {
    let workers = max(1, min(jobs, batch.count))
    let counter = NextIndex()
    return await withTaskGroup(of: [(Int, Result<ReadFacts, OpenFailure>)].self) { group in
      for _ in 0..<workers {
        group.addTask {
          await BlockingThread.run {
            // Each thread takes the next file as it finishes one, so a big file holds up none.
            var done: [(Int, Result<ReadFacts, OpenFailure>)] = []
            guard let extractors else {
              while case let index = counter.take(), index < batch.count {
                done.append((index, extractHere(batch[index].file)))
              }
              return done
            }
            // Files are opened here and read by this thread's worker, a few queued at a time;
            // the status recorded is the one they were opened with.
            var statuses: [Int: FileStatus] = [:]
            extractors.extractQueued { () -> (tag: Int, file: RegularFile, fileExtension: String)? in
              while case let index = counter.take(), index < batch.count {
                let item = batch[index].file
                do {
                  let file = try open(item)
                  statuses[index] = file.status
                  return (index, file, item.openPath.lowercasedExtension)
                } catch {
                  done.append((index, .failure(openFailure(error))))
                }
              }
              return nil
            } deliver: { index, result in
              let status = statuses.removeValue(forKey: index)!
              done.append((index, result.map { ReadFacts(status: status, facts: $0) }.mapError(openFailure)))
            }
            return done
          }
        }
      }
      var results = [Result<ReadFacts, OpenFailure>?](repeating: nil, count: batch.count)
      for await part in group {
        for (index, result) in part { results[index] = result }
      }
      return results.map { $0! }
    }
  }

  /// A shared counter handing out batch positions to the worker threads.
  final class NextIndex: Sendable {
    private let value = Atomic<Int>(0)
    func take() -> Int { value.add(1, ordering: .relaxed).oldValue }
  }

  /// Reads one file's facts in this process.
  private static func extractHere(_ item: WalkedFile) -> Result<ReadFacts, OpenFailure> {
    do {
      let file = try open(item)
      return .success(try ReadFacts(file, fileExtension: item.openPath.lowercasedExtension))
    } catch {
      return .failure(openFailure(error))
    }
  }

  /// Opens a walked file to read it, refusing another file than the one the walk saw; a path
  /// too long to open at once (below some 2,000 folders) through its folders one by one.
  private static func open(_ item: WalkedFile) throws -> RegularFile {
    do {
      return try MetadataExtractor.open(path: item.openPath, followLinks: false, expected: item.status)
    } catch let error as FileError where error.code == ENAMETOOLONG {
      let file = try RegularFile(
        adopting: try DeepPath.open(item.openPath, flags: O_RDONLY | O_NONBLOCK | O_NOCTTY),
        path: item.openPath)
      guard file.status.inode == item.status.inode && file.status.device == item.status.device else {
        throw ExtractionFailure(path: item.openPath, cause: .replacedWhileScanning)
      }
      return file
    }
  }

  /// Why a file gave no facts, as the catalogue records it.
  private static func openFailure(_ error: any Error) -> OpenFailure {
    switch error {
    case let error as WorkerFailure:
      OpenFailure(
        error: FileFactsError(reason: error.reason, failure: error.failure), vanished: false, inWorker: true,
        outsideFile: !error.isCausedByFile)
    case let error as FileError: OpenFailure(error: FileFactsError(error), vanished: error.isNoSuchFile)
    case let error as ExtractionFailure:
      OpenFailure(
        error: FileFactsError(reason: error.reason, failure: error.failure),
        vanished: error.cause == .replacedWhileScanning)
    default:
      OpenFailure(
        error: FileFactsError(reason: "\(error)", failure: (error as? any ShelfError)?.failure ?? .io),
        vanished: false)
    }
  }
}
