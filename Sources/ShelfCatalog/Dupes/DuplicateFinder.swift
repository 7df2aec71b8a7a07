import Dispatch
import ShelfBackup
public import ShelfCore
import Synchronization

/// Which member of a group of duplicates is kept (`shelf dupes --keep`).
public enum DuplicateKeepRule: String, CaseIterable, Sendable {
  /// The oldest modification time, then the shortest path.
  case oldest
  /// The newest modification time, then the shortest path.
  case newest
  case shortestPath = "shortest-path"
  case longestPath = "longest-path"
  /// The member under the root listed first by `shelf roots`, then the oldest.
  case firstRoot = "first-root"
}

/// How `DuplicateFinder` searches.
public struct DuplicateSettings: Sendable {
  /// Files smaller than this are left out (zero-length files need `includeEmpty` as well).
  public var minimumSize: Int64 = 1
  /// Zero-length files form a group of their own.
  public var includeEmpty = false
  /// Files under these folders are always kept; groups with no file outside them are not shown.
  public var referenceRoots: [RawPath] = []
  public var keep: DuplicateKeepRule = .oldest
  /// Files read at once.
  public var width = 2

  public init() {}
}

/// What comparing contents needs of a catalogued file: where it is, its size (as catalogued,
/// then as found), its modification time as found (0 for a backup entry, whose time no rule
/// reads), whether it is a backup entry (read from its backup, never acted on).
public struct ComparedFile: Sendable {
  public var path: RawPath
  /// The root it was catalogued under.
  public var root: RawPath?
  public var size: Int64
  public var mtimeNanoseconds: Int64
  public var isBackupEntry: Bool
  /// The machine whose root holds it (a shared PostgreSQL catalogue), nil in SQLite.
  var host: String?
  /// The catalogue's id of its row.
  var id: Int64
}

/// One file of a group: a catalogued file on disk (its other hard links are the same file) or
/// an entry of an iPhone backup.
public struct DuplicateMember: Sendable {
  public var file: ComparedFile
  /// The file's number of hard links on disk (1 for a backup entry).
  public var links: Int
  /// True for the member the keep rule keeps, for files under a reference root and for backup
  /// entries: what no action touches.
  public var keep: Bool
  /// The identity the content was hashed at (nil for a backup entry): an action checks that
  /// the file is still the one hashed.
  var identity: ContentIdentity?
  /// The file's other catalogued names (hard links), which `copies:` counts as the same file.
  var otherNames: [RawPath] = []

  public var isBackupEntry: Bool { file.isBackupEntry }
}

/// Catalogued files with identical content (equal XXH3-128 hashes over equal sizes).
public struct DuplicateGroup: Sendable {
  public var size: Int64
  public var hash: ContentHash
  /// The kept members first, then the others, each in path order.
  public var members: [DuplicateMember]

  /// The members an action would touch.
  public var duplicates: [DuplicateMember] { members.filter { !$0.keep } }
}

/// What a search found and what it could not read.
public struct DuplicateReport: Sendable {
  /// Largest content first.
  public var groups: [DuplicateGroup] = []
  /// Files and backups that could not be read (each left out of the search).
  public var skipped: [any ShelfError] = []
  /// Contents read in this search (samples and whole files), and the bytes read for them.
  public var contentsRead = 0
  public var bytesRead: Int64 = 0
  /// Digests computed now that the catalogue should keep.
  var computed: [(ContentIdentity, ContentDigest)] = []
  /// The files searched, as the catalogue gave them.
  public internal(set) var searched: [ComparedFile] = []
}

/// Finds the catalogued files whose contents are identical, as `shelf dupes` lists them.
///
/// Only sizes shared by two files or more are looked at; of those, each file's head and tail
/// (4 KiB each) are sampled, and only files whose samples match are read whole and hashed.
/// Digests are kept in the catalogue keyed by device, inode, size and times (see
/// `ContentHashCache`), so a second search of an unchanged tree reads no content. Every file
/// on disk is `lstat`ed first: a file gone is dropped (reported when its catalogued size is
/// shared), one changed since it was catalogued or
/// hashed is hashed again. Hard links of one inode are one member. A backup entry is hashed by
/// its (decrypted) content, read through `backups`.
public struct DuplicateFinder {
  let store: CatalogStore
  let backups: BackupEntryResolver

