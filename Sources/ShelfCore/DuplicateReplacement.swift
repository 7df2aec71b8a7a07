internal import CFileSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The actions `shelf dupes` takes on a duplicate that is not kept: replace it by a hard link
/// to the kept file, or by a reflink (a copy that shares the kept file's data blocks), and the
/// byte-for-byte check that must pass right before either.
///
/// Both replacements build the new file under a temporary name in the duplicate's folder and
/// rename it over the duplicate: a reader, a crash or a kill sees the old duplicate or the new
/// file, never a missing or half-made one, and a failure at any step removes the temporary
/// name and leaves the duplicate as it was. Neither follows a symbolic link: both paths must
/// be regular files themselves (`lstat`), so that a link planted at either name can never turn
/// an action on a duplicate into one on some other file.
///
/// The duplicate's folder is opened once and every step done in its descriptor (`fstatat`,
/// `linkat`, `openat`, `renameat`): a folder on the way swapped for a symbolic link meanwhile
/// cannot send the new file elsewhere. Right before the rename the duplicate must still be the
/// file looked at first (`expecting`, else the first look): one replaced or changed meanwhile
/// is left as it is (`FileError.changedSinceRead`).
public enum DuplicateReplacement {
  /// Replaces `duplicate` by a hard link to `kept`, atomically: `link(kept, temporary)` in the
  /// duplicate's folder, then `rename(temporary, duplicate)`.
  ///
  /// The duplicate's name then shows the kept file itself: its mode, owner and times, and any
  /// later change made through either name. Does nothing when both already are the same file
  /// (same device and inode). Throws, leaving the duplicate untouched, when either path is not a
  /// regular file, when they are on different filesystems (no hard link can cross them), or when
  /// the folder cannot be written.
  public static func replaceWithHardLink(
    _ duplicate: RawPath, keeping kept: RawPath, expecting expected: FileStatus? = nil
  ) throws(FileError) {
    let place = try Place(duplicate)
    let (duplicateStatus, keptStatus) = try regularPair(place, kept, expecting: expected)
    if duplicateStatus.st_dev == keptStatus.st_dev && duplicateStatus.st_ino == keptStatus.st_ino { return }
    guard duplicateStatus.st_dev == keptStatus.st_dev else { throw otherFilesystem(duplicate, kept) }
    let temporary = try claimTemporaryName(in: place, kind: "link", from: kept) { candidate in
      kept.withCString { from in
        candidate.withCString { to in linkat(AT_FDCWD, from, place.folder.descriptor, to, 0) }
      }
    }
    do throws(FileError) {
      // The kept name may have been replaced since it was looked at: the link must be to the
      // very file whose content was compared, or the duplicate would point at something else.
      let linked = try rawStatus(temporary, in: place)
      guard linked.st_dev == keptStatus.st_dev, linked.st_ino == keptStatus.st_ino else {
        throw FileError(path: kept, reason: "changed while being linked", failure: .io)
      }
      try renameOver(temporary, place, expecting: FileStatus(duplicateStatus))
    } catch {
      removeName(temporary, in: place)
      throw error
    }
    // rename(2) does nothing at all when both names are links to one file: should the duplicate
    // have become a link to the kept file since the look above, the temporary name is still there.
    removeName(temporary, in: place)
    place.folder.flush()
  }

