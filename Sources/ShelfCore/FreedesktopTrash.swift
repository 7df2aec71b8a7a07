internal import CFileSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Moves files to the trash as the freedesktop.org Trash specification 1.0 lays it out, so that
/// GNOME, KDE, Xfce and `trash-cli` list them and can put them back.
///
/// A file on the same filesystem as the home trash (`$XDG_DATA_HOME/Trash`, by default
/// `$HOME/.local/share/Trash`) goes there, with an absolute `Path`. A file on another filesystem
/// goes to that filesystem's own trash at its mount point `$topdir`: `$topdir/.Trash/$uid` when
/// an administrator made `$topdir/.Trash` (a real folder with the sticky bit), else
/// `$topdir/.Trash-$uid`, with a `Path` relative to `$topdir`. A file is only ever renamed,
/// never copied: trashing is instant and cannot fill another disk, and a rename that would
/// cross filesystems (a bind mount) is refused.
///
/// The name in `files/` is claimed by creating `info/<name>.trashinfo` with `O_EXCL` first, as
/// the specification asks, so two processes trashing files of one name at once get two entries.
/// When a name is taken the next one tried puts a number before the extension, as GLib does:
/// `photo.jpg`, `photo.2.jpg`, `photo.3.jpg`, … (`notes` → `notes.2`; `.hidden` → `.hidden.2`).
/// Those names are only storage: the original location is in the `.trashinfo` file.
public struct FreedesktopTrash: Sendable {
  /// The home trash folder; nil when neither `XDG_DATA_HOME` nor `HOME` names an absolute folder,
  /// and then every file goes to the trash at the top of its own filesystem.
  public let homeTrash: RawPath?
  /// The numeric user id the top-directory trash folders are named for and must belong to.
  public let userID: uid_t

