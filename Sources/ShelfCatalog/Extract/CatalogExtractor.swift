public import ShelfBackup
import ShelfCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Why a catalogued file was not extracted; the CLI adds advice (which option changes it).
public struct CatalogExtractError: ShelfError, Equatable {
  /// The reasons, typed so that the CLI can advise.
  public enum Reason: Sendable, Equatable {
    /// The output exists with other content and replacing was not allowed.
    case outputDiffers(RawPath)
    /// The output exists and is not a regular file (a folder, a device): never replaced.
    case outputNotAFile(RawPath, FileType)
    /// The entry's path would leave the output folder (`..`, an absolute or empty part, a NUL)
    /// or pass through a symbolic link in it.
    case unsafePath(String)
  }

  /// The catalogued path of the entry.
  public var path: RawPath
  public var reason: Reason

  /// An error about the entry catalogued at `path`.
  public init(path: RawPath, reason: Reason) {
    self.path = path
    self.reason = reason
  }

  public var failure: FailureKind {
    switch reason {
    case .outputDiffers, .outputNotAFile: .cannotCreate
    case .unsafePath: .badInput
    }
  }

  /// What is wrong, without advice.
  public var explanation: String {
    switch reason {
    case .outputDiffers(let output): "\(output.escaped) exists with different content; not replaced"
    case .outputNotAFile(let output, let type): "\(output.escaped) is a \(type.rawValue); not replaced"
    case .unsafePath(let why): "unsafe path (\(why)); not extracted"
    }
  }

  public var description: String { "\(path.escaped): \(explanation)" }
}

/// Where an extracted file's bytes come from.
public enum CatalogExtractSource: Sendable {
  /// A file on disk (an entry of an ordinary root), read as it is now.
  case file(RawPath)
  /// A file of an iPhone backup, decrypted as it is read when the backup is encrypted.
  case backupEntry(Backup, BackupEntry)
}

/// One catalogued file to extract and the file it becomes.
public struct CatalogExtractJob: Sendable {
  /// The catalogued path (what reports name).
  public var path: RawPath
  public var source: CatalogExtractSource
  /// The file written.
  public var output: RawPath
  /// The modification time the output gets (ns since the epoch).
  public var modified: Int64
}

/// The jobs of a batch, and what was refused while planning: entries with unsafe names,
/// entries their backup no longer holds, and backups that could not be opened (a missing or
/// wrong password: one error for all of the backup's entries); and the backup's symbolic
/// links beside the files extracted, which are neither followed nor recreated.
public struct CatalogExtractPlan: Sendable {
  /// An error and how many of the batch's entries it stops.
  public struct Refusal: Sendable {
    public var error: any ShelfError
    public var entries: Int
  }

  /// A backup's symbolic link, skipped: its catalogued path and where it points.
  public struct SkippedLink: Sendable, Equatable {
    public var path: RawPath
    public var target: RawPath
  }

  /// A backup's manifest row with an empty path: it names no file of its domain (it would
  /// take the domain folder's own name), so it is skipped, as a warning.
  public struct NamelessEntry: Sendable, Equatable {
    /// The backup's folder.
    public var backup: RawPath
    public var domain: String
  }

  public var jobs: [CatalogExtractJob] = []
  public var refused: [Refusal] = []
  public var skippedLinks: [SkippedLink] = []
  public var namelessEntries: [NamelessEntry] = []
}

/// What happened to one file.
public struct CatalogExtractReport: Sendable {
  /// What the extraction did.
  public enum Outcome: Sendable, Equatable {
    /// Written (created, or replaced with `force`).
    case extracted
    /// The output already held exactly these bytes: left as it was.
    case identical
    /// Nothing was written; see `error`.
    case failed
  }

  public var job: CatalogExtractJob
  public var outcome: Outcome = .failed
  /// The bytes of the file (written, or found identical).
  public var bytes: Int64 = 0
  public var error: (any ShelfError)?

  /// A report of a job not done yet (it counts as failed until `extract` fills it in).
  public init(job: CatalogExtractJob) { self.job = job }
}

/// How a `CatalogExtractor` runs.
public struct CatalogExtractSettings: Sendable {
  /// The output folder.
  public var destination: RawPath
  /// How outputs are named below `destination`.
  public var layout: CatalogExtractLayout
  /// Replace an output that exists with different content.
  public var force: Bool
  /// Files copied at once, each on a thread of its own.
  public var width: Int
  /// Passed to every `AtomicFileWriter` (tests stop a write before its rename through it).
  public var writerBeforeRename: (@Sendable (RawPath) -> Void)?

