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

/// What comparing contents needs of a catalogued file: where it is, its size and time as
/// catalogued, whether it is a backup entry (read from its backup, never acted on).
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
}

/// Finds the catalogued files whose contents are identical, as `shelf dupes` lists them.
///
/// Only sizes shared by two files or more are looked at; of those, each file's head and tail
/// (4 KiB each) are sampled, and only files whose samples match are read whole and hashed.
/// Digests are kept in the catalogue keyed by device, inode, size and times (see
/// `ContentHashCache`), so a second search of an unchanged tree reads no content. Every file
/// on disk is `lstat`ed first: a file gone is dropped, one changed since it was catalogued or
/// hashed is hashed again. Hard links of one inode are one member. A backup entry is hashed by
/// its (decrypted) content, read through `backups`.
public struct DuplicateFinder {
  let store: CatalogStore
  let backups: BackupEntryResolver

  public init(store: CatalogStore, backups: BackupEntryResolver) {
    self.store = store
    self.backups = backups
  }

  /// A file to compare, as found now.
  private struct Candidate {
    var member: DuplicateMember
    var source: ContentSource
    var size: Int64
    /// The catalogue's digest, when it still describes the file.
    var digest: ContentDigest?
  }

  /// Groups the `entries` (the matches of a query) by content.
  public func find(_ entries: [ComparedFile], settings: DuplicateSettings) async throws -> DuplicateReport {
    var report = DuplicateReport()
    let cached = try ContentHashCache.load(store)
    let statuses = await Self.statuses(of: entries, width: settings.width)
    var candidates = collect(entries, statuses: statuses, settings: settings, cached: cached, report: &report)

    // Sizes shared by two files or more, then samples shared by two or more, then hashes.
    let bySize = Dictionary(grouping: candidates.indices, by: { candidates[$0].size }).values.filter {
      $0.count > 1
    }
    let unsampled = bySize.flatMap { $0 }.filter { candidates[$0].digest == nil }
    await digest(unsampled, of: &candidates, whole: false, width: settings.width, report: &report)
    var toHash: [Int] = []
    for indices in bySize {
      let sampled = indices.filter { candidates[$0].digest != nil }
      for same in Self.runs(of: sampled, by: { candidates[$0].digest!.sample }) {
        toHash += same.filter { candidates[$0].digest?.hash == nil }
      }
    }
    await digest(toHash, of: &candidates, whole: true, width: settings.width, report: &report)

    let roots = try store.roots().map(\.path)
    var groups: [DuplicateGroup] = []
    for indices in bySize {
      let hashed = indices.filter { candidates[$0].digest?.hash != nil }
      for same in Self.runs(of: hashed, by: { candidates[$0].digest!.hash! }) {
        let members = same.map { candidates[$0].member }
        guard
          let group = Self.group(
            members, size: candidates[same[0]].size, hash: candidates[same[0]].digest!.hash!,
            settings: settings, roots: roots)
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
  /// not open is skipped, reported once), sizes filtered.
  private func collect(
    _ entries: [ComparedFile], statuses: [FileStatus?], settings: DuplicateSettings,
    cached: [ContentIdentity.FileKey: (ContentIdentity, ContentDigest)], report: inout DuplicateReport
  ) -> [Candidate] {
    var candidates: [Candidate] = []
    candidates.reserveCapacity(entries.count)
    var byFile: [ContentIdentity.FileKey: Int] = [:]
    byFile.reserveCapacity(entries.count)
    var unopened: Set<PathKey> = []
    let minimum = settings.includeEmpty ? min(settings.minimumSize, 0) : max(settings.minimumSize, 1)
    for (entry, status) in zip(entries, statuses) {
      // A shared catalogue's entries of other machines name files this one cannot read.
      guard entry.host == nil || entry.host == store.host else { continue }
      if entry.isBackupEntry, let root = entry.root {
        guard !unopened.contains(PathKey(root.bytes)) else { continue }
        guard entry.size >= minimum else { continue }
        do {
          guard let (backup, backupEntry) = try backups.entry(at: entry.path, in: root) else {
            report.skipped.append(
              FileError(
                path: entry.path, reason: "no longer in the backup's manifest", failure: .missingInput))
            continue
          }
          guard backupEntry.type == .file else { continue }
          let content = try backup.open(backupEntry)
          var digest: ContentDigest?
          if let stored = content.storedStatus {
            let identity = ContentIdentity(stored, size: content.size ?? backupEntry.size)
            if let (known, kept) = cached[identity.fileKey], known == identity { digest = kept }
          }
          candidates.append(
            Candidate(
              member: DuplicateMember(file: entry, links: 1, keep: true, identity: nil),
              source: .backupEntry(backup, backupEntry), size: content.size ?? entry.size, digest: digest))
        } catch {
          unopened.insert(PathKey(root.bytes))
          report.skipped.append(
            error as? any ShelfError ?? FileError(path: root, reason: "\(error)", failure: .io))
        }
        continue
      }
      guard let status, status.type == .regular, status.size >= minimum else { continue }
      // The keep rule judges the file as it is now, not as it was catalogued.
      var entry = entry
      entry.size = status.size
      entry.mtimeNanoseconds = status.mtimeNanoseconds
      let identity = ContentIdentity(status)
      if let index = byFile[identity.fileKey] {
        // Another name of a file already met: the shorter (then the first in path order) name
        // stands for it, whatever order the catalogue gave them in.
        let known = candidates[index].member.file
        let (new, old) = (entry.path.bytes.count, known.path.bytes.count)
        if new < old || (new == old && entry.path < known.path) {
          candidates[index].member.file = entry
          candidates[index].member.otherNames.append(known.path)
        } else {
          candidates[index].member.otherNames.append(entry.path)
        }
        continue
      }
      var digest: ContentDigest?
      if let (known, kept) = cached[identity.fileKey], known == identity { digest = kept }
      byFile[identity.fileKey] = candidates.count
      candidates.append(
        Candidate(
          member: DuplicateMember(
            file: entry, links: Int(clamping: status.linkCount), keep: false, identity: identity),
          source: .file(entry.path), size: status.size, digest: digest))
    }
    return candidates
  }

  /// The `lstat` of every file on disk among `entries` (nil for backup entries and files gone),
  /// `width` threads at a time: on a warm cache the path lookups are the search's largest cost.
  private static func statuses(of entries: [ComparedFile], width: Int) async -> [FileStatus?] {
    let queue = StatusQueue(count: entries.count)
    let chunk = 256
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<max(1, min(width, entries.count / chunk + 1)) {
        group.addTask {
          await BlockingThread.run {
            var found: [(Int, FileStatus)] = []
            while true {
              let start = queue.next.add(chunk, ordering: .relaxed).oldValue
              guard start < entries.count else { break }
              for index in start..<min(start + chunk, entries.count) where !entries[index].isBackupEntry {
                if let status = try? FileStatus.lstat(entries[index].path) { found.append((index, status)) }
              }
            }
            queue.results.withLock { results in
              for (index, status) in found { results[index] = status }
            }
          }
        }
      }
    }
    return queue.results.withLock { $0 }
  }

  /// The next entries to `lstat` and the statuses found, shared by the threads.
  private final class StatusQueue: Sendable {
    let next = Atomic<Int>(0)
    let results: Mutex<[FileStatus?]>

    init(count: Int) { results = Mutex([FileStatus?](repeating: nil, count: count)) }
  }

  /// Reads the digests of `indices` (`width` files at a time), records them in the candidates
  /// and the report; a file that cannot be read is dropped and reported.
  private func digest(
    _ indices: [Int], of candidates: inout [Candidate], whole: Bool, width: Int, report: inout DuplicateReport
  ) async {
    guard !indices.isEmpty else { return }
    let sources = indices.map { candidates[$0].source }
    let results = await Self.digestAll(sources, whole: whole, width: width)
    for (index, result) in zip(indices, results) {
      switch result {
      case .read(let (identity, digest)):
        candidates[index].digest = digest
        candidates[index].size = identity.size
        if candidates[index].member.identity != nil { candidates[index].member.identity = identity }
        report.contentsRead += 1
        report.bytesRead += whole ? identity.size : min(identity.size, 2 * Int64(ContentDigester.sampleEdge))
        report.computed.append((identity, digest))
      case .failed(let error):
        candidates[index].digest = nil
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
    func isReference(_ member: DuplicateMember) -> Bool {
      settings.referenceRoots.contains { member.file.path.isInside($0) }
    }
    guard members.contains(where: { !isReference($0) }) else { return nil }
    var members = members
    let hasReference = members.contains(where: isReference)
    // Files on disk outside the reference roots are what actions may touch; one is kept unless
    // a reference copy exists. Backup entries and reference files are always kept.
    let actionable = members.indices.filter { !members[$0].isBackupEntry && !isReference(members[$0]) }
    for index in members.indices { members[index].keep = !actionable.contains(index) }
    if !hasReference,
      let kept = actionable.min(by: { Self.precedes(members[$0], members[$1], settings.keep, roots) })
    {
      members[kept].keep = true
    }
    members.sort { a, b in
      a.keep != b.keep ? a.keep : a.file.path.bytes.lexicographicallyPrecedes(b.file.path.bytes)
    }
    return DuplicateGroup(size: size, hash: hash, members: members)
  }

  /// True when `a` is kept rather than `b` under `rule`.
  static func precedes(
    _ a: DuplicateMember, _ b: DuplicateMember, _ rule: DuplicateKeepRule, _ roots: [RawPath]
  )
    -> Bool
  {
    let (pa, pb) = (a.file.path.bytes, b.file.path.bytes)
    func shorter() -> Bool { pa.count != pb.count ? pa.count < pb.count : pa.lexicographicallyPrecedes(pb) }
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
    case .longestPath: return pa.count != pb.count ? pa.count > pb.count : pa.lexicographicallyPrecedes(pb)
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
