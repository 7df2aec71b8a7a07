internal import CFileSupport
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Writes a file by way of a temporary file in the target's folder: write, fsync, rename over
/// the target, fsync the folder. Readers see either the old file or the whole new one, and a
/// crash or kill at any point never leaves a truncated or empty target.
///
/// Every step happens in the descriptor of the target's folder (`openat`, `renameat`): given an
/// `OpenFolder` from a `ContainedDirectory` (`init(name:in:options:)`), nothing it writes can
/// land outside that folder, whatever is renamed around it meanwhile.
///
/// The one writer of every pipeline that creates files (crush, record, extract). Write bytes
/// in one call (`AtomicFileWriter.write(_:to:options:)`) or stream them (`init`, `write`
/// any number of times, then `commit`). A writer dropped without `commit` removes its
/// temporary file; `removeTemporaryFiles()` removes every live one when the process is stopped.
public final class AtomicFileWriter {
  /// How the new file is made.
  public struct Options: Sendable {
    /// Permission bits of the new file; nil: 0o666 less the umask, as `open` gives.
    public var mode: UInt32?
    /// Modification time of the new file, in nanoseconds since the epoch; nil: now.
    public var modificationTime: Int64?
    /// Whether missing folders above the target are created (`mkdir -p`).
    public var createsFolders: Bool
    /// Whether `commit` flushes the file and its folder to disk before and after the rename.
    /// A batch that creates many new files (nothing of the user's is replaced) may leave the
    /// flushing to one `flushWrittenFiles(in:)` at its end: the rename still makes each file
    /// appear whole or not at all to readers and after a kill, and `commit` starts writing the
    /// file's data to disk without waiting, so that the final flush has little left to do.
    public var flushesEachFile: Bool
    /// Runs after the data is flushed and before the rename, with the temporary file's path:
    /// lets tests stop a write at its most delicate point.
    public var beforeRename: (@Sendable (RawPath) -> Void)?
    /// Whether the writer itself looks at what is at the target first (refusing a folder, a
    /// device, a FIFO). False only for a caller that has just done so with `lstat` and refused
    /// the same (extract, which compares an existing output's content): one look per file.
    public var checksTarget: Bool
    /// The file the target must still be right before the rename, as it was when read (device,
    /// inode, size, change and modification times): a file replaced or changed meanwhile is
    /// not overwritten (`commit` throws `FileError.changedSinceRead`). Nil: whatever is there.
    public var replacing: FileStatus?
    /// Whether the target must still be absent at the rename (`renameat2(RENAME_NOREPLACE)`):
    /// for a new file, so that one put there meanwhile is never overwritten without `--force`
    /// (`commit` throws `FileError.changedSinceRead`).
    public var createsOnly: Bool

    public init(
      mode: UInt32? = nil, modificationTime: Int64? = nil, createsFolders: Bool = true,
      flushesEachFile: Bool = true, beforeRename: (@Sendable (RawPath) -> Void)? = nil,
      checksTarget: Bool = true, replacing: FileStatus? = nil, createsOnly: Bool = false
    ) {
      self.replacing = replacing
      self.createsOnly = createsOnly
      self.mode = mode
      self.modificationTime = modificationTime
      self.createsFolders = createsFolders
      self.flushesEachFile = flushesEachFile
      self.beforeRename = beforeRename
      self.checksTarget = checksTarget
    }
  }

  /// The file that `commit` replaces or creates.
  public let target: RawPath
  /// The temporary file being written, in the target's folder.
  public let temporaryPath: RawPath
  /// The target's folder, in which every step happens.
  private let folder: OpenFolder
  /// The target's name and the temporary file's, in `folder`.
  private let name: RawPath
  private let temporaryName: RawPath
  private let options: Options
  /// This writer's serial number, its key among the live temporary files.
  private let number: Int
  private var file: TemporaryFile
  private var finished = false

  /// Creates the temporary file beside `target`. Throws `.cannotCreate` when the folder
  /// cannot be made or written, or when `target` exists and is not a regular file or a
  /// symbolic link (a folder, a device, a FIFO is never replaced), and `.interrupted` once
  /// `removeTemporaryFiles()` has run.
  public convenience init(target: RawPath, options: Options = Options()) throws(FileError) {
    let parent = target.parent
    if options.createsFolders {
      do {
        try Directories.make(parent)
      } catch {
        throw error as? FileError ?? FileError(path: parent, reason: "\(error)", failure: .cannotCreate)
      }
    }
    let folder: OpenFolder
    do {
      folder = try OpenFolder.open(parent)
    } catch {
      throw FileError(path: target, errno: error.code ?? EIO, doing: "cannot create temporary file").failing(
        .cannotCreate)
    }
    try self.init(name: target.lastComponent, in: folder, options: options)
  }