  public init(store: CatalogStore, backups: BackupEntryResolver) {
    self.store = store
    self.backups = backups
  }

  /// A file to compare, as found now: its member of a group is made only if it joins one.
  private struct Candidate {
    /// The entry that names it: for a file of several names, the shortest (then the first in
    /// path order), whatever order the catalogue gave them in.
    var slot: Int
    /// Its other names' entries.
    var otherSlots: [Int] = []
    /// A file's `lstat` (nil for a backup entry).
    var status: FileStatus?
    /// The identity its content was digested at (nil for a backup entry).
    var identity: ContentIdentity?
    /// Where a backup entry's content is read.
    var backupEntry: (Backup, BackupEntry)?

    func source(_ entries: [ComparedFile]) -> ContentSource {
      backupEntry.map { .backupEntry($0.0, $0.1) } ?? .file(entries[slot].path)
    }

    func member(_ entries: [ComparedFile]) -> DuplicateMember {
      var file = entries[slot]
      guard let status else { return DuplicateMember(file: file, links: 1, keep: true, identity: nil) }
      // The keep rule judges the file as it is now, not as it was catalogued.
      file.size = status.size
      file.mtimeNanoseconds = status.mtimeNanoseconds
      return DuplicateMember(
        file: file, links: Int(clamping: status.linkCount), keep: false, identity: identity,
        otherNames: otherSlots.map { entries[$0].path })
    }
  }

  /// The files of a search whose sizes another shares, with their sizes and digests kept in
  /// arrays of their own: matching reads plain numbers, never a whole candidate.
  private struct Candidates {
    var items: [Candidate] = []
    var sizes: [Int64] = []
    /// The catalogue's digest while it still describes the file, then the one read now.
    var digests: [ContentDigest?] = []
    /// Each file's device and inode (nil for a backup entry): its other names are the same file.
    var files: [ContentIdentity.FileKey?] = []
    /// The runs of `items` that share a size, two or more each.
    var sameSize: [Range<Int>] = []

    init(capacity: Int) {
      items.reserveCapacity(capacity)
      sizes.reserveCapacity(capacity)
      digests.reserveCapacity(capacity)
      files.reserveCapacity(capacity)
    }

    mutating func append(_ candidate: Candidate, size: Int64, digest: ContentDigest?) {
      items.append(candidate)
      sizes.append(size)
      digests.append(digest)
      files.append(candidate.identity?.fileKey)
    }

    mutating func removeLast() {
      items.removeLast()
      sizes.removeLast()
      digests.removeLast()
      files.removeLast()
    }
  }

  /// Groups the catalogued files matching `query` by content. The rows are looked up on disk
  /// as they are read: `settings.width` threads `lstat` each chunk of rows while the next is
  /// read, then the catalogue's digests are read while the last are looked up.
  public func find(matching query: CatalogQuery, settings: DuplicateSettings) async throws -> DuplicateReport
  {
    let lookups = StatusLookups()
    let width = max(1, settings.width)
    let looking = Task {
      await withTaskGroup(of: Void.self) { group in
        for _ in 0..<width { group.addTask { await BlockingThread.run { lookups.work() } } }
      }
    }
    var entries: [ComparedFile] = []
    do {
      var chunk: [ComparedFile] = []
      chunk.reserveCapacity(StatusLookups.chunk)
      try store.forEachFileToCompare(matching: query) { file in
        chunk.append(file)
        if chunk.count == StatusLookups.chunk {
          lookups.add(chunk, at: entries.count)
          entries += chunk
          chunk.removeAll(keepingCapacity: true)
        }
      }
      lookups.add(chunk, at: entries.count)
      entries += chunk
    } catch {
      lookups.finish(workers: width)
      await looking.value
      throw error
    }
    lookups.finish(workers: width)
    return try await compare(entries, settings: settings) {
      await looking.value
      return lookups.statuses(count: entries.count)
    }
  }

