#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Why a path could not be opened or read as a regular file.
public struct FileError: ShelfError, Equatable {
  /// The path concerned.
  public var path: RawPath
  /// A short reason, e.g. "no such file or directory" or "is a FIFO, not a regular file".
  public var reason: String
  public var failure: FailureKind
  /// The `errno` of the failed system call, when one failed: callers decide by it (a file
  /// that vanished, a folder that is gone) rather than by the wording of `reason`.
  public var code: Int32?

  public init(path: RawPath, reason: String, failure: FailureKind, code: Int32? = nil) {
    self.path = path
    self.reason = reason
    self.failure = failure
    self.code = code
  }

  /// An error from a failed system call, classified by `errno`.
  public init(path: RawPath, errno code: Int32, doing action: String? = nil) {
    self.path = path
    self.code = code
    let message = String(cString: strerror(code)).lowercased()
    self.reason = action.map { "\($0): \(message)" } ?? message
    switch code {
    case ENOENT, ENOTDIR, EACCES, EPERM, ELOOP, ENAMETOOLONG: self.failure = .missingInput
    default: self.failure = .io
    }
  }

  /// True when the path (or a folder on the way to it) does not exist.
  public var isNoSuchFile: Bool { code == ENOENT || code == ENOTDIR }

  public var description: String { "\(path.escaped): \(reason)" }
}

/// The type of a directory entry as `lstat` reports it.
public enum FileType: String, Sendable {
  case regular, directory, symbolicLink = "symbolic link", fifo = "FIFO", socket
  case characterDevice = "character device", blockDevice = "block device", unknown

  /// The type as a noun for messages: "regular file", "symbolic link", "directory".
  public var noun: String { self == .regular ? "regular file" : rawValue }

  init(mode: mode_t) {
    switch mode & S_IFMT {
    case S_IFREG: self = .regular
    case S_IFDIR: self = .directory
    case S_IFLNK: self = .symbolicLink
    case S_IFIFO: self = .fifo
    case S_IFSOCK: self = .socket
    case S_IFCHR: self = .characterDevice
    case S_IFBLK: self = .blockDevice
    default: self = .unknown
    }
  }
}

/// What `stat` says about a file, in the units shelf uses.
public struct FileStatus: Sendable, Equatable {
  public var type: FileType
  public var size: Int64
  public var inode: UInt64
  public var device: UInt64
  /// Modification time in nanoseconds since the epoch.
  public var mtimeNanoseconds: Int64
  /// Status-change time in nanoseconds since the epoch.
  public var ctimeNanoseconds: Int64
  public var mode: UInt32
  /// How many names (hard links) the file has.
  public var linkCount: UInt64

  /// The status from a `stat` structure filled by the C library.
  public init(_ st: Glibc.stat) {
    type = FileType(mode: st.st_mode)
    size = Int64(st.st_size)
    inode = UInt64(st.st_ino)
    device = UInt64(st.st_dev)
    mtimeNanoseconds = Self.nanoseconds(st.st_mtim)
    ctimeNanoseconds = Self.nanoseconds(st.st_ctim)
    mode = UInt32(st.st_mode)
    linkCount = UInt64(st.st_nlink)
  }

  /// Nanoseconds since the epoch of a file time, held to what an `Int64` counts (the years
  /// 1677 to 2262): a file dated further out (a bad clock, an archive's or a FAT stick's odd
  /// date, `touch -d`) keeps the nearest time that fits instead of trapping the walk.
  public static func nanoseconds(_ time: timespec) -> Int64 {
    let (scaled, overflow) = Int64(time.tv_sec).multipliedReportingOverflow(by: 1_000_000_000)
    guard !overflow else { return time.tv_sec < 0 ? .min : .max }
    let (sum, past) = scaled.addingReportingOverflow(Int64(time.tv_nsec))
    return past ? .max : sum
  }

  /// True when `other` is this very file unchanged: the same device and inode, size, and
  /// change and modification times (what a rename over it or a write to it changes).
  public func isSameVersion(as other: FileStatus) -> Bool {
    device == other.device && inode == other.inode && size == other.size
      && ctimeNanoseconds == other.ctimeNanoseconds && mtimeNanoseconds == other.mtimeNanoseconds
  }

  /// `lstat` of a path (does not follow a final symbolic link).
  public static func lstat(_ path: RawPath) throws(FileError) -> FileStatus {
    var st = Glibc.stat()
    let result = path.withCString { Glibc.lstat($0, &st) }
    guard result == 0 else { throw FileError(path: path, errno: errno) }
    return FileStatus(st)
  }

