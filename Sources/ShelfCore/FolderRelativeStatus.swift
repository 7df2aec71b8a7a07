internal import CFileSupport

#if canImport(Glibc)
  import Glibc
#endif

/// `lstat`s of many paths in a row, each folder's path walked once: a path in the same folder
/// as the one before is looked up by name relative to that folder, opened once (`O_PATH`), so
/// the kernel does not walk the same folders again for every file. For lists in folder order
/// (what a tree walk stores), e.g. checking the catalogued files of `dupes` against the disk.
public final class FolderRelativeStatus {
  private var folder: [UInt8] = []
  private var descriptor: Int32 = -1
  /// The file name being looked up, NUL-terminated; kept to reuse its memory.
  private var name: [CChar] = []

  public init() {}

  deinit { if descriptor >= 0 { close(descriptor) } }

  /// The `lstat` of `path`, nil when it cannot be had (gone, unreadable folder).
  public func lstat(_ path: RawPath) -> FileStatus? {
    let bytes = path.bytes
    guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")), slash > 0, slash < bytes.count - 1 else {
      return try? FileStatus.lstat(path)
    }
    if descriptor < 0 || !bytes[..<slash].elementsEqual(folder) {
      if descriptor >= 0 { close(descriptor) }
      folder = Array(bytes[..<slash])
      descriptor = RawPath(bytes: folder).withCString { shelf_open_folder_path($0) }
      guard descriptor >= 0 else { return try? FileStatus.lstat(path) }
    }
    name.removeAll(keepingCapacity: true)
    for byte in bytes[(slash + 1)...] { name.append(CChar(bitPattern: byte)) }
    name.append(0)
    var st = Glibc.stat()
    return fstatat(descriptor, name, &st, AT_SYMLINK_NOFOLLOW) == 0 ? FileStatus(st) : nil
  }
}
