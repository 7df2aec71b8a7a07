import ShelfCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A regular file found by a walk.
public struct WalkedFile: Sendable {
  /// The absolute path as found (through a link when `viaLink`).
  public var path: RawPath
  /// The path relative to the root, without a leading slash.
  public var relative: [UInt8]
  /// `lstat` of the file (of the link's target when `viaLink`).
  public var status: FileStatus
  /// The path to open: the same as `path`, or the link's resolved target inside the root.
  public var openPath: RawPath
  /// True when found through a symbolic link (`--follow-links`).
  public var viaLink: Bool
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
  /// Folders that could not be read.
  public var unreadable: [WalkProblem] = []
}

/// Walks a root folder for regular files without ever leaving it: symbolic links are not
/// followed unless asked, and then only when they resolve inside the root, with loop detection;
/// special files are counted, never opened.
public struct TreeWalker {
  /// The root, resolved (`realpath`).
  public let root: RawPath
  public var followLinks: Bool
  public var excludes: ExcludeRules
  /// Absolute paths never reported (the catalogue's own files).
  public var skipPaths: Set<RawPath>
  /// The last components of `skipPaths`: a cheap first test (hashing whole paths is not).
  private var skipNames: Set<PathKey>

  /// Prepares a walk of `root`; throws when it is missing or not a folder.
  public init(
    root: RawPath, followLinks: Bool = false, excludes: ExcludeRules = ExcludeRules(),
    skipPaths: Set<RawPath> = []
  ) throws(FileError) {
    let resolved = try Self.realPath(root)
    let status = try FileStatus.stat(resolved)
    guard status.type == .directory else {
      throw FileError(path: root, reason: "is not a directory", failure: .missingInput)
    }
    self.root = resolved
    self.followLinks = followLinks
    self.excludes = excludes
    self.skipPaths = skipPaths
    self.skipNames = Set(skipPaths.map { PathKey($0.lastComponent.bytes) })
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

  private struct Pending {
    var path: RawPath
    var relative: [UInt8]
  }

  /// Walks the tree, calling `visit` for every regular file (in directory order: the catalogue
  /// sorts when it lists).
  public func walk(_ visit: (WalkedFile) throws -> Void) rethrows -> WalkSummary {
    var summary = WalkSummary()
    var rules = excludes
    var visited = Set<[UInt64]>()
    if followLinks, let status = try? FileStatus.stat(root) { visited.insert([status.device, status.inode]) }
    var stack = [Pending(path: root, relative: [])]
    let rootPrefix = root.bytes == [UInt8(ascii: "/")] ? root.bytes : root.bytes + [UInt8(ascii: "/")]
    // Entries are examined relative to their folder (after fchdir), which spares the kernel a
    // walk of the whole path for every file; the working directory is restored at the end.
    let home = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    defer {
      if home >= 0 {
        _ = fchdir(home)
        close(home)
      }
    }
    while let directory = stack.popLast() {
      summary.directories += 1
      let entries: [(name: [UInt8], type: UInt8)]
      var inFolder = false
      do {
        entries = try Self.list(directory.path, enter: home >= 0)
        inFolder = home >= 0
      } catch {
        summary.unreadable.append(WalkProblem(path: directory.path, reason: error.reason))
        continue
      }
      if entries.contains(where: { $0.name == Array(".shelfignore".utf8) }),
        let file = try? RegularFile(path: directory.path.appending(".shelfignore"), followLinks: false),
        let contents = try? file.read(count: 256 << 10)
      {
        rules.addIgnoreFile(contents, base: directory.relative)
      }
      var subdirectories: [Pending] = []
      for entry in entries {
        let path = directory.path.appending(RawPath(bytes: entry.name))
        let relative =
          directory.relative.isEmpty ? entry.name : directory.relative + [UInt8(ascii: "/")] + entry.name
        var type = entry.type
        var status: FileStatus?
        if type == UInt8(DT_UNKNOWN) || type == UInt8(DT_REG) || (followLinks && type == UInt8(DT_DIR)) {
          guard let found = try? FileStatus.lstat(inFolder ? RawPath(bytes: entry.name) : path) else {
            continue  // vanished
          }
          status = found
          type = Self.direntType(found.type)
        }
        switch Int(type) {
        case Int(DT_DIR):
          if !rules.isEmpty && rules.excludes(relative: relative, name: entry.name, isDirectory: true) {
            summary.excluded += 1
            continue
          }
          if followLinks, let status {
            guard visited.insert([status.device, status.inode]).inserted else {
              summary.loops += 1
              continue
            }
          }
          subdirectories.append(Pending(path: path, relative: relative))
        case Int(DT_REG):
          guard let status else { continue }
          if !rules.isEmpty && rules.excludes(relative: relative, name: entry.name, isDirectory: false) {
            summary.excluded += 1
            continue
          }
          if !skipNames.isEmpty && skipNames.contains(PathKey(entry.name)) && skipPaths.contains(path) {
            continue
          }
          try visit(
            WalkedFile(path: path, relative: relative, status: status, openPath: path, viaLink: false))
        case Int(DT_LNK):
          guard followLinks else {
            summary.skippedLinks += 1
            continue
          }
          guard let target = try? Self.realPath(path), target.bytes.starts(with: rootPrefix) || target == root
          else {
            summary.skippedLinks += 1
            summary.linksOutsideRoot += 1
            continue
          }
          guard let targetStatus = try? FileStatus.lstat(target) else { continue }
          if !rules.isEmpty
            && rules.excludes(
              relative: relative, name: entry.name, isDirectory: targetStatus.type == .directory)
          {
            summary.excluded += 1
            continue
          }
          switch targetStatus.type {
          case .directory:
            guard visited.insert([targetStatus.device, targetStatus.inode]).inserted else {
              summary.loops += 1
              continue
            }
            subdirectories.append(Pending(path: path, relative: relative))
          case .regular:
            if skipPaths.contains(target) { continue }
            try visit(
              WalkedFile(
                path: path, relative: relative, status: targetStatus, openPath: target, viaLink: true))
          default:
            summary.specialFiles += 1
          }
        default:
          summary.specialFiles += 1
        }
      }
      stack.append(contentsOf: subdirectories.reversed())
    }
    return summary
  }

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
  static func list(_ path: RawPath, enter: Bool = false) throws(FileError) -> [(name: [UInt8], type: UInt8)] {
    let fd = path.withCString { open($0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
    guard fd >= 0 else { throw FileError(path: path, errno: errno) }
    guard let dir = fdopendir(fd) else {
      let code = errno
      close(fd)
      throw FileError(path: path, errno: code)
    }
    defer { closedir(dir) }
    var entries: [(name: [UInt8], type: UInt8)] = []
    while true {
      errno = 0
      guard let entry = readdir(dir) else {
        if errno != 0 { throw FileError(path: path, errno: errno, doing: "reading the folder failed") }
        break
      }
      let type = entry.pointee.d_type
      let name: [UInt8] = withUnsafePointer(to: &entry.pointee.d_name) { pointer in
        pointer.withMemoryRebound(to: UInt8.self, capacity: 256) { bytes in
          Array(
            UnsafeBufferPointer(
              start: bytes, count: strlen(UnsafeRawPointer(bytes).assumingMemoryBound(to: CChar.self))))
        }
      }
      if name == [0x2E] || name == [0x2E, 0x2E] { continue }
      entries.append((name, type))
    }
    if enter && fchdir(dirfd(dir)) != 0 {
      throw FileError(path: path, errno: errno, doing: "cannot enter the folder")
    }
    return entries
  }
}