  /// Settings for extracting into `destination` (2 files at a time, nothing replaced).
  public init(
    destination: RawPath, layout: CatalogExtractLayout = .tree, force: Bool = false, width: Int = 2,
    writerBeforeRename: (@Sendable (RawPath) -> Void)? = nil
  ) {
    self.destination = destination
    self.layout = layout
    self.force = force
    self.width = max(1, width)
    self.writerBeforeRename = writerBeforeRename
  }
}

/// Copies catalogued files out to a folder: `DESTINATION/<path relative to its root>`, a
/// backup's entries under a folder named for the backup (`ExtractOutputNames`), or flat, or
/// named by a template; no two outputs of a run collide. Every write is atomic and keeps the
/// entry's modification time; an output that already holds the same bytes is left alone, one
/// with other bytes is replaced only with `force`; names that would leave the destination are
/// refused. The library side of `shelf extract`.
public struct CatalogExtractor: Sendable {
  public var settings: CatalogExtractSettings

  /// An extractor with these settings.
  public init(settings: CatalogExtractSettings) { self.settings = settings }

  /// Names every entry's output and finds its content: a file on disk, or for an entry of an
  /// iPhone backup its manifest entry through `backups` (which opens each backup once).
  /// `roots` are the catalogue's roots (a backup's folder is named from its facts). Entries
  /// with unsafe names and the entries of a backup that cannot be opened are refused; the
  /// symbolic links of a backup that lie beside a file extracted from it are listed.
  public func plan(
    _ entries: [CatalogEntry], roots: [CatalogRoot], backups: BackupEntryResolver
  ) -> CatalogExtractPlan {
    var plan = CatalogExtractPlan()
    var names = ExtractOutputNames(
      destination: settings.destination, layout: settings.layout, entries: entries, roots: roots)
    // Keyed by `PathKey`, hashed in one pass: these are looked up once per entry.
    var unopened: [PathKey: Int] = [:]
    /// The folders (catalogued paths) each backup's extracted files are in.
    var backupFolders: [PathKey: Set<PathKey>] = [:]
    for entry in entries {
      var source = CatalogExtractSource.file(entry.path)
      var modified = entry.mtimeNanoseconds
      if entry.backup != nil, let root = entry.root {
        if let index = unopened[PathKey(root.bytes)] {
          plan.refused[index].entries += 1
          continue
        }
        do {
          guard let (backup, backupEntry) = try backups.entry(at: entry.path, in: root) else {
            plan.refused.append(
              .init(
                error: FileError(
                  path: entry.path, reason: "no longer in the backup's manifest", failure: .missingInput),
                entries: 1))
            continue
          }
          guard !backupEntry.relativePath.bytes.isEmpty else {
            plan.namelessEntries.append(.init(backup: root, domain: backupEntry.domain))
            continue
          }
          source = .backupEntry(backup, backupEntry)
          modified = backupEntry.modified
          backupFolders[PathKey(root.bytes), default: []].insert(PathKey(entry.path.parent.bytes))
        } catch {
          unopened[PathKey(root.bytes)] = plan.refused.count
          plan.refused.append(
            .init(
              error: error as? any ShelfError ?? FileError(path: root, reason: "\(error)", failure: .io),
              entries: 1))
          continue
        }
      }
      let output: RawPath
      do {
        output = try names.output(for: entry)
      } catch {
        plan.refused.append(.init(error: error, entries: 1))
        continue
      }
      plan.jobs.append(
        CatalogExtractJob(path: entry.path, source: source, output: output, modified: modified))
    }
    for (key, folders) in backupFolders.sorted(by: { $0.key.bytes.lexicographicallyPrecedes($1.key.bytes) }) {
      let root = RawPath(bytes: key.bytes)
      for link in (try? backups.symbolicLinks(in: root)) ?? [] {
        let path = link.cataloguePath(in: root)
        guard folders.contains(PathKey(path.parent.bytes)) else { continue }
        plan.skippedLinks.append(.init(path: path, target: link.linkTarget ?? RawPath("")))
      }
    }
    return plan
  }