  /// Creates the temporary file for the file `name` in `folder`: every later step (the look at
  /// the target, the rename, the removal) is done in that folder's descriptor. `createsFolders`
  /// does not apply (the folder is open). Throws as `init(target:options:)`.
  public init(name: RawPath, in folder: OpenFolder, options: Options = Options()) throws(FileError) {
    let target = folder.path.appending(name)
    self.target = target
    self.folder = folder
    self.name = name
    self.options = options
    if options.checksTarget, let existing = folder.status(of: name), existing.type != .regular,
      existing.type != .symbolicLink
    {
      throw FileError(
        path: target, reason: "is a \(existing.type.rawValue), not a regular file", failure: .cannotCreate)
    }
    let serial = Self.serial.wrappingAdd(1, ordering: .relaxed).oldValue
    number = serial
    let suffix = Self.temporaryPrefix + Array(String(serial).utf8) + Self.temporaryExtension
    // A target name near the 255-byte limit leaves the temporary name only part of it.
    let temporaryName = RawPath(bytes: Array(".".utf8) + name.bytes.prefix(254 - suffix.count) + suffix)
    self.temporaryName = temporaryName
    let temporary = folder.path.appending(temporaryName)
    temporaryPath = temporary
    // Registered before it is created and checked again after: a stop that sweeps in between
    // either finds the file or is seen here. The lock is not held while the file is created
    // (a slow filesystem call): writers on other threads would spin waiting for it.
    let registered = Self.live.withLock { live -> Bool in
      guard !live.stopped else { return false }
      live.paths[serial] = (folder, temporaryName)
      return true
    }
    // Until `file` is set, a throw runs no `deinit`: nothing unlinks a file this writer did
    // not create (another's, when the name was taken).
    guard registered else { throw FileError(path: target, reason: "interrupted", failure: .interrupted) }
    var created: TemporaryFile
    do {
      created = try TemporaryFile(creating: temporaryName, in: folder)
    } catch {
      let stopped = Self.live.withLock { live -> Bool in
        live.paths[serial] = nil
        return live.stopped
      }
      guard !stopped else { throw FileError(path: target, reason: "interrupted", failure: .interrupted) }
      throw FileError(path: target, errno: error.code, doing: "cannot create temporary file").failing(
        .cannotCreate)
    }
    let stopped = Self.live.withLock { live -> Bool in
      if live.stopped { live.paths[serial] = nil }
      return live.stopped
    }
    guard !stopped else {
      created.remove()
      throw FileError(path: target, reason: "interrupted", failure: .interrupted)
    }
    file = created
  }

  deinit { if !finished { discard() } }

  /// Appends bytes to the temporary file, retrying short writes and EINTR.
  public func write(_ bytes: UnsafeRawBufferPointer) throws(FileError) {
    do {
      try file.write(bytes)
    } catch {
      throw FileError(path: target, errno: error.code, doing: "write").failing(.io)
    }
  }

  /// Appends the whole content of `source` (from its start), copied inside the kernel
  /// (`sendfile`) without passing through this process, as `cp` copies; returns the number of
  /// bytes copied. Stops at the end of the file as it is now.
  /// `sendfile` reads at its own offset, so the source's descriptor is used as it is: no copy
  /// of it per file.
  @discardableResult
  public func append(contentsOf source: RegularFile) throws(FileError) -> Int64 {
    let output = file.descriptor
    var offset: off_t = 0
    let code = source.withDescriptor { input -> Int32 in
      while true {
        let sent = sendfile(output, input, &offset, 1 << 30)
        if sent > 0 { continue }
        if sent == 0 { return 0 }
        if errno != EINTR { return errno }
      }
    }
    guard code == 0 else {
      throw FileError(path: target, errno: code, doing: "copy from \(source.path.escaped)").failing(.io)
    }
    return Int64(offset)
  }

  /// Writes bytes at `offset` of the temporary file (retrying short writes and EINTR), for
  /// formats whose writer goes back to fill in a header (an MP4 muxer patches its `mdat` size).
  public func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(FileError) {
    do {
      try file.write(bytes, at: offset)
    } catch {
      throw FileError(path: target, errno: error.code, doing: "write").failing(.io)
    }
  }