  /// Groups `entries` by content once `statuses` gives their `lstat`s; the catalogue's digests
  /// are read and the backups opened meanwhile.
  private func compare(
    _ entries: [ComparedFile], settings: DuplicateSettings, statuses lookedUp: () async -> [FileStatus?]
  ) async throws -> DuplicateReport {
    var report = DuplicateReport()
    report.searched = entries
    let (folders, resolver) = (Self.backupFolders(of: entries), backups)
    async let opening = Self.openBackups(folders, with: resolver)
    let cached = try ContentHashCache.load(store, expecting: entries.count)
    let statuses = await lookedUp()
    var unopened: Set<PathKey> = []
    for (folder, error) in await opening {
      unopened.insert(PathKey(folder.bytes))
      report.skipped.append(error)
    }
    var candidates = collect(
      entries, statuses: statuses, settings: settings, cached: cached, unopened: unopened, report: &report)

    // Samples of the sizes shared, then whole hashes of the samples shared.
    let unsampled = candidates.sameSize.flatMap { $0 }.filter { candidates.digests[$0] == nil }
    await digest(
      unsampled, of: &candidates, in: entries, whole: false, width: settings.width, report: &report)
    var toHash: [Int] = []
    var digests = candidates.digests
    for run in candidates.sameSize {
      let sampled = run.filter { digests[$0] != nil }
      for same in Self.runs(of: sampled, by: { digests[$0]!.sample }) {
        toHash += same.filter { digests[$0]?.hash == nil }
      }
    }
    await digest(toHash, of: &candidates, in: entries, whole: true, width: settings.width, report: &report)

    // Only `--keep first-root` needs the order of the roots.
    let roots = settings.keep == .firstRoot ? try store.roots().map(\.path) : []
    var groups: [DuplicateGroup] = []
    digests = candidates.digests
    for run in candidates.sameSize {
      let hashed = run.filter { digests[$0]?.hash != nil }
      for same in Self.runs(of: hashed, by: { digests[$0]!.hash! }) {
        guard
          let group = Self.group(
            same.map { candidates.items[$0].member(entries) }, size: candidates.sizes[same[0]],
            hash: digests[same[0]]!.hash!, settings: settings, roots: roots)
        else { continue }
        groups.append(group)
      }
    }
    report.groups = groups.sorted {
      $0.size != $1.size ? $0.size > $1.size : $0.members[0].file.path < $1.members[0].file.path
    }
    return report
  }

  /// The runs of two or more of `indices` that share a key, each in the order given. The groups
  /// of one size are mostly two or three files: sorting them beats a dictionary each.
  private static func runs<Key: Comparable>(of indices: [Int], by key: (Int) -> Key) -> [[Int]] {
    guard indices.count > 1 else { return [] }
    if indices.count == 2 { return key(indices[0]) == key(indices[1]) ? [indices] : [] }
    let keyed = indices.map { (key($0), $0) }.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
    var runs: [[Int]] = []
    var start = 0
    for end in 1...keyed.count where end == keyed.count || keyed[end].0 != keyed[start].0 {
      if end - start > 1 { runs.append(keyed[start..<end].map(\.1)) }
      start = end
    }
    return runs
  }