  /// Replaces `duplicate` by a reflink of `kept`: a new file in the duplicate's folder made to
  /// share the kept file's data blocks (`ioctl(FICLONE)`, copy-on-write on Btrfs, XFS, bcachefs),
  /// given the duplicate's mode, owner (where allowed) and access and modification times, flushed
  /// and renamed over the duplicate.
  ///
  /// Unlike a hard link the two stay separate files: changing one later never changes the other.
  /// Does nothing when both already are the same file. Where the filesystem has no reflinks
  /// (ext4, tmpfs, overlay) or the two are on different filesystems it throws "reflinks are not
  /// supported on this filesystem" or "… across filesystems", and the duplicate is untouched.
  /// Different devices are not refused up front: Btrfs subvolumes have devices of their own and
  /// still share extents.
  public static func replaceWithReflink(
    _ duplicate: RawPath, keeping kept: RawPath, expecting expected: FileStatus? = nil
  ) throws(FileError) {
    let place = try Place(duplicate)
    let (duplicateStatus, keptStatus) = try regularPair(place, kept, expecting: expected)
    if duplicateStatus.st_dev == keptStatus.st_dev && duplicateStatus.st_ino == keptStatus.st_ino { return }
    let source = kept.withCString { open($0, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY) }
    guard source >= 0 else { throw FileError(path: kept, errno: errno) }
    defer { close(source) }
    var opened = stat()
    guard fstat(source, &opened) == 0 else { throw FileError(path: kept, errno: errno) }
    guard opened.st_dev == keptStatus.st_dev, opened.st_ino == keptStatus.st_ino else {
      throw FileError(path: kept, reason: "changed while being opened", failure: .io)
    }
    var destination: Int32 = -1
    let temporary = try claimTemporaryName(in: place, kind: "clone", from: kept) { candidate in
      destination = candidate.withCString {
        openat(place.folder.descriptor, $0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
      }
      return destination >= 0 ? 0 : -1
    }
    do throws(FileError) {
      defer { if destination >= 0 { close(destination) } }
      guard shelf_clone_file(destination, source) == 0 else {
        let code = errno
        switch code {
        case EXDEV:
          throw FileError(
            path: duplicate,
            reason: "cannot reflink \(kept.escaped): reflinks are not supported across filesystems",
            failure: .cannotCreate, code: code)
        case EOPNOTSUPP, EINVAL, ENOTTY, ENOSYS:
          throw FileError(
            path: duplicate, reason: "reflinks are not supported on this filesystem",
            failure: .cannotCreate, code: code)
        default:
          throw FileError(path: duplicate, errno: code, doing: "cannot reflink \(kept.escaped)").failing(.io)
        }
      }
      try copyAttributes(of: duplicateStatus, to: destination, path: duplicate)
      while fsync(destination) != 0 {
        if errno != EINTR { throw FileError(path: duplicate, errno: errno, doing: "fsync").failing(.io) }
      }
      let closing = close(destination)
      destination = -1
      if closing != 0 && errno != EINTR {
        throw FileError(path: duplicate, errno: errno, doing: "close").failing(.io)
      }
      try renameOver(temporary, place, expecting: FileStatus(duplicateStatus))
    } catch {
      removeName(temporary, in: place)
      throw error
    }
    place.folder.flush()
  }

  /// Whether `a` and `b` hold the same bytes: sizes first, then 1 MiB at a time, stopping at
  /// the first difference. The check right before a duplicate is linked, reflinked or trashed:
  /// a hash recorded in the catalogue may be stale, and an equal hash is not equal content.
  ///
  /// Neither path may be a symbolic link (the files acted on are the names themselves). Reads
  /// stop at the size `fstat` gave when the files were opened, so a file that grows while being
  /// read costs no more than that; one that shrinks compares as different. Two names of one file
  /// are the same content without a read.
  public static func sameContent(_ a: RawPath, _ b: RawPath) throws(FileError) -> Bool {
    let first = try RegularFile(path: a, followLinks: false)
    let second = try RegularFile(path: b, followLinks: false)
    if first.status.device == second.status.device && first.status.inode == second.status.inode {
      return true
    }
    guard first.status.size == second.status.size else { return false }
    let size = first.status.size
    var offset: Int64 = 0
    while offset < size {
      let count = Int(min(Int64(chunkSize), size - offset))
      let left = try first.read(count: count, at: offset)
      let right = try second.read(count: count, at: offset)
      guard left.count == count, left == right else { return false }
      offset += Int64(count)
    }
    return true
  }

  /// How many bytes `sameContent` reads from each file at a time.
  static let chunkSize = 1 << 20

  /// A duplicate's folder, opened, and its name in it.
  private struct Place {
    let folder: OpenFolder
    let name: RawPath
    /// The duplicate's path, for messages.
    let path: RawPath

    init(_ path: RawPath) throws(FileError) {
      folder = try OpenFolder.open(path.parent)
      name = path.lastComponent
      self.path = path
    }
  }

  /// The status of the duplicate (in its folder) and of `kept`, which must be regular files: a
  /// symbolic link, a folder or a device at either name is refused, and so is a duplicate
  /// that is not the `expected` file (replaced or changed since it was looked at).
  private static func regularPair(_ place: Place, _ kept: RawPath, expecting expected: FileStatus?)
    throws(FileError) -> (stat, stat)
  {
    let duplicateStatus = try rawStatus(place.name, in: place)
    if let expected, !FileStatus(duplicateStatus).isSameVersion(as: expected) {
      throw FileError.changedSinceRead(place.path)
    }
    let keptStatus = try rawLstat(kept)
    for (path, status) in [(place.path, duplicateStatus), (kept, keptStatus)] {
      let type = FileType(mode: status.st_mode)
      guard type == .regular else {
        let reason = type == .directory ? "is a directory" : "is a \(type.rawValue), not a regular file"
        throw FileError(path: path, reason: reason, failure: .badInput)
      }
    }
    return (duplicateStatus, keptStatus)
  }

  /// `lstat` with every field (the access time too, which `FileStatus` leaves out).
  private static func rawLstat(_ path: RawPath) throws(FileError) -> stat {
    var status = stat()
    guard path.withCString({ lstat($0, &status) }) == 0 else { throw FileError(path: path, errno: errno) }
    return status
  }

  /// `rawLstat` of `name` in the duplicate's folder.
  private static func rawStatus(_ name: RawPath, in place: Place) throws(FileError) -> stat {
    var status = stat()
    guard name.withCString({ fstatat(place.folder.descriptor, $0, &status, AT_SYMLINK_NOFOLLOW) }) == 0 else {
      throw FileError(path: place.folder.path.appending(name), errno: errno)
    }
    return status
  }

  private static func otherFilesystem(_ duplicate: RawPath, _ kept: RawPath) -> FileError {
    FileError(
      path: duplicate, reason: "is on another filesystem than \(kept.escaped)", failure: .cannotCreate,
      code: EXDEV)
  }

  /// Creates a new name beside `path` with `create` (which returns 0, or -1 with `errno`):
  /// `.<name>.shelf-<kind>-<16 hex digits>`, hidden, random so that two shelf processes (or a
  /// name left by a killed one) never meet, drawn again while the name is taken. `kept` is the
  /// file the new name is made from, for the messages.
  private static func claimTemporaryName(
    in place: Place, kind: String, from kept: RawPath, create: (RawPath) -> Int32
  ) throws(FileError) -> RawPath {
    let path = place.path
    let folder = place.folder.path
    for _ in 0..<100 {
      var random = SystemRandomNumberGenerator()
      let digits = String(random.next() as UInt64, radix: 16)
      let suffix =
        Array(".shelf-\(kind)-".utf8) + Array(repeating: UInt8(ascii: "0"), count: 16 - digits.count)
        + Array(digits.utf8)
      // A duplicate's name near the 255-byte limit leaves the temporary name only part of it.
      let candidate = RawPath(
        bytes: [UInt8(ascii: ".")] + place.name.bytes.prefix(254 - suffix.count) + suffix)
      if create(candidate) == 0 { return candidate }
      let code = errno
      if code == EEXIST { continue }
      switch code {
      // Devices can match across two mounts of one filesystem (a bind mount): link(2) still says EXDEV.
      case EXDEV: throw otherFilesystem(path, kept)
      case EACCES, EROFS:
        throw FileError(
          path: path, reason: "cannot write in its folder \(folder.escaped): \(describe(code))",
          failure: .cannotCreate, code: code)
      default:
        throw FileError(path: path, errno: code, doing: "cannot \(kind) \(kept.escaped)").failing(
          .cannotCreate)
      }
    }
    throw FileError(path: path, reason: "no free temporary name in its folder", failure: .cannotCreate)
  }

  /// Gives the new file the duplicate's owner (where allowed: only root may give a file away, and
  /// the file is the caller's otherwise), permission bits, and access and modification times.
  private static func copyAttributes(of status: stat, to descriptor: Int32, path: RawPath) throws(FileError) {
    // Before the mode: changing the owner clears the set-user-ID and set-group-ID bits.
    if fchown(descriptor, status.st_uid, status.st_gid) != 0 && errno != EPERM {
      throw FileError(path: path, errno: errno, doing: "chown").failing(.io)
    }
    if fchmod(descriptor, status.st_mode & 0o7777) != 0 {
      throw FileError(path: path, errno: errno, doing: "chmod").failing(.io)
    }
    var times = [status.st_atim, status.st_mtim]
    if futimens(descriptor, &times) != 0 {
      throw FileError(path: path, errno: errno, doing: "set times").failing(.io)
    }
  }

  /// Renames `temporary` over the duplicate, both in its folder, once the duplicate is seen
  /// to be still the `expected` file; a failure names the duplicate and the reason.
  private static func renameOver(_ temporary: RawPath, _ place: Place, expecting expected: FileStatus)
    throws(FileError)
  {
    let target = place.path
    guard let now = place.folder.status(of: place.name), now.isSameVersion(as: expected) else {
      throw FileError.changedSinceRead(target)
    }
    let descriptor = place.folder.descriptor
    let renamed = temporary.withCString { from in
      place.name.withCString { to in renameat(descriptor, from, descriptor, to) }
    }
    guard renamed == 0 else {
      let code = errno
      if code == EXDEV {
        throw FileError(
          path: target, reason: "is on another filesystem than its folder", failure: .cannotCreate)
      }
      throw FileError(path: target, errno: code, doing: "rename").failing(.cannotCreate)
    }
  }

  private static func removeName(_ name: RawPath, in place: Place) {
    _ = name.withCString { unlinkat(place.folder.descriptor, $0, 0) }
  }

  private static func describe(_ code: Int32) -> String { String(cString: strerror(code)).lowercased() }
}

extension FileError {
  /// The same error, with its code, classified as `failure`.
  fileprivate func failing(_ failure: FailureKind) -> FileError {
    FileError(path: path, reason: reason, failure: failure, code: code)
  }
}
