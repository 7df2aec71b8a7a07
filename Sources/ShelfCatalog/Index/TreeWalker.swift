import ShelfBackup
import ShelfCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

extension FileStatus {
  /// The status of an absolute path, following links; nil when it cannot be read.
  static func following(_ path: RawPath) -> FileStatus? { try? FileStatus.stat(path) }
}

/// A regular file found by a walk.
public struct WalkedFile: Sendable {
  /// The absolute path as found (through a link when `viaLink`).
  public var path: RawPath
  /// Where the path relative to the root starts in `path` (made when asked: most files of a
  /// rescan never need it).
  var relativeStart: Int
  /// `lstat` of the file (of the link's target when `viaLink`).
  public var status: FileStatus
  /// The path to open: the same as `path`, or the link's resolved target inside the root.
  public var openPath: RawPath
  /// True when found through a symbolic link (`--follow-links`).
  public var viaLink: Bool

  /// The path relative to the root, without a leading slash.
  public var relative: [UInt8] { Array(path.bytes[relativeStart...]) }
}

/// Something a walk skipped and why.
public struct WalkProblem: Sendable, Equatable {
  public var path: RawPath
  public var reason: String
}

/// What a walk saw besides the files it reported.
public struct WalkSummary: Sendable {
  public var directories = 0
  /// Symbolic links not followed (following is off, or they lead out of the root).
  public var skippedLinks = 0
  /// Links that would have led out of the root.
  public var linksOutsideRoot = 0
  /// Folders reached again through links (loops), not walked twice.
  public var loops = 0
  /// FIFOs, sockets and device nodes, never opened.
  public var specialFiles = 0
  /// Entries matched by `--exclude` or `.shelfignore`.
  public var excluded = 0
  /// Folders that could not be read or searched: nothing below them is known, so the
  /// catalogue keeps its entries there as they were.
  public var unreadable: [WalkProblem] = []
  /// iPhone backups found (`findBackups`): not walked, as each is catalogued as a root of its
  /// own, by the real names of its files.
  public var backups: [RawPath] = []
  /// Folders that hold backup files without being a backup (`findBackups`), with why: walked
  /// as plain files.
  public var lookalikes: [WalkProblem] = []
  /// Folders of `skipFolders` met: roots of their own, not walked.
  public var skippedRoots: [RawPath] = []
  /// Files the catalogue holds unchanged, passed over by the walk's `sieve` and not reported.
  public var passedUnchanged = 0
}

/// Walks a root folder for regular files without ever leaving it: symbolic links are not
/// followed unless asked, and then only when they resolve inside the root, with loop detection;
/// special files are counted, never opened.
public struct TreeWalker: Sendable {
  /// The root, resolved (`realpath`).
  public let root: RawPath
  public var followLinks: Bool
  /// False to skip files and folders whose names begin with a dot (players do, as fd does).
  public var includeHidden: Bool
  public var excludes: ExcludeRules
  /// Absolute paths never reported (the catalogue's own files).
  public var skipPaths: Set<RawPath>
  /// The last components of `skipPaths` (a few): a cheap first test, made on every file
  /// without an allocation (hashing whole paths is not cheap).
  private var skipNames: [[UInt8]]
  /// Folders never walked (the roots of their own inside this one), reported in the summary.
  public var skipFolders: Set<RawPath>
  /// Tell iPhone backups from the names in each folder and leave them out of the walk
  /// (reported in the summary): their stored files are hashed blobs, not the user's files.
  public var findBackups: Bool
  /// Files it passes are not reported (a rescan's unchanged files; see `UnchangedFileSieve`).
  var sieve: UnchangedFileSieve?