  /// Extracts every job, `settings.width` at a time, each on a thread of its own, each thread
  /// in an output folder of its own while there are enough (`ExtractQueue`), then flushes the
  /// new files to disk at once. `finished` is called as each file is done with its report
  /// and the count done so far. Returns the reports in the order of `jobs`.
  ///
  /// The destination is opened once, by the first file written (made first if missing), and
  /// every output reached from its descriptor (`ContainedDirectory`): nothing is written
  /// outside it, whatever is renamed inside it during the run.
  public func run(
    _ jobs: [CatalogExtractJob],
    finished: @escaping @Sendable (CatalogExtractReport, Int) -> Void = { _, _ in }
  ) async -> [CatalogExtractReport] {
    let destination = LazyContainedDirectory(settings.destination)
    let reports = ExtractReports(outputs: jobs.map(\.output))
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<min(settings.width, jobs.count) {
        group.addTask {
          await BlockingThread.run {
            // Each worker takes the next file as it finishes one, so a big file holds up none.
            var readyFolder: (path: RawPath, folder: OpenFolder)?
            var next = reports.take(after: nil)
            while let (job, folder) = next {
              let report = extract(jobs[job], in: destination, readyFolder: &readyFolder)
              let done: Int
              (done, next) = reports.store(report, at: job, takingNextAfter: folder)
              finished(report, done)
            }
          }
        }
      }
    }
    let all = reports.all()
    // New files were written without a flush each: one flush of the destination's filesystem
    // makes them all durable before the batch reports them extracted.
    if all.contains(where: { $0.outcome == .extracted }), let destination = try? destination.open() {
      AtomicFileWriter.flushWrittenFiles(in: destination.root)
    }
    return all
  }

  /// Extracts one file: the output is checked (same bytes: left; other bytes: replaced only
  /// with `force`), then written atomically with the entry's modification time, in the output
  /// folder opened from `destination`'s descriptor. `readyFolder` is the output folder the
  /// calling worker last opened: a worker's next file in the same folder reuses it.
  func extract(
    _ job: CatalogExtractJob, in outputFolder: LazyContainedDirectory,
    readyFolder: inout (path: RawPath, folder: OpenFolder)?
  ) -> CatalogExtractReport {
    var report = CatalogExtractReport(job: job)
    do {
      let content = try ExtractContent(job.source)
      report.bytes = content.size
      let destination = try outputFolder.open()
      guard let relative = destination.relative(job.output) else {
        throw CatalogExtractError(
          path: job.path, reason: .unsafePath("outside \(settings.destination.escaped)"))
      }
      let parent = relative.parent
      let folder: OpenFolder
      if let ready = readyFolder, ready.path == parent {
        folder = ready.folder
      } else {
        readyFolder = nil
        do {
          folder = try destination.folder(parent)
        } catch let error as ContainmentError {
          throw CatalogExtractError(
            path: job.path, reason: .unsafePath(error.finding))
        }
        readyFolder = (parent, folder)
      }
      let name = relative.lastComponent
      let existing = folder.status(of: name)
      if let existing {
        if existing.type == .regular, existing.size == content.size,
          try content.isIdentical(to: name, in: folder)
        {
          report.outcome = .identical
          return report
        }
        if existing.type != .regular && existing.type != .symbolicLink {
          throw CatalogExtractError(path: job.path, reason: .outputNotAFile(job.output, existing.type))
        }
        if !settings.force { throw CatalogExtractError(path: job.path, reason: .outputDiffers(job.output)) }
      }
      // A new file is flushed with the whole batch (`run`); a file replaced is flushed at once.
      // The output was looked at just above (what is neither a file nor a link refused).
      let writer = try AtomicFileWriter(
        name: name, in: folder,
        options: AtomicFileWriter.Options(
          modificationTime: content.modified ?? job.modified, createsFolders: false,
          flushesEachFile: existing != nil, beforeRename: settings.writerBeforeRename, checksTarget: false,
          replacing: existing, createsOnly: existing == nil))
      try content.copy(into: writer)
      try writer.commit()
      report.outcome = .extracted
    } catch {
      report.error = error as? any ShelfError ?? FileError(path: job.path, reason: "\(error)", failure: .io)
    }
    return report
  }
}

/// The bytes of one job's source, opened once: compared with an existing output and copied.
private struct ExtractContent {
  private enum Origin {
    case file(RegularFile)
    case backup(BackupContent)
  }

  private let origin: Origin
  /// The content's size in bytes.
  let size: Int64
  /// The source's own modification time, when it has one (a file on disk, read as it is now).
  let modified: Int64?

  static let chunk = 1 << 20

  init(_ source: CatalogExtractSource) throws {
    switch source {
    case .file(let path):
      let file = try RegularFile(path: path, followLinks: false)
      origin = .file(file)
      size = file.status.size
      modified = file.status.mtimeNanoseconds
    case .backupEntry(let backup, let entry):
      // Found and opened once. A plain backup's stored file is the content itself: copied as
      // a file is.
      let content = try backup.open(entry)
      if let stored = content.plainFile {
        origin = .file(stored)
        size = stored.status.size
      } else {
        origin = .backup(content)
        size = content.size ?? entry.size
      }
      modified = nil
    }
  }

  /// Hands the content to `sink` a chunk at a time.
  func read(into sink: (UnsafeRawBufferPointer) throws -> Void) throws {
    switch origin {
    case .file(let file):
      var offset: Int64 = 0
      while true {
        let bytes = try file.read(count: Self.chunk, at: offset)
        if bytes.isEmpty { break }
        try bytes.withUnsafeBytes { try sink($0) }
        offset += Int64(bytes.count)
      }
    case .backup(let content):
      try content.read(into: sink)
    }
  }

