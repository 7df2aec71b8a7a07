#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A temporary file of this process's own, and the one owner of its descriptor: created so that
/// nothing already there can stand in for it, written whole despite short writes and signals,
/// closed when the value goes. `AtomicFileWriter` writes one beside its target and renames it
/// over the target; `SpooledFile` removes its name at once and reads it through the descriptor.
package struct TemporaryFile: ~Copyable, Sendable {
  /// The `errno` of the system call that failed; each owner words the failure for its users.
  package struct Failure: Error, Equatable {
    package var code: Int32
  }

  /// The open descriptor (close-on-exec); -1 once closed.
  package private(set) var descriptor: Int32
  /// The file's folder and name, which `remove()` unlinks; nil for a file whose name went at
  /// creation.
  private let name: (folder: OpenFolder, name: RawPath)?

  /// Creates `name` in `folder` for writing, with mode 0666 less the umask as `open` gives.
  /// `O_EXCL`: a file or a link already there is never opened, so that no one can make the
  /// writer write through a planted link.
  package init(creating name: RawPath, in folder: OpenFolder) throws(Failure) {
    let created = name.withCString {
      openat(folder.descriptor, $0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
    }
    guard created >= 0 else { throw Failure(code: errno) }
    descriptor = created
    self.name = (folder, name)
  }

  /// Creates a file in `folder` named `prefix` and six characters that make the name new
  /// (`mkstemp`: mode 0600, this user's alone), then removes the name: the file is reached only
  /// through its descriptor and goes with it, even when the process is killed.
  package init(unnamedIn folder: RawPath, prefix: String) throws(Failure) {
    var template = folder.bytes + Array("/\(prefix)XXXXXX".utf8) + [0]
    let created = template.withUnsafeMutableBytes { raw in
      mkstemp(raw.baseAddress!.assumingMemoryBound(to: CChar.self))
    }
    guard created >= 0 else { throw Failure(code: errno) }
    _ = RawPath(bytes: Array(template.dropLast())).withCString { unlink($0) }
    _ = fcntl(created, F_SETFD, FD_CLOEXEC)
    descriptor = created
    name = nil
  }

  deinit {
    if descriptor >= 0 { Glibc.close(descriptor) }
  }

  /// Writes all of `bytes` at the end of what is written, or at `offset` (for formats whose
  /// writer goes back to fill in a header), retrying short writes and EINTR.
  package func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64? = nil) throws(Failure) {
    var done = 0
    while done < bytes.count {
      let start = bytes.baseAddress! + done
      let written =
        if let offset {
          pwrite(descriptor, start, bytes.count - done, off_t(offset) + off_t(done))
        } else {
          Glibc.write(descriptor, start, bytes.count - done)
        }
      if written < 0 {
        if errno == EINTR { continue }
        throw Failure(code: errno)
      }
      done += written
    }
  }

  /// Closes the descriptor, which is gone whatever the result; an interrupted close has closed
  /// it too (Linux), so only other failures throw.
  package mutating func close() throws(Failure) {
    let closing = Glibc.close(descriptor)
    descriptor = -1
    if closing != 0 && errno != EINTR { throw Failure(code: errno) }
  }

  /// Abandons the file: closes the descriptor if it is open and removes the name.
  package mutating func remove() {
    if descriptor >= 0 { Glibc.close(descriptor) }
    descriptor = -1
    if let (folder, name) = name { _ = name.withCString { unlinkat(folder.descriptor, $0, 0) } }
  }
}
