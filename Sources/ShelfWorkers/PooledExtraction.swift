import ShelfCore
public import ShelfFacts

#if canImport(Glibc)
  import Glibc
#endif

/// Extraction in the sandboxed workers of an `ExtractorPool`, and of a stream through a spooled
/// file: the parts of reading a file's facts that need the workers or a temporary file.
extension MetadataExtractor {
  /// Extracts the facts of an open file in one of `extractors`' sandboxed workers, or in this
  /// process when there are none. Throws a `WorkerFailure` when the worker died reading it.
  public static func extract(_ file: RegularFile, fileExtension: String, in extractors: ExtractorPool?) throws
    -> FileFacts
  {
    guard let extractors else { return try extract(file, fileExtension: fileExtension) }
    return try extractors.extract(file, fileExtension: fileExtension)
  }

  /// Extracts the facts of a stream such as standard input, exactly as for a file: its bytes
  /// are spooled into a temporary file in `temporaryFolder` that is unlinked as soon as it is
  /// created (nothing is left behind, even when the process is killed), then read through
  /// `/proc/self/fd` like any other file, whose status the facts come with. `name` stands for
  /// the stream in errors.
  ///
  /// Throws a `FileError` when the stream is empty, larger than `limit` bytes or unreadable,
  /// or when the temporary file cannot be written.
  public static func extract(
    stream descriptor: Int32, name: RawPath, temporaryFolder: RawPath, limit: Int64,
    in extractors: ExtractorPool? = nil
  ) throws -> ReadFacts {
    let spool = try SpooledFile(in: temporaryFolder, label: "stream")
    var total: Int64 = 0
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw FileError(path: name, errno: errno, doing: "read failed")
      }
      if count == 0 { break }
      total += Int64(count)
      guard total <= limit else {
        throw FileError(
          path: name, reason: "input larger than the \(Quantities.formatByteSize(limit)) limit",
          failure: .badInput)
      }
      try chunk.withUnsafeBytes { try spool.write(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    }
    guard total > 0 else { throw FileError(path: name, reason: "empty input", failure: .badInput) }
    return try ReadFacts(spool.open(), fileExtension: "", in: extractors)
  }
}