  /// Appends bytes to the temporary file.
  public func write(_ bytes: [UInt8]) throws(FileError) {
    let result: Result<Void, FileError> = bytes.withUnsafeBytes { raw in
      do throws(FileError) {
        try write(raw)
        return .success(())
      } catch {
        return .failure(error)
      }
    }
    try result.get()
  }

  /// Sets the mode and time, flushes the data to disk, renames the temporary file over the
  /// target and flushes the folder, so that the rename itself survives a crash. On failure
  /// the temporary file is removed and the target is as it was.
  public func commit() throws(FileError) {
    precondition(!finished, "AtomicFileWriter committed or discarded twice")
    do throws(FileError) {
      if let mode = options.mode, fchmod(file.descriptor, mode_t(mode)) != 0 {
        throw FileError(path: target, errno: errno, doing: "chmod").failing(.io)
      }
      if let time = options.modificationTime {
        var times = [
          timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2),  // UTIME_OMIT: access time unchanged
          timespec(tv_sec: Int(time / 1_000_000_000), tv_nsec: Int(time % 1_000_000_000)),
        ]
        if futimens(file.descriptor, &times) != 0 {
          throw FileError(path: target, errno: errno, doing: "set time").failing(.io)
        }
      }
      while options.flushesEachFile && fsync(file.descriptor) != 0 {
        if errno != EINTR { throw FileError(path: target, errno: errno, doing: "fsync").failing(.io) }
      }
      // Left to the batch's flush: the data starts on its way to disk now, while the batch
      // goes on, so that flush has little left to wait for.
      if !options.flushesEachFile { _ = shelf_start_writeback(file.descriptor) }
      options.beforeRename?(temporaryPath)
      do {
        try file.close()
      } catch {
        throw FileError(path: target, errno: error.code, doing: "close").failing(.io)
      }
      if let expected = options.replacing {
        // The last look before the rename: a file put in the target's place (or changed)
        // since it was read is the user's newer work, never overwritten with a result of the old.
        guard let now = folder.status(of: name), now.isSameVersion(as: expected) else {
          throw FileError.changedSinceRead(target)
        }
      }
      let descriptor = folder.descriptor
      var renamed: Int32
      if options.createsOnly {
        renamed = temporaryName.withCString { from in
          name.withCString { to in shelf_renameat_no_replace(descriptor, from, descriptor, to) }
        }
        let code = renamed == 0 ? 0 : errno
        // A filesystem without RENAME_NOREPLACE: a plain rename, when the name is free now.
        if code == EINVAL && folder.status(of: name) == nil {
          renamed = temporaryName.withCString { from in
            name.withCString { to in renameat(descriptor, from, descriptor, to) }
          }
        } else if code == EEXIST || code == EINVAL {
          throw FileError.changedSinceRead(target)
        } else if code != 0 {
          errno = code
        }
      } else {
        renamed = temporaryName.withCString { from in
          name.withCString { to in renameat(descriptor, from, descriptor, to) }
        }
      }
      guard renamed == 0 else {
        throw FileError(path: target, errno: errno, doing: "rename").failing(.cannotCreate)
      }
    } catch {
      discard()
      throw error
    }
    finished = true
    Self.live.withLock { $0.paths[number] = nil }
    if options.flushesEachFile { folder.flush() }
  }

  /// Abandons the write: closes and removes the temporary file; the target is untouched.
  public func discard() {
    finished = true
    file.remove()
    Self.live.withLock { $0.paths[number] = nil }
  }

  /// Writes `bytes` as the whole new content of `target`, atomically.
  public static func write(_ bytes: [UInt8], to target: RawPath, options: Options = Options())
    throws(FileError)
  {
    let writer = try AtomicFileWriter(target: target, options: options)
    try writer.write(bytes)
    try writer.commit()
  }

  /// Flushes the filesystem that holds `folder` to disk (`syncfs`: that filesystem only, not
  /// every one as `sync` does): the end of a batch written into `folder` without
  /// `flushesEachFile`. Falls back to `sync` when the folder cannot be opened.
  public static func flushWrittenFiles(in folder: RawPath) {
    guard let open = try? OpenFolder.open(folder) else {
      sync()
      return
    }
    flushWrittenFiles(in: open)
  }

  /// Flushes the filesystem that holds the open `folder` to disk, as `flushWrittenFiles(in:)`.
  public static func flushWrittenFiles(in folder: OpenFolder) {
    if shelf_syncfs(folder.descriptor) != 0 { sync() }
  }

  /// The file a write to `path` should replace: the final target of a symbolic link (so that
  /// the link stays a link and its target gets the new content), else `path` itself.
  public static func resolvedTarget(_ path: RawPath) -> RawPath {
    guard (try? FileStatus.lstat(path))?.type == .symbolicLink,
      let resolved = path.withCString({ realpath($0, nil) })
    else { return path }
    defer { free(resolved) }
    return RawPath(bytes: Array(UnsafeRawBufferPointer(start: resolved, count: strlen(resolved))))
  }

  /// Removes every temporary file still being written and refuses new ones: for a process
  /// that is stopping (SIGINT, SIGTERM), so that no `.tmp` file outlives it. Targets are
  /// untouched: each holds its old content or, if its rename came first, the whole new one.
  public static func removeTemporaryFiles() {
    live.withLock { live in
      live.stopped = true
      for (folder, name) in live.paths.values { _ = name.withCString { unlinkat(folder.descriptor, $0, 0) } }
      live.paths.removeAll()
    }
  }

  /// Removes the temporary files that runs which are gone (killed before they could clean up:
  /// `kill -9`, a crash, a power cut) left in `folder`: the regular files named
  /// `.NAME.shelf-PID-N.tmp` whose PID is no live process. Those of live processes (this one,
  /// another shelf writing here now) are left. Returns how many were removed.
  @discardableResult
  public static func removeLeftovers(in folder: OpenFolder) -> Int {
    let copy = fcntl(folder.descriptor, F_DUPFD_CLOEXEC, 0)
    guard copy >= 0 else { return 0 }
    guard let listing = fdopendir(copy) else {
      close(copy)
      return 0
    }
    defer { closedir(listing) }
    var removed = 0
    while let entry = readdir(listing) {
      let name = Directories.entryName(entry)
      guard let pid = leftoverOwner(name), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else {
        continue
      }
      let path = RawPath(bytes: name)
      guard folder.status(of: path)?.type == .regular else { continue }
      if path.withCString({ unlinkat(folder.descriptor, $0, 0) }) == 0 { removed += 1 }
    }
    return removed
  }

  /// The PID in a temporary file's name (`.NAME.shelf-PID-N.tmp`); nil for any other name.
  static func leftoverOwner(_ name: [UInt8]) -> pid_t? {
    func number(_ digits: ArraySlice<UInt8>) -> Int32? {
      guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ (48...57).contains($0) }) else {
        return nil
      }
      return digits.reduce(0) { $0 * 10 + Int32($1 - 48) }
    }
    let dash = UInt8(ascii: "-")
    guard name.first == UInt8(ascii: "."), name.suffix(4).elementsEqual(temporaryExtension) else {
      return nil
    }
    let body = name.dropLast(4)
    guard let serialDash = body.lastIndex(of: dash), number(body[(serialDash + 1)...]) != nil else {
      return nil
    }
    let head = body[..<serialDash]
    guard let pidDash = head.lastIndex(of: dash), let pid = number(head[(pidDash + 1)...]), pid > 0 else {
      return nil
    }
    // `.` and at least one byte of the target's name before `.shelf`.
    let stem = head[..<pidDash]
    guard stem.count >= 8, stem.suffix(6).elementsEqual(".shelf".utf8) else { return nil }
    return pid
  }

  private static let serial = Atomic<Int>(0)
  /// `.shelf-PID-`, the start of every temporary file's suffix (made once: the id never changes).
  private static let temporaryPrefix = Array(".shelf-\(getpid())-".utf8)
  private static let temporaryExtension = Array(".tmp".utf8)
  /// The temporary files being written, by their writers' serial numbers: every writer takes
  /// this lock three times, and a number is hashed in far less time than a path (workers that
  /// found it held spun on it for a tenth of an encrypted extraction's CPU, measured with `perf`).
  private static let live = Mutex<(paths: [Int: (OpenFolder, RawPath)], stopped: Bool)>(([:], false))
}

extension FileError {
  /// The refusal to replace `path`, which is no longer the file that was read: replaced or
  /// changed since (`AtomicFileWriter.Options.replacing`).
  public static func changedSinceRead(_ path: RawPath) -> FileError {
    FileError(path: path, reason: "changed since it was read; not replaced", failure: .io, code: ESTALE)
  }

  /// True for the refusal `changedSinceRead` makes.
  public var isChangedSinceRead: Bool {
    code == ESTALE && reason == "changed since it was read; not replaced"
  }

  /// The same error classified as `failure`.
  fileprivate func failing(_ failure: FailureKind) -> FileError {
    FileError(path: path, reason: reason, failure: failure)
  }
}