  /// Prepares a walk of `root`; throws when it is missing or not a folder.
  public init(
    root: RawPath, followLinks: Bool = false, includeHidden: Bool = true,
    excludes: ExcludeRules = ExcludeRules(),
    skipPaths: Set<RawPath> = [], skipFolders: Set<RawPath> = [], findBackups: Bool = false
  ) throws(FileError) {
    let resolved = try Self.realPath(root)
    let status = try FileStatus.stat(resolved)
    guard status.type == .directory else {
      throw FileError(path: root, reason: "is not a directory", failure: .missingInput)
    }
    self.root = resolved
    self.followLinks = followLinks
    self.includeHidden = includeHidden
    self.excludes = excludes
    self.skipPaths = skipPaths
    self.skipNames = Array(Set(skipPaths.map(\.lastComponent.bytes)))
    self.skipFolders = skipFolders
    self.findBackups = findBackups
  }

  /// `realpath(3)` of a path.
  public static func realPath(_ path: RawPath) throws(FileError) -> RawPath {
    let resolved = path.withCString { realpath($0, nil) }
    guard let resolved else { throw FileError(path: path, errno: errno) }
    defer { free(resolved) }
    return RawPath(
      bytes: Array(
        UnsafeBufferPointer(
          start: UnsafeRawPointer(resolved).assumingMemoryBound(to: UInt8.self), count: strlen(resolved))))
  }

  struct PendingFolder: Sendable {
    var path: RawPath
    var relative: [UInt8]
    /// The folder already opened from its parent's descriptor (`openat`: no lookup of every
    /// component of its path again), or -1 to open it by path.
    var descriptor: Int32 = -1
    /// The folder a followed link leads to (resolved, inside the root), opened in its place:
    /// the link itself is refused by the no-follow open. Nil: `path`.
    var target: RawPath? = nil
  }

  /// Walks the tree, calling `visit` for every regular file found, in name order folder by
  /// folder (a folder's files and subfolders sorted by their bytes together), so that a
  /// playlist or a batch runs in the order `ls` would show. Single-threaded; see `collect`
  /// for the parallel walk.
  public func walk(_ visit: (WalkedFile) throws -> Void) rethrows -> WalkSummary {
    let result = collect(threads: 1)
    let slash = UInt8(ascii: "/")
    let sorted = result.files.map {
      ($0.relative.split(separator: slash, omittingEmptySubsequences: false), $0)
    }
    .sorted { left, right in
      left.0.lexicographicallyPrecedes(right.0) { $0.lexicographicallyPrecedes($1) }
    }
    for (_, file) in sorted { try visit(file) }
    return result.summary
  }

  /// Walks the tree on `threads` threads and returns every regular file found (in no
  /// particular order: the catalogue sorts when it lists) and what else was seen. `shouldStop`
  /// is asked now and then; when it says yes the walk ends early and `stopped` is true.
  public func collect(threads: Int = 1, shouldStop: @escaping @Sendable () -> Bool = { false }) -> (
    files: [WalkedFile], summary: WalkSummary, stopped: Bool
  ) {
    let state = WalkState(root: PendingFolder(path: root, relative: []), rules: excludes)
    if followLinks, let status = FileStatus.following(root) {
      state.visited.insert([status.device, status.inode])
    }
    let workers = max(1, threads)
    var results = [[WalkedFile]](repeating: [], count: workers)
    var summaries = [WalkSummary](repeating: WalkSummary(), count: workers)
    let walker = self
    results.withUnsafeMutableBufferPointer { files in
      summaries.withUnsafeMutableBufferPointer { sums in
        let filesBase = UnsafeSendable(files.baseAddress!)
        let sumsBase = UnsafeSendable(sums.baseAddress!)
        var threadsStarted: [pthread_t] = []
        for worker in 1..<max(workers, 1) {
          let box = Unmanaged.passRetained(
            WorkerBox {
              walker.work(
                state: state, files: &filesBase.pointer[worker], summary: &sumsBase.pointer[worker],
                shouldStop: shouldStop)
            }
          ).toOpaque()
          var thread = pthread_t()
          if pthread_create(
            &thread, nil,
            { raw in
              let box = Unmanaged<WorkerBox>.fromOpaque(raw!).takeRetainedValue()
              box.body()
              return nil
            }, box) == 0
          {
            threadsStarted.append(thread)
          } else {
            Unmanaged<WorkerBox>.fromOpaque(box).release()
          }
        }
        walker.work(
          state: state, files: &filesBase.pointer[0], summary: &sumsBase.pointer[0], shouldStop: shouldStop)
        for thread in threadsStarted { pthread_join(thread, nil) }
      }
    }
    var summary = WalkSummary()
    for part in summaries {
      summary.directories += part.directories
      summary.skippedLinks += part.skippedLinks
      summary.linksOutsideRoot += part.linksOutsideRoot
      summary.loops += part.loops
      summary.specialFiles += part.specialFiles
      summary.excluded += part.excluded
      summary.unreadable += part.unreadable
      summary.backups += part.backups
      summary.lookalikes += part.lookalikes
      summary.skippedRoots += part.skippedRoots
      summary.passedUnchanged += part.passedUnchanged
    }
    summary.backups.sort()
    summary.lookalikes.sort { $0.path < $1.path }
    summary.skippedRoots.sort()
    // The first thread's files taken over, the others' moved after them: no copy of each.
    var files = results.removeFirst()
    files.reserveCapacity(files.count + results.reduce(0) { $0 + $1.count })
    for part in results { files += part }
    return (files, summary, state.stopped)
  }

