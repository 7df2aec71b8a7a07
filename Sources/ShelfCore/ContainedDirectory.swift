import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// An open folder, the one owner of its descriptor: files are created, looked at and renamed
/// relative to it (`openat`, `fstatat`, `renameat`), so that whatever happens to the path it
/// was opened by (a folder above swapped for a symbolic link), they stay in this folder.
public final class OpenFolder: Sendable {
  /// The path the folder was opened by, for messages.
  public let path: RawPath
  package let descriptor: Int32

  /// Takes ownership of `descriptor`, an open folder known by `path`.
  package init(adopting descriptor: Int32, path: RawPath) {
    self.descriptor = descriptor
    self.path = path
  }

  /// Opens the folder at `path` (following symbolic links: the folder a user named).
  public static func open(_ path: RawPath) throws(FileError) -> OpenFolder {
    let descriptor = path.withCString { Glibc.open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
    guard descriptor >= 0 else { throw FileError(path: path, errno: errno) }
    return OpenFolder(adopting: descriptor, path: path)
  }

  deinit { close(descriptor) }

  /// What `name` in this folder is, without following a symbolic link; nil when nothing is
  /// there (or it cannot be looked at).
  public func status(of name: RawPath) -> FileStatus? {
    var st = stat()
    let result = name.withCString { fstatat(descriptor, $0, &st, AT_SYMLINK_NOFOLLOW) }
    return result == 0 ? FileStatus(st) : nil
  }

  /// Opens `name` in this folder for reading, never through a symbolic link.
  public func openFile(_ name: RawPath) throws(FileError) -> RegularFile {
    let path = self.path.appending(name)
    let flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW
    let fd = name.withCString { openat(descriptor, $0, flags) }
    guard fd >= 0 else { throw FileError(path: path, errno: errno) }
    return try RegularFile(adopting: fd, path: path)
  }

  /// Flushes the folder's entries (a rename done in it) to disk.
  public func flush() { _ = fsync(descriptor) }
}

/// A part of a path below a `ContainedDirectory` that is not a folder (a symbolic link, a
/// file), or that kept being replaced while it was opened: nothing is written through it.
public struct ContainmentError: ShelfError, Equatable {
  /// The path of the part that is not a folder.
  public var path: RawPath
  /// What it is; nil when it was a folder again each time it was looked at after `openat`
  /// found something else (swapped back and forth).
  public var type: FileType?

  /// The refusal of `path`, which is a `type`.
  public init(path: RawPath, type: FileType?) {
    self.path = path
    self.type = type
  }

  public var failure: FailureKind { .badInput }
  /// What the part is: "DIR/a is a symbolic link".
  public var finding: String {
    type.map { "\(path.escaped) is a \($0.noun)" } ?? "\(path.escaped) keeps being replaced"
  }
  public var description: String { type == nil ? finding : "\(finding), not a folder" }
}

/// An output folder (`-o DIR`) held by its descriptor, and the one way shelf reaches a folder
/// below it: each part walked from the descriptor of the one above with
/// `openat(O_NOFOLLOW | O_DIRECTORY)`, missing parts made with `mkdirat` in their parent's
/// descriptor. A folder inside swapped for a symbolic link (even while a run writes, by a
/// `renameat2(RENAME_EXCHANGE)`) is refused, never followed, so no file, no temporary file
/// and no folder is ever made outside `root`. Files are then written in the folder's
/// descriptor by `AtomicFileWriter(name:in:)`.
public final class ContainedDirectory: Sendable {
  /// The output folder itself.
  public let root: OpenFolder
  /// The folders below `root` already cleared of dead runs' temporary files by this run.
  private let swept = Mutex<Set<[UInt8]>>([])

  /// Opens `path` (made first, with its parents, when `creating` and missing). `path` itself
  /// may be a symbolic link: it is the folder the user named.
  public init(_ path: RawPath, creating: Bool) throws(FileError) {
    if creating {
      do {
        try Directories.make(path)
      } catch {
        throw error as? FileError ?? FileError(path: path, reason: "\(error)", failure: .cannotCreate)
      }
    }
    root = try OpenFolder.open(path)
  }