  /// True when the file `name` in `folder` holds exactly these bytes.
  func isIdentical(to name: RawPath, in folder: OpenFolder) throws -> Bool {
    guard let other = try? folder.openFile(name), other.status.size == size else {
      return false
    }
    var offset: Int64 = 0
    var same = true
    try read { chunk in
      guard same else { return }
      let theirs = try other.read(count: chunk.count, at: offset)
      same = theirs.elementsEqual(chunk)
      offset += Int64(chunk.count)
    }
    return same && offset == size
  }

  /// Copies the content into `writer`: a file inside the kernel, a backup entry's decrypted
  /// content chunk by chunk. A file that changed size meanwhile is an error, not a short copy.
  func copy(into writer: AtomicFileWriter) throws {
    switch origin {
    case .file(let file):
      let copied = try writer.append(contentsOf: file)
      guard copied == size else {
        throw FileError(
          path: file.path, reason: "changed size while being copied (\(size) to \(copied) bytes)",
          failure: .io)
      }
    case .backup:
      try read { chunk in try writer.write(chunk) }
    }
  }
}

/// Hands out the jobs of a batch so that workers write into different folders: a worker keeps
/// to one output folder until its files are all taken, then moves to a folder that no other
/// worker is writing in (or, when none is left, shares one). The kernel serialises the creates
/// and renames in a folder; two workers in one folder spent more CPU spinning on its lock than
/// copying (measured with `perf` on ext4: `rwsem_spin_on_owner` in `rename`).
struct ExtractQueue {
  /// The job indices of each output folder, in job order; folders in order of first use.
  private var folders: [[Int]] = []
  /// How many of each folder's jobs are taken.
  private var taken: [Int]
  /// How many workers are in each folder.
  private var writers: [Int]
  /// The first folder with jobs not yet taken.
  private var firstOpen = 0

  /// A queue of the jobs whose outputs are `outputs`.
  init(outputs: [RawPath]) {
    var numbers: [PathKey: Int] = [:]
    for (index, output) in outputs.enumerated() {
      let parent = PathKey(output.parent.bytes)
      if let number = numbers[parent] {
        folders[number].append(index)
      } else {
        numbers[parent] = folders.count
        folders.append([index])
      }
    }
    taken = Array(repeating: 0, count: folders.count)
    writers = Array(repeating: 0, count: folders.count)
  }

  /// The next job for a worker whose last job was in folder `previous` (nil: its first job),
  /// and the job's folder; nil when every job is taken.
  mutating func take(after previous: Int?) -> (job: Int, folder: Int)? {
    var folder = previous
    if let current = previous, taken[current] == folders[current].count {
      writers[current] -= 1
      folder = nil
    }
    if folder == nil {
      // Folders before `firstOpen` are all taken; past it, the first free one is a few steps
      // away at most (one per other worker).
      while firstOpen < folders.count && taken[firstOpen] == folders[firstOpen].count { firstOpen += 1 }
      guard firstOpen < folders.count else { return nil }
      var chosen = firstOpen
      while chosen < folders.count && (writers[chosen] > 0 || taken[chosen] == folders[chosen].count) {
        chosen += 1
      }
      if chosen == folders.count { chosen = firstOpen }
      writers[chosen] += 1
      folder = chosen
    }
    let chosen = folder!
    taken[chosen] += 1
    return (folders[chosen][taken[chosen] - 1], chosen)
  }
}

/// The reports of a batch, stored by the worker threads in job order, and the next job to take:
/// both under one lock, taken once per file.
private final class ExtractReports: Sendable {
  private struct State {
    var queue: ExtractQueue
    var done = 0
    var reports: [CatalogExtractReport?]
  }

  private let state: Mutex<State>

  init(outputs: [RawPath]) {
    state = Mutex(
      State(queue: ExtractQueue(outputs: outputs), reports: Array(repeating: nil, count: outputs.count)))
  }

  /// The next job to run and its folder, for a worker last in folder `previous`.
  func take(after previous: Int?) -> (job: Int, folder: Int)? {
    state.withLock { $0.queue.take(after: previous) }
  }

  /// Stores the report of job `index`, done in `folder`; returns how many jobs are done and the
  /// worker's next job.
  func store(_ report: CatalogExtractReport, at index: Int, takingNextAfter folder: Int) -> (
    done: Int, next: (job: Int, folder: Int)?
  ) {
    state.withLock { state in
      state.reports[index] = report
      state.done += 1
      return (state.done, state.queue.take(after: folder))
    }
  }

  func all() -> [CatalogExtractReport] { state.withLock { $0.reports.compactMap { $0 } } }
}
