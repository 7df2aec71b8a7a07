import ShelfCore

/// Files that report a size of 0 yet have content (those of /proc and /sys, as `cat` and
/// `file -s` show): read through once into a private spooled copy, up to a bound, so that
/// they are described and shown as any file of that content is.
public enum UnsizedFile {
  /// The most read from such a file.
  public static let limit: Int64 = 16 << 20

  /// A copy of what `file`, which reports a size of 0, holds; nil when it is really empty.
  /// Throws when it holds more than `limit` bytes or cannot be read.
  public static func spool(_ file: RegularFile, temporaryFolder: RawPath) throws(FileError) -> SpooledFile? {
    var block = try file.read(count: 1 << 16, at: 0)
    guard !block.isEmpty else { return nil }
    let copy = try SpooledFile(in: SpooledFile.preferredFolder(fallback: temporaryFolder), label: "unsized")
    var offset: Int64 = 0
    while !block.isEmpty {
      offset += Int64(block.count)
      guard offset <= limit else {
        throw FileError(
          path: file.path,
          reason: "reports no size and holds more than \(Quantities.formatByteSize(limit))",
          failure: .badInput)
      }
      do {
        try block.withUnsafeBytes { try copy.write($0) }
      } catch let error as FileError {
        throw error
      } catch {
        throw FileError(path: copy.path, reason: "\(error)", failure: .io)
      }
      block = try file.read(count: 1 << 16, at: offset)
    }
    return copy
  }
}
