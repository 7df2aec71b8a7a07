import ShelfCore

#if canImport(Glibc)
  import Glibc
#endif

/// Helpers that turn one fuzz input into what an entry point takes.
enum FuzzInput {
  /// An unlinked temporary file that holds the current input, for entry points that take a
  /// `RegularFile`: it is rewritten for every input and opened again through `/proc/self/fd`,
  /// so nothing is left behind when the fuzzer is killed.
  nonisolated(unsafe) private static var descriptor: Int32 = -1

  /// The input as an open regular file.
  static func file(_ bytes: [UInt8]) -> RegularFile {
    if descriptor < 0 {
      var template = Array((folder + "/shelf-fuzz-XXXXXX").utf8CString)
      descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
      precondition(descriptor >= 0, "cannot create a temporary file")
      template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    }
    precondition(ftruncate(descriptor, 0) == 0)
    var written = 0
    while written < bytes.count {
      let count = bytes[written...].withUnsafeBytes {
        pwrite(descriptor, $0.baseAddress, $0.count, off_t(written))
      }
      precondition(count > 0, "cannot write the temporary file")
      written += count
    }
    do {
      return try RegularFile(path: RawPath("/proc/self/fd/\(descriptor)"))
    } catch {
      fatalError("cannot open the temporary file: \(error)")
    }
  }

  /// The path of a named temporary file (removed at exit) that holds the input, for readers
  /// that refuse symbolic links (such as `/proc/self/fd/N`) and open a path themselves.
  static func namedFile(_ bytes: [UInt8]) -> RawPath {
    if namedPath.isEmpty {
      namedPath = folder + "/shelf-fuzz-\(getpid()).input"
      atexit { _ = unlink(FuzzInput.namedPath) }
    }
    let descriptor = open(namedPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    precondition(descriptor >= 0, "cannot create \(namedPath)")
    defer { close(descriptor) }
    var written = 0
    while written < bytes.count {
      let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
      precondition(count > 0, "cannot write \(namedPath)")
      written += count
    }
    return RawPath(namedPath)
  }
  nonisolated(unsafe) private static var namedPath = ""

  /// Where the input files live: `/dev/shm` when it is there, as truncating and rewriting a
  /// file on a disk's file system for every input made the file targets wait on the disk
  /// (about 300 inputs a second, most of the time asleep); else `TMPDIR` or `/tmp`.
  private static let folder: String = {
    if access("/dev/shm", W_OK) == 0 { return "/dev/shm" }
    return getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
  }()

  /// The input cut at zero bytes into strings (arguments of a query, pattern and subject).
  static func strings(_ bytes: [UInt8]) -> [String] {
    bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
  }

  /// One of `choices`, picked by the input's first byte (the rest of the input is the data).
  static func pick<T>(_ bytes: [UInt8], _ choices: [T]) -> (T, [UInt8]) {
    guard let first = bytes.first else { return (choices[0], []) }
    return (choices[Int(first) % choices.count], Array(bytes.dropFirst()))
  }
}