  /// The part of `path` below the root, when `path` is the root's path followed by a slash
  /// and more; nil otherwise.
  public func relative(_ path: RawPath) -> RawPath? {
    let slash = UInt8(ascii: "/")
    var base = root.path.bytes
    while base.count > 1 && base.last == slash { base.removeLast() }
    guard path.bytes.starts(with: base) else { return nil }
    var rest = path.bytes.dropFirst(base.count)
    guard base == [slash] || rest.first == slash else { return nil }
    while rest.first == slash { rest = rest.dropFirst() }
    return rest.isEmpty ? nil : RawPath(bytes: Array(rest))
  }

  /// Opens the folder `relative` below the root (parts separated by slashes; empty or `.`, as
  /// `RawPath.parent` gives for a bare name: the root itself), making the parts that are
  /// missing when `creating`. The first time a run opens a folder, the temporary files that
  /// dead runs left there are removed.
  /// Throws `ContainmentError` when a part is not a folder (a symbolic link is never
  /// followed), and `FileError` when a part cannot be made or opened, or is `.` or `..`.
  public func folder(_ relative: RawPath, creating: Bool = true) throws -> OpenFolder {
    let parts =
      relative.bytes == [UInt8(ascii: ".")]
      ? [] : relative.bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true)
    var current = root
    for part in parts {
      let name = RawPath(bytes: Array(part))
      let path = current.path.appending(name)
      guard name.bytes != Array(".".utf8), name.bytes != Array("..".utf8) else {
        throw FileError(
          path: path, reason: "'\(name.escaped)' part leaves no folder below", failure: .badInput)
      }
      current = try child(name, of: current, path: path, creating: creating)
    }
    let key = Array(parts.joined(separator: [UInt8(ascii: "/")]))
    if swept.withLock({ $0.insert(key).inserted }) { AtomicFileWriter.removeLeftovers(in: current) }
    return current
  }

  /// Opens (making it first, if allowed and missing) the folder `name` in `parent`.
  private func child(_ name: RawPath, of parent: OpenFolder, path: RawPath, creating: Bool) throws
    -> OpenFolder
  {
    let flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
    for _ in 0..<64 {
      let opened = name.withCString { openat(parent.descriptor, $0, flags) }
      if opened >= 0 { return OpenFolder(adopting: opened, path: path) }
      let code = errno
      switch code {
      case ENOENT where creating:
        let made = name.withCString { mkdirat(parent.descriptor, $0, 0o777) }
        if made != 0 && errno != EEXIST {
          throw FileError(path: path, errno: errno, doing: "cannot create directory").containing(
            .cannotCreate)
        }
      case ELOOP, ENOTDIR:
        // Something else than a folder: say what (it may change again; any non-folder is refused).
        guard let status = parent.status(of: name), status.type != .directory else { continue }
        throw ContainmentError(path: path, type: status.type)
      default:
        throw FileError(path: path, errno: code, doing: "cannot open directory").containing(.cannotCreate)
      }
    }
    throw ContainmentError(path: path, type: nil)
  }
}

extension FileError {
  /// The same error, with its code, classified as `failure`.
  fileprivate func containing(_ failure: FailureKind) -> FileError {
    FileError(path: path, reason: reason, failure: failure, code: code)
  }
}

/// An output folder opened as a `ContainedDirectory` (made first if missing) on its first use,
/// once for every thread of a batch: a batch whose every file fails leaves no folder behind.
public final class LazyContainedDirectory: Sendable {
  /// The folder's path.
  public let path: RawPath
  private let opened = Mutex<Result<ContainedDirectory, FileError>?>(nil)

  /// The folder at `path`, not yet opened.
  public init(_ path: RawPath) { self.path = path }

  /// The folder, opened (and made) by the first call; every call gets the first one's error.
  public func open() throws(FileError) -> ContainedDirectory {
    try opened.withLock { opened in
      if let opened { return opened }
      let result = Result { () throws(FileError) in try ContainedDirectory(path, creating: true) }
      opened = result
      return result
    }.get()
  }
}