  /// The candidates of `entries` as they are now: files `lstat`ed (gone ones and other types
  /// dropped, hard links made one), backup entries found in their backups (a backup that does
  /// not open is skipped, reported once), sizes filtered; only sizes shared by two files or
  /// more are kept, and only those files' members are made.
  private func collect(
    _ entries: [ComparedFile], statuses: [FileStatus?], settings: DuplicateSettings,
    cached: [ContentIdentity.FileKey: (ContentIdentity, ContentDigest)], unopened: Set<PathKey>,
    report: inout DuplicateReport
  ) -> Candidates {
    // Each file by its size now, each backup entry by its catalogued size (a backup is opened
    // only for the entries whose size another shares): `slot` is the index in `entries`.
    var bySize: [(size: Int64, slot: Int)] = []
    bySize.reserveCapacity(entries.count)
    let minimum = settings.includeEmpty ? min(settings.minimumSize, 0) : max(settings.minimumSize, 1)
    for (index, entry) in entries.enumerated() {
      // A shared catalogue's entries of other machines name files this one cannot read.
      guard entry.host == nil || entry.host == store.host else { continue }
      if entry.isBackupEntry {
        if entry.size >= minimum { bySize.append((entry.size, index)) }
      } else if let status = statuses[index] {
        if status.type == .regular && status.size >= minimum { bySize.append((status.size, index)) }
      } else if entry.size >= minimum {
        // Gone since it was catalogued (or not to be looked up): by its catalogued size, so
        // that it is reported where it may have had a copy, as a backup entry is.
        bySize.append((entry.size, index))
      }
    }
    bySize.sort { $0.size < $1.size }

    var candidates = Candidates(capacity: bySize.count)
    var unopened = unopened
    var start = 0
    while start < bySize.count {
      var end = start + 1
      while end < bySize.count && bySize[end].size == bySize[start].size { end += 1 }
      defer { start = end }
      guard end - start > 1 else { continue }
      let first = candidates.items.count
      // Another name of a file met in this run: the runs are mostly two or three files long, and
      // looked through; a long one is indexed.
      var byFile: [ContentIdentity.FileKey: Int] = [:]
      let indexed = end - start > 16
      func known(_ key: ContentIdentity.FileKey) -> Int? {
        if indexed { return byFile[key] }
        return candidates.files[first...].firstIndex(of: key)
      }
      for (_, slot) in bySize[start..<end] {
        if entries[slot].isBackupEntry {
          if let (candidate, size, digest) = open(
            entries, at: slot, cached: cached, unopened: &unopened, report: &report)
          {
            candidates.append(candidate, size: size, digest: digest)
          }
          continue
        }
        guard let status = statuses[slot] else {
          if let failure = Self.lookupFailure(entries[slot].path) { report.skipped.append(failure) }
          continue
        }
        let identity = ContentIdentity(status)
        if let index = known(identity.fileKey) {
          // Another name of a file already met: the shorter (then the first in path order)
          // stands for it.
          let (new, old) = (entries[slot].path, entries[candidates.items[index].slot].path)
          if new.bytes.count < old.bytes.count || (new.bytes.count == old.bytes.count && new < old) {
            candidates.items[index].otherSlots.append(candidates.items[index].slot)
            candidates.items[index].slot = slot
          } else {
            candidates.items[index].otherSlots.append(slot)
          }
          continue
        }
        var digest: ContentDigest?
        if let (known, kept) = cached[identity.fileKey], known == identity { digest = kept }
        if indexed { byFile[identity.fileKey] = candidates.items.count }
        candidates.append(
          Candidate(slot: slot, status: status, identity: identity), size: status.size, digest: digest)
      }
      // One file by several names is no duplicate of itself.
      if candidates.items.count - first > 1 {
        candidates.sameSize.append(first..<candidates.items.count)
      } else if candidates.items.count > first {
        candidates.removeLast()
      }
    }
    return candidates
  }

  /// Why a catalogued file's `lstat` failed: gone since it was catalogued, or the error;
  /// nil when it is there after all (back since it was looked up).
  private static func lookupFailure(_ path: RawPath) -> FileError? {
    do {
      _ = try FileStatus.lstat(path)
      return nil
    } catch let error where error.isNoSuchFile {
      return FileError(path: path, reason: "gone since it was catalogued", failure: .missingInput)
    } catch {
      return error
    }
  }

  /// A backup entry found in its backup, with its content's size and the catalogue's digest of it when it
  /// still holds; nil when the entry is gone from the manifest, is no file, or its backup does
  /// not open (reported once, its other entries then passed over).
  private func open(
    _ entries: [ComparedFile], at slot: Int,
    cached: [ContentIdentity.FileKey: (ContentIdentity, ContentDigest)],
    unopened: inout Set<PathKey>, report: inout DuplicateReport
  ) -> (Candidate, size: Int64, ContentDigest?)? {
    let entry = entries[slot]
    guard let root = entry.root, !unopened.contains(PathKey(root.bytes)) else { return nil }
    do {
      guard let (backup, backupEntry) = try backups.entry(at: entry.path, in: root) else {
        report.skipped.append(
          FileError(path: entry.path, reason: "no longer in the backup's manifest", failure: .missingInput))
        return nil
      }
      guard backupEntry.type == .file else { return nil }
      let content = try backup.open(backupEntry)
      var digest: ContentDigest?
      if let stored = content.storedStatus {
        let identity = ContentIdentity(stored, size: content.size ?? backupEntry.size)
        if let (known, kept) = cached[identity.fileKey], known == identity { digest = kept }
      }
      let candidate = Candidate(slot: slot, backupEntry: (backup, backupEntry))
      return (candidate, content.size ?? backupEntry.size, digest)
    } catch {
      unopened.insert(PathKey(root.bytes))
      report.skipped.append(
        error as? any ShelfError ?? FileError(path: root, reason: "\(error)", failure: .io))
      return nil
    }
  }

