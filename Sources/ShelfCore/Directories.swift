#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Folder creation: the one `mkdir -p` of the project.
public enum Directories {
  /// Makes `path` and any missing parents, like `mkdir -p`. A part that exists but is not a
  /// folder, or a folder that cannot be made, is a `.cannotCreate` error naming that part.
  public static func make(_ path: RawPath, mode: mode_t = 0o777) throws {
    if let status = try? FileStatus.stat(path) {
      guard status.type == .directory else {
        throw FileError(path: path, reason: "is not a directory", failure: .cannotCreate)
      }
      return
    }
    let up = path.absolute.parent
    if up.bytes != path.absolute.bytes { try make(up, mode: mode) }
    let result = path.withCString { mkdir($0, mode) }
    if result != 0 && errno != EEXIST {
      var error = FileError(path: path, errno: errno, doing: "cannot create directory")
      error.failure = .cannotCreate
      throw error
    }
  }
}

extension Directories {
  /// The name of an entry `readdir` returned. The record is only as long as its name
  /// (`d_reclen`), not the 256 bytes `d_name` is declared with: copying the field (as
  /// `withUnsafeBytes(of: entry.pointee.d_name)` does) reads past the record, and past the end
  /// of the mapped page when the record is the last one there. The name is read where it lies.
  package static func entryName(_ entry: UnsafeMutablePointer<dirent>) -> [UInt8] {
    withUnsafeMutablePointer(to: &entry.pointee.d_name) { field in
      field.withMemoryRebound(to: CChar.self, capacity: 1) { name in
        Array(UnsafeRawBufferPointer(start: name, count: strlen(name)))
      }
    }
  }
}
