import ShelfBackup
import ShelfCore

#if canImport(Glibc)
  import Glibc
#endif

/// Where a candidate's bytes are: a file on disk, or an entry of an iPhone backup (decrypted
/// as it is read).
enum ContentSource: Sendable {
  case file(RawPath)
  case backupEntry(Backup, BackupEntry)
}

/// Reads contents for their digests: the head-and-tail sample alone (two small reads) or the
/// whole XXH3-128 hash (one sequential pass, with the sample computed on the way). One per
/// thread: it owns its read buffer and hasher.
final class ContentDigester {
  /// Bytes at each end of a file that make its sample; a file of at most twice this is sampled whole.
  static let sampleEdge = 4096
  private static let chunk = 1 << 20

  private let hasher = ContentHasher()
  private var buffer = [UInt8](repeating: 0, count: ContentDigester.chunk)

  /// The file's identity as it is now and its digest: the sample only unless `whole`. Throws
  /// when the file cannot be read or changed size while being read.
  func digest(_ source: ContentSource, whole: Bool) throws -> (ContentIdentity, ContentDigest) {
    switch source {
    case .file(let path): return try digestFile(path, whole: whole)
    case .backupEntry(let backup, let entry): return try digestBackupEntry(backup, entry)
    }
  }

  private func digestFile(_ path: RawPath, whole: Bool) throws -> (ContentIdentity, ContentDigest) {
    let file = try RegularFile(path: path, followLinks: false)
    let identity = ContentIdentity(file.status)
    let size = identity.size
    if !whole && size > 2 * Int64(Self.sampleEdge) {
      let head = try file.read(count: Self.sampleEdge, at: 0)
      let tail = try file.read(count: Self.sampleEdge, at: size - Int64(Self.sampleEdge))
      guard head.count == Self.sampleEdge, tail.count == Self.sampleEdge else { throw Self.changed(path) }
      let sample = (head + tail).withUnsafeBytes { ContentHasher.sampleHash($0) }
      return (identity, ContentDigest(sample: sample, hash: nil))
    }
    hasher.reset()
    var sampler = SampleAccumulator()
    var offset: Int64 = 0
    try file.withDescriptor { (descriptor: Int32) throws(FileError) in
      _ = posix_fadvise(descriptor, 0, 0, POSIX_FADV_SEQUENTIAL)
      while true {
        let count = buffer.withUnsafeMutableBytes { raw in
          while true {
            let result = pread(descriptor, raw.baseAddress!, raw.count, off_t(offset))
            if result >= 0 || errno != EINTR { return result }
          }
        }
        if count < 0 { throw FileError(path: path, errno: errno, doing: "read failed") }
        if count == 0 { break }
        buffer.withUnsafeBytes { raw in
          let piece = UnsafeRawBufferPointer(rebasing: raw[0..<count])
          hasher.update(piece)
          sampler.add(piece)
        }
        offset += Int64(count)
        if offset > size { break }
      }
    }
    guard offset == size else { throw Self.changed(path) }
    return (identity, ContentDigest(sample: sampler.sample(), hash: hasher.digest()))
  }

  /// A backup entry is hashed whole (its content is decrypted as a stream) and kept under its
  /// stored file's identity with the content's own size.
  private func digestBackupEntry(_ backup: Backup, _ entry: BackupEntry) throws -> (
    ContentIdentity, ContentDigest
  ) {
    let content = try backup.open(entry)
    hasher.reset()
    var sampler = SampleAccumulator()
    var total: Int64 = 0
    try content.read { piece in
      hasher.update(piece)
      sampler.add(piece)
      total += Int64(piece.count)
    }
    // Keyed as `DuplicateFinder` looks it up: the size known before reading (the manifest's
    // when the format gives none).
    let size = content.size ?? entry.size
    let identity =
      content.storedStatus.map { ContentIdentity($0, size: size) }
      ?? ContentIdentity(device: 0, inode: 0, size: size, mtime: 0, ctime: 0)
    return (identity, ContentDigest(sample: sampler.sample(), hash: hasher.digest()))
  }

  private static func changed(_ path: RawPath) -> FileError {
    FileError(path: path, reason: "changed while being read", failure: .io)
  }
}

/// The sample of a content streamed in pieces: XXH3-64 of the whole when it is at most twice
/// `sampleEdge` bytes, else of its first and last `sampleEdge` bytes, as `ContentDigester`
/// computes it with two reads.
struct SampleAccumulator {
  private var head: [UInt8] = []
  private var tail: [UInt8] = []
  private var total = 0

  mutating func add(_ piece: UnsafeRawBufferPointer) {
    let edge = ContentDigester.sampleEdge
    if head.count < edge {
      head += piece.prefix(edge - head.count)
    }
    total += piece.count
    if piece.count >= edge {
      tail = Array(piece.suffix(edge))
    } else {
      tail += piece
      if tail.count > edge { tail.removeFirst(tail.count - edge) }
    }
  }

  func sample() -> UInt64 {
    let edge = ContentDigester.sampleEdge
    let bytes: [UInt8]
    if total <= 2 * edge {
      // head holds the first `edge` bytes and tail the last ones: together, without their
      // overlap, the whole content.
      let overlap = head.count + tail.count - total
      bytes = head + tail.dropFirst(max(0, overlap))
    } else {
      bytes = head + tail
    }
    return bytes.withUnsafeBytes { ContentHasher.sampleHash($0) }
  }
}
