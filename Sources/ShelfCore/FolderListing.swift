internal import CFileSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The entries of one folder at a time, read with `getdents64` into a buffer that a walk
/// reuses from folder to folder. Names are looked at where the kernel wrote them, each followed
/// by its NUL (so `fstatat` takes one as it is): no copy, array or allocation per entry, which
/// is what `readdir` through `fdopendir` and a `[UInt8]` per name cost a rescan.
public final class FolderListing {
  private var storage: UnsafeMutableRawPointer
  private var capacity: Int
  private var used = 0
  /// What one `getdents64` call is given at least.
  private static let chunk = 32 << 10
  /// The fixed part of a `linux_dirent64` record: inode 8, offset 8, length 2, type 1.
  private static let header = 19

  public init() {
    capacity = 2 * Self.chunk
    storage = .allocate(byteCount: capacity, alignment: 8)
  }

  deinit { storage.deallocate() }

  /// Reads every entry of the open folder `descriptor` (which stays open and should be at
  /// its start), replacing the previous folder's.
  public func read(_ descriptor: Int32, path: RawPath) throws(FileError) {
    used = 0
    while true {
      if capacity - used < Self.chunk {
        let larger = UnsafeMutableRawPointer.allocate(byteCount: capacity * 2, alignment: 8)
        larger.copyMemory(from: storage, byteCount: used)
        storage.deallocate()
        storage = larger
        capacity *= 2
      }
      let count = shelf_read_folder_entries(descriptor, storage + used, UInt(capacity - used))
      if count < 0 {
        if errno == EINTR { continue }
        throw FileError(path: path, errno: errno, doing: "reading the folder failed")
      }
      if count == 0 { return }
      used += count
    }
  }

  /// Calls `body` with the `d_type` and the name (without its NUL, which follows it in
  /// memory) of every entry but `.` and `..`, in directory order. A record that does not fit
  /// the bytes read, or whose name has no NUL, ends the listing there.
  public func forEach(_ body: (_ type: UInt8, _ name: UnsafeRawBufferPointer) throws -> Void) rethrows {
    var offset = 0
    while used - offset > Self.header {
      let record = storage + offset
      let length = Int(record.loadUnaligned(fromByteOffset: 16, as: UInt16.self))
      guard length > Self.header, length <= used - offset else { return }
      let nameStart = record + Self.header
      let nameLength = strnlen(nameStart.assumingMemoryBound(to: CChar.self), length - Self.header)
      guard nameLength < length - Self.header else { return }
      offset += length
      let name = UnsafeRawBufferPointer(start: nameStart, count: nameLength)
      if name.first == 0x2E && (nameLength == 1 || (nameLength == 2 && name[1] == 0x2E)) { continue }
      try body(record.load(fromByteOffset: 18, as: UInt8.self), name)
    }
  }

  /// The status of the entry `name` (a name `forEach` gave) in the open folder `descriptor`,
  /// without following a final link; nil when it cannot be read (it vanished).
  public static func status(of name: UnsafeRawBufferPointer, in descriptor: Int32) -> FileStatus? {
    var st = Glibc.stat()
    guard
      fstatat(descriptor, name.baseAddress!.assumingMemoryBound(to: CChar.self), &st, AT_SYMLINK_NOFOLLOW)
        == 0
    else { return nil }
    return FileStatus(st)
  }
}