  /// The trash of user `userID` whose home trash `environment` defines: `$XDG_DATA_HOME/Trash`
  /// when that variable holds an absolute path (the base directory specification ignores a
  /// relative one), else `$HOME/.local/share/Trash`.
  public init(environment: [String: String], userID: uid_t = getuid()) {
    self.userID = userID
    if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
      homeTrash = RawPath(data).appending("Trash")
    } else if let home = environment["HOME"], home.hasPrefix("/") {
      homeTrash = RawPath(home).appending(".local/share/Trash")
    } else {
      homeTrash = nil
    }
  }

  /// Moves `path` (a file, a folder or a symbolic link, which is moved itself) to the trash of
  /// its filesystem and returns where it went (`…/files/<name>`). `deletedAt` (seconds since
  /// the epoch) is written as the local wall-clock time without a zone, as the specification
  /// says. On failure nothing is moved and no `.trashinfo` file is left behind.
  ///
  /// The name is moved from its folder's descriptor into the trash folder's (`renameat2`), so a
  /// folder on the way swapped for a link meanwhile cannot make it move another file; and only
  /// while it is still the `expected` file (else the first look), or `FileError.changedSinceRead`.
  public func trash(_ path: RawPath, deletedAt: Int64, expecting expected: FileStatus? = nil)
    throws(FileError)
    -> RawPath
  {
    let name = path.lastComponent
    guard !name.bytes.isEmpty, name.bytes != [UInt8(ascii: "/")], name.bytes != Array(".".utf8),
      name.bytes != Array("..".utf8)
    else {
      throw FileError(path: path, reason: "cannot be moved to the trash", failure: .badInput)
    }
    // The folder, not the file, is resolved: the entry trashed is the name itself, even when it
    // is a symbolic link.
    let folder = try Self.realPath(path.parent)
    let original = folder.appending(name)
    let source = try OpenFolder.open(folder)
    guard let status = source.status(of: name) else { throw FileError(path: path, errno: ENOENT) }
    if let expected, !status.isSameVersion(as: expected) { throw FileError.changedSinceRead(path) }
    guard try FileStatus.stat(folder).device == status.device else {
      throw FileError(
        path: path, reason: "is a mount point and cannot be moved to the trash", failure: .badInput)
    }
    let trash: RawPath
    let recorded: RawPath
    if let home = homeTrash, try Self.device(ofNearest: home) == status.device {
      do {
        try Directories.make(home, mode: 0o700)
      } catch {
        throw error as? FileError ?? FileError(path: home, reason: "\(error)", failure: .cannotCreate)
      }
      trash = home
      recorded = original
    } else {
      let top = try Self.mountPoint(of: folder, device: status.device)
      trash = try topDirectoryTrash(in: top)
      let prefix = top.bytes == [UInt8(ascii: "/")] ? top.bytes : top.bytes + [UInt8(ascii: "/")]
      recorded = RawPath(bytes: Array(original.bytes.dropFirst(prefix.count)))
    }
    let info = trash.appending("info")
    let files = trash.appending("files")
    try Self.makePrivateFolder(info)
    try Self.makePrivateFolder(files)
    let filesFolder = try OpenFolder.open(files)
    let content = Self.trashInfo(path: recorded, deletedAt: deletedAt)
    for number in 1...10_000 {
      let entry = Self.entryName(name, number: number)
      let infoFile = info.appending(RawPath(bytes: entry.bytes + Array(".trashinfo".utf8)))
      guard try Self.createExclusively(infoFile, content: content) else { continue }
      let destination = files.appending(entry)
      // The last look: a file put in its place since is not the one asked for.
      guard let now = source.status(of: name), now.isSameVersion(as: status) else {
        _ = infoFile.withCString { unlink($0) }
        throw FileError.changedSinceRead(path)
      }
      var moved = name.withCString { from in
        entry.withCString { to in
          shelf_renameat_no_replace(source.descriptor, from, filesFolder.descriptor, to)
        }
      }
      var code = errno
      if moved != 0 && code == EINVAL {
        // A filesystem without RENAME_NOREPLACE: a plain rename, when the name was free a moment ago.
        if filesFolder.status(of: entry) == nil {
          moved = name.withCString { from in
            entry.withCString { to in renameat(source.descriptor, from, filesFolder.descriptor, to) }
          }
          code = errno
        } else {
          code = EEXIST
        }
      }
      if moved == 0 { return destination }
      _ = infoFile.withCString { unlink($0) }
      // Another program left a file under this name without its .trashinfo: the next one.
      if code == EEXIST { continue }
      if code == EXDEV {
        throw FileError(
          path: path, reason: "is on another filesystem than the trash \(trash.escaped)",
          failure: .cannotCreate,
          code: code)
      }
      throw FileError(path: path, errno: code, doing: "cannot move to \(files.escaped)").failing(
        .cannotCreate)
    }
    throw FileError(path: path, reason: "no free name in the trash \(trash.escaped)", failure: .cannotCreate)
  }

  /// The bytes of a `.trashinfo` file: `Path` percent-encoded (every byte but RFC 2396's
  /// unreserved characters and `/`, so that a name that is not UTF-8 survives), `DeletionDate`
  /// as local `YYYY-MM-DDThh:mm:ss`.
  public static func trashInfo(path: RawPath, deletedAt: Int64) -> [UInt8] {
    let time = Timestamp(localSeconds: deletedAt)
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let year = String(time.year)
    let paddedYear = String(repeating: "0", count: max(0, 4 - year.count)) + year
    let date =
      "\(paddedYear)-\(two(time.month))-\(two(time.day))T\(two(time.hour)):\(two(time.minute)):\(two(time.second))"
    return Array("[Trash Info]\nPath=\(percentEncoded(path))\nDeletionDate=\(date)\n".utf8)
  }

  /// A path as RFC 2396 escapes it: letters, digits, `-_.!~*'()` and `/` as they are, every
  /// other byte as `%XX`.
  public static func percentEncoded(_ path: RawPath) -> String {
    let hex = Array("0123456789ABCDEF".utf8)
    var result: [UInt8] = []
    for byte in path.bytes {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
        UInt8(ascii: "!"), UInt8(ascii: "~"), UInt8(ascii: "*"), UInt8(ascii: "'"), UInt8(ascii: "("),
        UInt8(ascii: ")"), UInt8(ascii: "/"):
        result.append(byte)
      default:
        result += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
      }
    }
    return String(decoding: result, as: UTF8.self)
  }

  /// The name tried the `number`th time for an entry named `name`: the name itself first, then
  /// `.N` before the first dot that is not the name's first byte (`photo.2.jpg`), else at the end.
  /// Cut so that `<name>.trashinfo` fits in 255 bytes.
  static func entryName(_ name: RawPath, number: Int) -> RawPath {
    let limit = 255 - ".trashinfo".utf8.count
    let tag = number == 1 ? [] : Array(".\(number)".utf8)
    let bytes = name.bytes
    let dot = bytes.dropFirst().firstIndex(of: UInt8(ascii: ".")) ?? bytes.count
    var stem = Array(bytes[..<dot])
    var ending = Array(bytes[dot...])
    if stem.count + tag.count + ending.count > limit {
      // A long extension is not worth keeping whole: the stem keeps at least some bytes.
      ending = Array(ending.prefix(max(0, limit / 2 - tag.count)))
      stem = Array(stem.prefix(limit - tag.count - ending.count))
    }
    return RawPath(bytes: stem + tag + ending)
  }

  /// The trash folder of the filesystem mounted at `top`: `$top/.Trash/$uid` when `$top/.Trash`
  /// is a real folder with the sticky bit and `$uid` in it is (or can be made) a folder of this
  /// user's, else `$top/.Trash-$uid`, made when missing; refused when that exists but is not a
  /// folder of this user's (a symbolic link, another user's folder), which could hand the
  /// trashed files to someone else.
  private func topDirectoryTrash(in top: RawPath) throws(FileError) -> RawPath {
    let shared = top.appending(".Trash")
    if let status = try? Self.rawLstat(shared), status.st_mode & S_IFMT == S_IFDIR,
      status.st_mode & S_ISVTX != 0
    {
      let own = shared.appending(String(userID))
      _ = own.withCString { mkdir($0, 0o700) }
      if let made = try? Self.rawLstat(own), made.st_mode & S_IFMT == S_IFDIR, made.st_uid == userID {
        return own
      }
    }
    let own = top.appending(".Trash-\(userID)")
    if own.withCString({ mkdir($0, 0o700) }) != 0 && errno != EEXIST {
      throw FileError(path: own, errno: errno, doing: "cannot create the trash").failing(.cannotCreate)
    }
    let status = try Self.rawLstat(own)
    guard status.st_mode & S_IFMT == S_IFDIR, status.st_uid == userID else {
      throw FileError(
        path: own, reason: "is not a folder owned by user \(userID): not used as a trash",
        failure: .cannotCreate)
    }
    return own
  }

  /// Makes `info/` or `files/` (mode 0700) when missing; refuses anything there but a folder.
  private static func makePrivateFolder(_ path: RawPath) throws(FileError) {
    if path.withCString({ mkdir($0, 0o700) }) != 0 && errno != EEXIST {
      throw FileError(path: path, errno: errno, doing: "cannot create the trash folder").failing(
        .cannotCreate)
    }
    guard try rawLstat(path).st_mode & S_IFMT == S_IFDIR else {
      throw FileError(path: path, reason: "is not a folder: not used as a trash", failure: .cannotCreate)
    }
  }

  /// Creates `path` with `O_EXCL` and writes `content` to it, flushed; false when the name is
  /// taken. A write that fails removes the file.
  private static func createExclusively(_ path: RawPath, content: [UInt8]) throws(FileError) -> Bool {
    let descriptor = path.withCString {
      open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
    }
    guard descriptor >= 0 else {
      if errno == EEXIST { return false }
      throw FileError(path: path, errno: errno, doing: "cannot create").failing(.cannotCreate)
    }
    var failure: Int32 = 0
    content.withUnsafeBytes { raw in
      var done = 0
      while done < raw.count {
        let written = write(descriptor, raw.baseAddress! + done, raw.count - done)
        if written < 0 {
          if errno == EINTR { continue }
          failure = errno
          return
        }
        done += written
      }
    }
    while failure == 0 && fsync(descriptor) != 0 {
      if errno != EINTR { failure = errno }
    }
    if close(descriptor) != 0 && errno != EINTR && failure == 0 { failure = errno }
    guard failure == 0 else {
      _ = path.withCString { unlink($0) }
      throw FileError(path: path, errno: failure, doing: "write").failing(.io)
    }
    return true
  }

  /// The mount point of the filesystem `device` that holds `folder` (a resolved path): the
  /// last folder on the way up whose parent is on another device.
  private static func mountPoint(of folder: RawPath, device: UInt64) throws(FileError) -> RawPath {
    var current = folder
    while current.bytes != [UInt8(ascii: "/")] {
      let up = current.parent
      guard try FileStatus.stat(up).device == device else { break }
      current = up
    }
    return current
  }

  /// The device of `path`, or of its nearest existing folder when it does not exist yet (a home
  /// trash not made so far will be made there).
  private static func device(ofNearest path: RawPath) throws(FileError) -> UInt64 {
    var current = path
    while true {
      do throws(FileError) {
        return try FileStatus.stat(current).device
      } catch  where error.isNoSuchFile && current.parent != current {
        current = current.parent
      }
    }
  }

  /// The path without symbolic links, `.` or `..` (`realpath`).
  private static func realPath(_ path: RawPath) throws(FileError) -> RawPath {
    guard let resolved = path.withCString({ realpath($0, nil) }) else {
      throw FileError(path: path, errno: errno)
    }
    defer { free(resolved) }
    return RawPath(bytes: Array(UnsafeRawBufferPointer(start: resolved, count: strlen(resolved))))
  }

  private static func rawLstat(_ path: RawPath) throws(FileError) -> stat {
    var status = stat()
    guard path.withCString({ lstat($0, &status) }) == 0 else { throw FileError(path: path, errno: errno) }
    return status
  }
}

extension FileError {
  /// The same error, with its code, classified as `failure`.
  fileprivate func failing(_ failure: FailureKind) -> FileError {
    FileError(path: path, reason: reason, failure: failure, code: code)
  }
}