  /// The backups whose entries are among `entries`, each once.
  private static func backupFolders(of entries: [ComparedFile]) -> [RawPath] {
    var seen: Set<PathKey> = []
    return entries.compactMap { entry in
      guard entry.isBackupEntry, let root = entry.root, seen.insert(PathKey(root.bytes)).inserted else {
        return nil
      }
      return root
    }
  }

  /// Opens `folders` in `backups`, one after the other on a thread of its own; returns the
  /// ones that did not open, with why.
  private static func openBackups(_ folders: [RawPath], with backups: BackupEntryResolver) async -> [(
    RawPath, any ShelfError
  )] {
    guard !folders.isEmpty else { return [] }
    return await BlockingThread.run {
      folders.compactMap { folder in
        do {
          try backups.open(folder)
          return nil
        } catch {
          return (
            folder, error as? any ShelfError ?? FileError(path: folder, reason: "\(error)", failure: .io)
          )
        }
      }
    }
  }

  /// Chunks of catalogued files handed to the threads that `lstat` them, and what they found:
  /// nil for backup entries and files gone.
  private final class StatusLookups: Sendable {
    /// Files per chunk: enough to make handing one over cheap, few enough to start at once.
    static let chunk = 512
    private let state = Mutex<(waiting: [(offset: Int, paths: [RawPath?])], found: [Int: [FileStatus?]])>(
      ([], [:]))
    private let available = DispatchSemaphore(value: 0)

    /// Hands `files`, the entries from `offset` on, to a thread: their paths alone (nil for a
    /// backup entry), so that the threads never share a reference count (the roots' paths).
    func add(_ files: [ComparedFile], at offset: Int) {
      guard !files.isEmpty else { return }
      let paths = files.map { $0.isBackupEntry ? nil : $0.path }
      state.withLock { $0.waiting.append((offset, paths)) }
      available.signal()
    }

    /// Says no more chunks come: each of the `workers` stops once none is left.
    func finish(workers: Int) {
      for _ in 0..<max(1, workers) { available.signal() }
    }

    /// Looks up chunks until `finish` (one thread's work).
    func work() {
      while true {
        available.wait()
        guard let (offset, paths) = state.withLock({ $0.waiting.popLast() }) else { return }
        let found = paths.map { path in path.flatMap { try? FileStatus.lstat($0) } }
        state.withLock { $0.found[offset] = found }
      }
    }

    /// The statuses found, in the order of the entries.
    func statuses(count: Int) -> [FileStatus?] {
      state.withLock { state in
        var statuses: [FileStatus?] = []
        statuses.reserveCapacity(count)
        for offset in state.found.keys.sorted() { statuses += state.found[offset]! }
        return statuses
      }
    }
  }

  /// Reads the digests of `indices` (`width` files at a time), records them in the candidates
  /// and the report; a file that cannot be read is dropped and reported.
  private func digest(
    _ indices: [Int], of candidates: inout Candidates, in entries: [ComparedFile], whole: Bool, width: Int,
    report: inout DuplicateReport
  ) async {
    guard !indices.isEmpty else { return }
    let sources = indices.map { candidates.items[$0].source(entries) }
    let results = await Self.digestAll(sources, whole: whole, width: width)
    for (index, result) in zip(indices, results) {
      switch result {
      case .read(let (identity, digest)):
        candidates.digests[index] = digest
        candidates.sizes[index] = identity.size
        if candidates.items[index].status != nil { candidates.items[index].identity = identity }
        report.contentsRead += 1
        report.bytesRead += whole ? identity.size : min(identity.size, 2 * Int64(ContentDigester.sampleEdge))
        report.computed.append((identity, digest))
      case .failed(let error):
        candidates.digests[index] = nil
        report.skipped.append(error)
      }
    }
  }