  /// One worker: takes folders from the shared stack until none are left and nobody is busy.
  private func work(
    state: WalkState, files: inout [WalkedFile], summary: inout WalkSummary, shouldStop: @Sendable () -> Bool
  ) {
    let rootPrefix = root.bytes == [UInt8(ascii: "/")] ? root.bytes : root.bytes + [UInt8(ascii: "/")]
    let listing = FolderListing()
    // Taken once: a static is reached through a once-check on every use.
    let ignoreFileName = Self.ignoreFileName
    var sinceCheck = 0
    // What the sieve knows, once it is seen loaded and the files walked before are sieved.
    var sieving: UnchangedFileSieve.Loaded?
    // The path of the entry being looked at, for the sieve (no allocation per file).
    var entry: [UInt8] = []
    while let (directory, rulesSnapshot) = state.take() {
      defer { state.finished() }
      if sieving == nil, let loaded = sieve?.loaded {
        sieving = loaded
        let walked = files.count
        files.removeAll { file in file.path.bytes.withUnsafeBytes { loaded.passes($0, file.status) } }
        summary.passedUnchanged += walked - files.count
      }
      summary.directories += 1
      var fd =
        directory.descriptor >= 0
        ? directory.descriptor
        : (directory.target ?? directory.path).withCString {
          open($0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        }
      if fd < 0 && errno == ENAMETOOLONG {
        fd = (try? DeepPath.open(directory.target ?? directory.path, flags: O_RDONLY | O_DIRECTORY)) ?? -1
      }
      if directory.descriptor >= 0 { state.releaseDescriptor() }
      guard fd >= 0 else {
        summary.unreadable.append(
          WalkProblem(
            path: directory.path,
            reason: FileError(path: directory.path, errno: errno, doing: "cannot read the folder").reason))
        continue
      }
      defer { close(fd) }
      do {
        try listing.read(fd, path: directory.path)
      } catch {
        summary.unreadable.append(WalkProblem(path: directory.path, reason: error.reason))
        continue
      }
      // One pass over the names: the exclude file, and (when asked) what says a backup.
      var hasIgnoreFile = false
      var recogniser = BackupNameRecogniser()
      listing.forEach { type, name in
        if findBackups && (type == UInt8(DT_REG) || type == UInt8(DT_UNKNOWN)) { recogniser.note(name) }
        if name.count == ignoreFileName.count && name.elementsEqual(ignoreFileName) { hasIgnoreFile = true }
      }
      if findBackups {
        switch recogniser.recognition {
        case .backup where Backup.isBackup(directory.path):
          summary.backups.append(directory.path)
          continue
        case .lookalike(let reason):
          summary.lookalikes.append(WalkProblem(path: directory.path, reason: reason))
        default: break
        }
      }
      var rules = rulesSnapshot
      // Opened from the folder's descriptor (no path to resolve again, however deep it lies),
      // and only when a regular file: opening a device can have side effects.
      var ignoreStatus = stat()
      if hasIgnoreFile, fstatat(fd, ".shelfignore", &ignoreStatus, AT_SYMLINK_NOFOLLOW) == 0,
        ignoreStatus.st_mode & S_IFMT == S_IFREG,
        case let opened = openat(
          fd, ".shelfignore", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC),
        opened >= 0,
        let file = try? RegularFile(adopting: opened, path: directory.path.appending(".shelfignore")),
        let contents = try? file.read(count: 256 << 10)
      {
        rules.addIgnoreFile(contents, base: directory.relative)
        state.addIgnoreFile(contents, base: directory.relative)
      }
      var subdirectories: [PendingFolder] = []
      let filesBefore = files.count
      // Set when the folder's names can be listed but not looked up (read but not search
      // permission): none of what lies below it is known, so none of it is reported.
      var unsearchable: FileError?
      let folderPrefix =
        directory.path.bytes.last == UInt8(ascii: "/")
        ? directory.path.bytes : directory.path.bytes + [UInt8(ascii: "/")]
      if sieving != nil {
        entry.removeAll(keepingCapacity: true)
        entry += folderPrefix
      }
      listing.forEach { type, name in
        sinceCheck += 1
        if unsearchable != nil { return }
        if !includeHidden && name.first == UInt8(ascii: ".") { return }
        var type = type
        var status: FileStatus?
        if type == UInt8(DT_UNKNOWN) || type == UInt8(DT_REG) || (followLinks && type == UInt8(DT_DIR)) {
          guard let found = FolderListing.status(of: name, in: fd) else {
            // Vanished since the listing, or the folder cannot be searched.
            if errno != ENOENT { unsearchable = Self.searchFailure(fd, directory.path) }
            return
          }
          status = found
          type = Self.direntType(found.type)
        }
        /// The entry's path: one allocation, the folder's path and the name.
        func entryPath() -> RawPath {
          var bytes = [UInt8]()
          bytes.reserveCapacity(folderPrefix.count + name.count)
          bytes += folderPrefix
          bytes += name
          return RawPath(bytes: bytes)
        }
        func relative() -> [UInt8] {
          directory.relative.isEmpty ? Array(name) : directory.relative + [UInt8(ascii: "/")] + Array(name)
        }
        switch Int(type) {
        case Int(DT_DIR):
          if !rules.isEmpty && rules.excludes(relative: relative(), name: Array(name), isDirectory: true) {
            summary.excluded += 1
            return
          }
          let path = entryPath()
          if !skipFolders.isEmpty && skipFolders.contains(path) {
            summary.skippedRoots.append(path)
            return
          }
          if followLinks, let status, !state.firstVisit(status) {
            summary.loops += 1
            return
          }
          var folder = PendingFolder(path: path, relative: relative())
          if state.reserveDescriptor() {
            folder.descriptor = openat(
              fd, name.baseAddress!.assumingMemoryBound(to: CChar.self),
              O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if folder.descriptor < 0 {
              state.releaseDescriptor()
              if errno == EACCES, let failure = Self.searchFailure(fd, directory.path) {
                unsearchable = failure
                return
              }
            }
          }
          subdirectories.append(folder)
        case Int(DT_REG):
          guard let status else { return }
          if !rules.isEmpty && rules.excludes(relative: relative(), name: Array(name), isDirectory: false) {
            summary.excluded += 1
            return
          }
          if let sieving {
            entry.removeSubrange(folderPrefix.count...)
            entry.append(contentsOf: name)
            if entry.withUnsafeBytes({ sieving.passes($0, status) }) {
              summary.passedUnchanged += 1
              return
            }
          }
          let path = entryPath()
          if skipNames.contains(where: { $0.count == name.count && $0.elementsEqual(name) })
            && skipPaths.contains(path)
          {
            return
          }
          files.append(
            WalkedFile(
              path: path, relativeStart: rootPrefix.count, status: status, openPath: path, viaLink: false))
        case Int(DT_LNK):
          guard followLinks else {
            summary.skippedLinks += 1
            return
          }
          let path = entryPath()
          guard let target = try? Self.realPath(path), target.bytes.starts(with: rootPrefix) || target == root
          else {
            summary.skippedLinks += 1
            summary.linksOutsideRoot += 1
            return
          }
          guard let targetStatus = FileStatus.following(target) else { return }
          if !rules.isEmpty
            && rules.excludes(
              relative: relative(), name: Array(name), isDirectory: targetStatus.type == .directory)
          {
            summary.excluded += 1
            return
          }
          switch targetStatus.type {
          case .directory:
            guard state.firstVisit(targetStatus) else {
              summary.loops += 1
              return
            }
            subdirectories.append(PendingFolder(path: path, relative: relative(), target: target))
          case .regular:
            if skipPaths.contains(target) { return }
            files.append(
              WalkedFile(
                path: path, relativeStart: rootPrefix.count, status: targetStatus, openPath: target,
                viaLink: true))
          default:
            summary.specialFiles += 1
          }
        default:
          summary.specialFiles += 1
        }
      }
      if let unsearchable {
        // Nothing below the folder is known: what was met in it is dropped, so that the
        // catalogue keeps its entries as they were (`WalkSummary.unreadable`).
        summary.unreadable.append(WalkProblem(path: directory.path, reason: unsearchable.reason))
        for folder in subdirectories where folder.descriptor >= 0 {
          close(folder.descriptor)
          state.releaseDescriptor()
        }
        files.removeSubrange(filesBefore...)
        continue
      }
      if sinceCheck >= 512 {
        sinceCheck = 0
        if shouldStop() { state.stop() }
      }
      state.push(subdirectories)
    }
  }

  /// Why the open folder `descriptor` cannot be searched (its names looked up), or nil when it
  /// can (a lookup that failed was about the entry, not the folder).
  private static func searchFailure(_ descriptor: Int32, _ path: RawPath) -> FileError? {
    var st = stat()
    guard fstatat(descriptor, ".", &st, AT_SYMLINK_NOFOLLOW) != 0 else { return nil }
    return FileError(path: path, errno: errno, doing: "cannot search the folder")
  }

  /// The name of the per-folder exclude file.
  private static let ignoreFileName = Array(".shelfignore".utf8)

  private static func direntType(_ type: FileType) -> UInt8 {
    switch type {
    case .regular: UInt8(DT_REG)
    case .directory: UInt8(DT_DIR)
    case .symbolicLink: UInt8(DT_LNK)
    case .fifo: UInt8(DT_FIFO)
    case .socket: UInt8(DT_SOCK)
    case .characterDevice: UInt8(DT_CHR)
    case .blockDevice: UInt8(DT_BLK)
    case .unknown: UInt8(DT_UNKNOWN)
    }
  }

  /// The entries of a folder (without `.` and `..`), in directory order; the folder is opened with
  /// `O_NOFOLLOW` so a folder swapped for a link is refused.
  static func list(_ path: RawPath) throws(FileError) -> [(name: [UInt8], type: UInt8)] {
    let fd = path.withCString { open($0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
    guard fd >= 0 else { throw FileError(path: path, errno: errno) }
    defer { close(fd) }
    let listing = FolderListing()
    try listing.read(fd, path: path)
    var entries: [(name: [UInt8], type: UInt8)] = []
    listing.forEach { type, name in entries.append((Array(name), type)) }
    return entries
  }
}

/// A pointer handed to worker threads that each write only their own element.
private struct UnsafeSendable<T>: @unchecked Sendable {
  let pointer: UnsafeMutablePointer<T>
  init(_ pointer: UnsafeMutablePointer<T>) { self.pointer = pointer }
}

private final class WorkerBox {
  let body: () -> Void
  init(_ body: @escaping () -> Void) { self.body = body }
}

/// The walk's shared state: folders still to read, how many workers are busy, the exclude rules
/// (growing as `.shelfignore` files are found) and the folders visited through links. Guarded by
/// one mutex and a condition variable.
private final class WalkState: @unchecked Sendable {
  private var mutex = pthread_mutex_t()
  private var condition = pthread_cond_t()
  private var pending: [TreeWalker.PendingFolder]
  private var busy = 0
  /// Folders waiting with a descriptor opened from their parent's, held under
  /// `descriptorLimit` so a wide tree cannot use up the process's descriptors.
  private let openDescriptors = Atomic<Int>(0)
  private static let descriptorLimit = 256
  private var rules: ExcludeRules
  var visited = Set<[UInt64]>()
  private(set) var stopped = false

  init(root: TreeWalker.PendingFolder, rules: ExcludeRules) {
    pending = [root]
    self.rules = rules
    pthread_mutex_init(&mutex, nil)
    pthread_cond_init(&condition, nil)
  }

  deinit {
    // A stopped walk leaves folders opened and never read.
    for folder in pending where folder.descriptor >= 0 { close(folder.descriptor) }
    pthread_cond_destroy(&condition)
    pthread_mutex_destroy(&mutex)
  }

  /// The next folder and the rules in force, or nil when the walk is over.
  func take() -> (TreeWalker.PendingFolder, ExcludeRules)? {
    pthread_mutex_lock(&mutex)
    defer { pthread_mutex_unlock(&mutex) }
    while pending.isEmpty && busy > 0 && !stopped { pthread_cond_wait(&condition, &mutex) }
    guard !stopped, let next = pending.popLast() else {
      pthread_cond_broadcast(&condition)
      return nil
    }
    busy += 1
    return (next, rules)
  }

  /// Marks the folder taken last as done. Waiters are woken only when the walk is over: new
  /// folders wake them in `push` (a wake-up per folder read made idle threads spin).
  func finished() {
    pthread_mutex_lock(&mutex)
    busy -= 1
    if busy == 0 { pthread_cond_broadcast(&condition) }
    pthread_mutex_unlock(&mutex)
  }

  func push(_ folders: [TreeWalker.PendingFolder]) {
    guard !folders.isEmpty else { return }
    pthread_mutex_lock(&mutex)
    pending.append(contentsOf: folders.reversed())
    pthread_cond_broadcast(&condition)
    pthread_mutex_unlock(&mutex)
  }

  /// True when one more folder may wait with an open descriptor (then counted until
  /// `releaseDescriptor`).
  func reserveDescriptor() -> Bool {
    if openDescriptors.add(1, ordering: .relaxed).newValue <= Self.descriptorLimit { return true }
    openDescriptors.subtract(1, ordering: .relaxed)
    return false
  }

  func releaseDescriptor() { openDescriptors.subtract(1, ordering: .relaxed) }

  func addIgnoreFile(_ contents: [UInt8], base: [UInt8]) {
    pthread_mutex_lock(&mutex)
    rules.addIgnoreFile(contents, base: base)
    pthread_mutex_unlock(&mutex)
  }

  /// True the first time a folder (device, inode) is seen.
  func firstVisit(_ status: FileStatus) -> Bool {
    pthread_mutex_lock(&mutex)
    defer { pthread_mutex_unlock(&mutex) }
    return visited.insert([status.device, status.inode]).inserted
  }

  func stop() {
    pthread_mutex_lock(&mutex)
    stopped = true
    pthread_cond_broadcast(&condition)
    pthread_mutex_unlock(&mutex)
  }
}
