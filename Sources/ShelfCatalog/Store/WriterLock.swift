import ShelfCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The catalogue's single-writer lock: an `flock` on `<catalogue>.lock`, held for the life of
/// the value. Readers never take it, nor create its file: SQLite's WAL lets them read while a
/// scan writes. The lock file is made only once the catalogue is known to be shelf's (or
/// missing), so a file that is not a catalogue never gets one beside it.
public final class WriterLock {
  private let descriptor: Int32
  /// The lock file.
  public let path: RawPath

  /// Takes the lock, retrying for up to `wait` seconds; throws a `.busy` error after that.
  public init(catalogue: RawPath, wait: Double = 2) throws {
    path = RawPath(bytes: catalogue.bytes + Array(".lock".utf8))
    let fd = path.withCString { open($0, O_RDWR | O_CREAT | O_CLOEXEC, 0o644) }
    guard fd >= 0 else {
      throw CatalogError(path: path, reason: .cannotLock(String(cString: strerror(errno)).lowercased()))
    }
    let deadline = MonotonicClock.seconds() + wait
    while flock(fd, LOCK_EX | LOCK_NB) != 0 {
      let code = errno
      guard code == EWOULDBLOCK || code == EINTR else {
        close(fd)
        throw CatalogError(path: path, reason: .cannotLock(String(cString: strerror(code)).lowercased()))
      }
      if MonotonicClock.seconds() >= deadline {
        close(fd)
        throw CatalogError(path: catalogue, reason: .busy)
      }
      usleep(50_000)
    }
    descriptor = fd
  }

  deinit {
    flock(descriptor, LOCK_UN)
    close(descriptor)
  }
}
