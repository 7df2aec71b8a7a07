import ShelfCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Opens what an absolute path names one folder at a time, each from its parent's descriptor
/// (`openat`, no symbolic link followed on the way or at the end): the walk reaches folders
/// through descriptors however deep they lie, but `open` refuses a path of `PATH_MAX` bytes
/// or more ("file name too long").
enum DeepPath {
  /// `Self.pathOnly` (Glibc shows it only under `_GNU_SOURCE`): a folder opened to look names up in,
  /// which needs search permission alone.
  private static let pathOnly: Int32 = 0o10_000_000

  /// A descriptor for `path` opened with `flags` (`O_NOFOLLOW | O_CLOEXEC` are added).
  static func open(_ path: RawPath, flags: Int32) throws(FileError) -> Int32 {
    let slash = UInt8(ascii: "/")
    guard path.bytes.first == slash else { throw FileError(path: path, errno: EINVAL) }
    let names = path.bytes.split(separator: slash)
    guard let last = names.last else { throw FileError(path: path, errno: EISDIR) }
    var folder = Glibc.open("/", Self.pathOnly | O_DIRECTORY | O_CLOEXEC)
    guard folder >= 0 else { throw FileError(path: path, errno: errno) }
    /// Opens `name` in `folder`.
    func open(_ name: ArraySlice<UInt8>, _ flags: Int32) -> Int32 {
      (Array(name) + [0]).withUnsafeBufferPointer { name in
        name.withMemoryRebound(to: CChar.self) {
          openat(folder, $0.baseAddress!, flags | O_NOFOLLOW | O_CLOEXEC)
        }
      }
    }
    for name in names.dropLast() {
      let next = open(name, Self.pathOnly | O_DIRECTORY)
      let code = errno
      close(folder)
      guard next >= 0 else { throw FileError(path: path, errno: code) }
      folder = next
    }
    let descriptor = open(last, flags)
    let code = errno
    close(folder)
    guard descriptor >= 0 else { throw FileError(path: path, errno: code) }
    return descriptor
  }
}
