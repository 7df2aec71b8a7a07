import ShelfCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A private temporary file with no name: created in a folder, unlinked at once, and reached
/// only through its descriptor (`/proc/self/fd/N`), so nothing is left behind even when the
/// process is killed. Holds bytes that exist nowhere as a file of their own (standard input,
/// the decrypted content of a backup entry) for the readers that need a file.
public final class SpooledFile: Sendable {
  private let file: TemporaryFile
  /// The path that reaches the file while this value lives: `/proc/self/fd/N`.
  public let path: RawPath

  /// The folder for spooled content: `/dev/shm` (memory) when it exists, else `fallback`.
  public static func preferredFolder(fallback: RawPath) -> RawPath {
    let memory = RawPath("/dev/shm")
    if let status = try? FileStatus.stat(memory), status.type == .directory, access("/dev/shm", W_OK) == 0 {
      return memory
    }
    return fallback
  }

  /// Creates the file in `folder` (mode 0600), named `shelf-LABEL-XXXXXX` for the moment
  /// before it is unlinked (and in `/proc/self/fd` listings, where it shows as deleted).
  public init(in folder: RawPath, label: String = "spool") throws(FileError) {
    do {
      file = try TemporaryFile(unnamedIn: folder, prefix: "shelf-\(label)-")
    } catch {
      throw FileError(
        path: folder, reason: "cannot create a temporary file: \(String(cString: strerror(error.code)))",
        failure: .cannotCreate, code: error.code)
    }
    path = RawPath("/proc/self/fd/\(file.descriptor)")
  }

  /// Appends bytes, retrying short writes and EINTR.
  public func write(_ bytes: UnsafeRawBufferPointer) throws(FileError) {
    do {
      try file.write(bytes)
    } catch {
      throw FileError(path: path, errno: error.code, doing: "cannot write a temporary file")
    }
  }

  /// Opens the content for reading, as any regular file.
  public func open() throws(FileError) -> RegularFile {
    try RegularFile(path: path, followLinks: true)
  }
}
