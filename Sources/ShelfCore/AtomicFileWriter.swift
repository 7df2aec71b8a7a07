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

    public init(
      mode: UInt32? = nil, modificationTime: Int64? = nil, createsFolders: Bool = true,
      flushesEachFile: Bool = true, beforeRename: (@Sendable (RawPath) -> Void)? = nil,
      checksTarget: Bool = true
    ) {
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
  private let options: Options
  /// This writer's serial number, its key among the live temporary files.
  private let number: Int
  private var file: TemporaryFile
  private var finished = false

  /// Creates the temporary file beside `target`. Throws `.cannotCreate` when the folder
  /// cannot be made or written, or when `target` exists and is not a regular file or a
  /// symbolic link (a folder, a device, a FIFO is never replaced), and `.interrupted` once
  /// `removeTemporaryFiles()` has run.
  public init(target: RawPath, options: Options = Options()) throws(FileError) {
    self.target = target
    self.options = options
    if options.checksTarget, let existing = try? FileStatus.lstat(target), existing.type != .regular,
      existing.type != .symbolicLink
    {
      throw FileError(
        path: target, reason: "is a \(existing.type.rawValue), not a regular file", failure: .cannotCreate)
    }
    let folder = target.parent
    if options.createsFolders {
      do {
        try Directories.make(folder)
      } catch {
        throw error as? FileError ?? FileError(path: folder, reason: "\(error)", failure: .cannotCreate)
      }
    }
    let serial = Self.serial.wrappingAdd(1, ordering: .relaxed).oldValue
    number = serial
    let suffix = Self.temporaryPrefix + Array(String(serial).utf8) + Self.temporaryExtension
    // A target name near the 255-byte limit leaves the temporary name only part of it.
    let name = Array(".".utf8) + target.lastComponent.bytes.prefix(254 - suffix.count) + suffix
    let temporary = folder.appending(RawPath(bytes: name))
    temporaryPath = temporary
    // Registered before it is created and checked again after: a stop that sweeps in between
    // either finds the file or is seen here. The lock is not held while the file is created
    // (a slow filesystem call): writers on other threads would spin waiting for it.
    let registered = Self.live.withLock { live -> Bool in
      guard !live.stopped else { return false }
      live.paths[serial] = temporary
      return true
    }
    // Until `file` is set, a throw runs no `deinit`: nothing unlinks a file this writer did
    // not create (another's, when the name was taken).
    guard registered else { throw FileError(path: target, reason: "interrupted", failure: .interrupted) }
    var created: TemporaryFile
    do {
      created = try TemporaryFile(creating: temporary)
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
      let renamed = temporaryPath.withCString { from in target.withCString { to in rename(from, to) } }
      guard renamed == 0 else {
        throw FileError(path: target, errno: errno, doing: "rename").failing(.cannotCreate)
      }
    } catch {
      discard()
      throw error
    }
    finished = true
    Self.live.withLock { $0.paths[number] = nil }
    guard options.flushesEachFile else { return }
    let folder = target.parent.withCString { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
    if folder >= 0 {
      _ = fsync(folder)
      close(folder)
    }
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
    let descriptor = folder.withCString { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
    guard descriptor >= 0 else {
      sync()
      return
    }
    defer { close(descriptor) }
    if shelf_syncfs(descriptor) != 0 { sync() }
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
      for path in live.paths.values { _ = path.withCString { unlink($0) } }
      live.paths.removeAll()
    }
  }

  private static let serial = Atomic<Int>(0)
  /// `.shelf-PID-`, the start of every temporary file's suffix (made once: the id never changes).
  private static let temporaryPrefix = Array(".shelf-\(getpid())-".utf8)
  private static let temporaryExtension = Array(".tmp".utf8)
  /// The temporary files being written, by their writers' serial numbers: every writer takes
  /// this lock three times, and a number is hashed in far less time than a path (workers that
  /// found it held spun on it for a tenth of an encrypted extraction's CPU, measured with `perf`).
  private static let live = Mutex<(paths: [Int: RawPath], stopped: Bool)>(([:], false))
}

extension FileError {
  /// The same error classified as `failure`.
  fileprivate func failing(_ failure: FailureKind) -> FileError {
    FileError(path: path, reason: reason, failure: failure)
  }
}