  /// `stat` of a path (follows symbolic links).
  public static func stat(_ path: RawPath) throws(FileError) -> FileStatus {
    var st = Glibc.stat()
    let result = path.withCString { fstatat(AT_FDCWD, $0, &st, 0) }
    guard result == 0 else { throw FileError(path: path, errno: errno) }
    return FileStatus(st)
  }
}

/// A regular file opened read-only, never a FIFO, socket or device, and never through a
/// final symbolic link unless asked: the one owner of its descriptor.
///
/// Opening uses `O_NONBLOCK` so that a FIFO swapped in after the check cannot block, and
/// `fstat` confirms that what was opened is a regular file.
public final class RegularFile {
  /// The path the file was opened from.
  public let path: RawPath
  /// Its status at open time.
  public let status: FileStatus
  private let descriptor: Int32

  /// Opens `path` for reading. Throws a `FileError` naming the reason when the path is
  /// missing, unreadable, a directory, or anything but a regular file.
  ///
  /// `seen` is the status a walk has just read of `path` (without following a final link): a
  /// regular file's status spares the second look before opening.
  public convenience init(path: RawPath, followLinks: Bool = true, seen: FileStatus? = nil) throws(FileError)
  {
    var flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY
    if !followLinks { flags |= O_NOFOLLOW }
    // Refuse special files before opening: opening a device can have side effects. (The file
    // may still be swapped between this look and the open, whoever looked: `fstat` below and
    // the caller's comparison with what it saw catch that.)
    if seen?.type != .regular || followLinks {
      let before = followLinks ? try FileStatus.stat(path) : try FileStatus.lstat(path)
      guard before.type == .regular else {
        throw Self.notRegular(path, before.type)
      }
    }
    let fd = path.withCString { open($0, flags) }
    guard fd >= 0 else { throw FileError(path: path, errno: errno) }
    try self.init(adopting: fd, path: path)
  }

  /// Takes ownership of an open descriptor (one passed from another process, say) known by
  /// `path`; throws, closing it, when it is not a regular file.
  public init(adopting descriptor: Int32, path: RawPath) throws(FileError) {
    var st = stat()
    guard fstat(descriptor, &st) == 0 else {
      let code = errno
      close(descriptor)
      throw FileError(path: path, errno: code)
    }
    let status = FileStatus(st)
    guard status.type == .regular else {
      close(descriptor)
      throw Self.notRegular(path, status.type)
    }
    self.path = path
    self.status = status
    self.descriptor = descriptor
  }

  /// Lends the open descriptor to `body` (to hand to another process, which gets its own
  /// copy); it stays owned by this value and must not be closed or kept.
  public func withDescriptor<T, E: Error>(_ body: (Int32) throws(E) -> T) throws(E) -> T {
    try body(descriptor)
  }

  deinit { close(descriptor) }

  private static func notRegular(_ path: RawPath, _ type: FileType) -> FileError {
    let reason = type == .directory ? "is a directory" : "is a \(type.rawValue), not a regular file"
    return FileError(path: path, reason: reason, failure: .missingInput)
  }

  /// A new descriptor of the same open file (close-on-exec), for a C library that reads
  /// from a descriptor: it reads exactly the file opened here, whatever its path now names.
  /// The caller owns the descriptor.
  public func duplicateDescriptor() throws(FileError) -> Int32 {
    let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
    guard copy >= 0 else { throw FileError(path: path, errno: errno, doing: "cannot duplicate descriptor") }
    return copy
  }

  /// Reads up to `count` bytes starting at `offset`; fewer at the end of the file.
  ///
  /// The buffer is not zeroed first: only the bytes `pread` filled are in the result.
  public func read(count: Int, at offset: Int64 = 0) throws(FileError) -> [UInt8] {
    let wanted = max(count, 0)
    var failure: Int32 = 0
    let buffer = [UInt8](unsafeUninitializedCapacity: wanted) { raw, initialized in
      var filled = 0
      while filled < wanted {
        let result = pread(
          descriptor, raw.baseAddress! + filled, wanted - filled, off_t(offset) + off_t(filled))
        if result < 0 {
          if errno == EINTR { continue }
          failure = errno
          break
        }
        if result == 0 { break }
        filled += result
      }
      initialized = filled
    }
    guard failure == 0 else { throw FileError(path: path, errno: failure, doing: "read failed") }
    return buffer
  }

  /// Reads the whole file, refusing files larger than `limit` bytes.
  public func readAll(limit: Int64) throws(FileError) -> [UInt8] {
    guard status.size <= limit else {
      throw FileError(
        path: path, reason: "file is larger than the \(limit)-byte limit", failure: .badInput)
    }
    return try read(count: Int(status.size))
  }
}