  /// The digests of `sources`, in order, read by `width` threads each taking the next source as
  /// it finishes one.
  private static func digestAll(_ sources: [ContentSource], whole: Bool, width: Int) async -> [DigestOutcome]
  {
    let queue = DigestQueue(count: sources.count)
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<max(1, min(width, sources.count)) {
        group.addTask {
          await BlockingThread.run {
            let digester = ContentDigester()
            while true {
              let index = queue.next.add(1, ordering: .relaxed).oldValue
              guard index < sources.count else { return }
              let result: DigestOutcome
              do {
                result = .read(try digester.digest(sources[index], whole: whole))
              } catch {
                result = .failed(
                  error as? any ShelfError ?? FileError(path: RawPath(""), reason: "\(error)", failure: .io))
              }
              queue.results.withLock { $0[index] = result }
            }
          }
        }
      }
    }
    return queue.results.withLock { $0.map { $0! } }
  }

  /// The next source to read and the outcomes so far, shared by the reading threads.
  private final class DigestQueue: Sendable {
    let next = Atomic<Int>(0)
    let results: Mutex<[DigestOutcome?]>

    init(count: Int) { results = Mutex([DigestOutcome?](repeating: nil, count: count)) }
  }

  /// A content read, or why it could not be.
  private enum DigestOutcome: Sendable {
    case read((ContentIdentity, ContentDigest))
    case failed(any ShelfError)
  }

  /// A group of identical members with the keep rule applied, or nil when it is not shown
  /// (every member under a reference root).
  static func group(
    _ members: [DuplicateMember], size: Int64, hash: ContentHash, settings: DuplicateSettings,
    roots: [RawPath]
  ) -> DuplicateGroup? {
    let reference = members.map { member in settings.referenceRoots.contains { member.file.path.isInside($0) }
    }
    guard reference.contains(false) else { return nil }
    // Files on disk outside the reference roots are what actions may touch; one is kept unless
    // a reference copy exists. Backup entries and reference files are always kept.
    let actionable = members.indices.filter { !members[$0].isBackupEntry && !reference[$0] }
    let kept =
      reference.contains(true)
      ? nil : actionable.min { Self.precedes(members[$0], members[$1], settings.keep, roots) }
    var members = members
    for index in members.indices { members[index].keep = index == kept || !actionable.contains(index) }
    members.sort { a, b in a.keep != b.keep ? a.keep : a.file.path < b.file.path }
    return DuplicateGroup(size: size, hash: hash, members: members)
  }

  /// True when `a` is kept rather than `b` under `rule`.
  static func precedes(
    _ a: DuplicateMember, _ b: DuplicateMember, _ rule: DuplicateKeepRule, _ roots: [RawPath]
  )
    -> Bool
  {
    let (pa, pb) = (a.file.path, b.file.path)
    func shorter() -> Bool { pa.bytes.count != pb.bytes.count ? pa.bytes.count < pb.bytes.count : pa < pb }
    func older() -> Bool {
      a.file.mtimeNanoseconds != b.file.mtimeNanoseconds
        ? a.file.mtimeNanoseconds < b.file.mtimeNanoseconds : shorter()
    }
    switch rule {
    case .oldest: return older()
    case .newest:
      return a.file.mtimeNanoseconds != b.file.mtimeNanoseconds
        ? a.file.mtimeNanoseconds > b.file.mtimeNanoseconds : shorter()
    case .shortestPath: return shorter()
    case .longestPath: return pa.bytes.count != pb.bytes.count ? pa.bytes.count > pb.bytes.count : pa < pb
    case .firstRoot:
      let ra = a.file.root.flatMap { roots.firstIndex(of: $0) } ?? Int.max
      let rb = b.file.root.flatMap { roots.firstIndex(of: $0) } ?? Int.max
      return ra != rb ? ra < rb : older()
    }
  }
}

extension RawPath {
  /// True when this path is `folder` or lies below it.
  func isInside(_ folder: RawPath) -> Bool {
    let folderBytes = folder.bytes.last == UInt8(ascii: "/") ? Array(folder.bytes.dropLast()) : folder.bytes
    guard bytes.count >= folderBytes.count, bytes.starts(with: folderBytes) else { return false }
    return bytes.count == folderBytes.count || bytes[folderBytes.count] == UInt8(ascii: "/")
  }
}

extension DuplicateFinder {
  /// Keeps the digests `report` computed in the catalogue at `location`, in one short write
  /// under the writer's lock, never waiting for it: `dupes` is a reader, and a busy or
  /// read-only catalogue only means the digests are computed again next time. Returns why
  /// they were not kept, or nil.
  public static func keepDigests(
    of report: DuplicateReport, in location: CatalogLocation, shelfVersion: String
  )
    -> String?
  {
    guard !report.computed.isEmpty else { return nil }
    do {
      let writer = try CatalogStore.openForWriting(
        at: location, shelfVersion: shelfVersion, lockWait: 0, create: false)
      try ContentHashCache.store(report.computed, into: writer)
      return nil
    } catch {
      return (error as? any ShelfError)?.description ?? "\(error)"
    }
  }
}
