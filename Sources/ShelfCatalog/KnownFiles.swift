import ShelfCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// What the catalogue knows about a root's files, packed for a rescan that looks up every
/// path of a tree: the paths back to back in one buffer, one record per file and an
/// open-addressing table of record numbers by the paths' XXH3. A dictionary keyed by a
/// `[UInt8]` per path cost an allocation and a hashed insert per row, and was most of an
/// unchanged rescan's time after the walk.
struct KnownFiles: Sendable {
  private struct Record: Sendable {
    /// What is known, its path left empty (it lies in `pathBytes`: an array per record is
    /// what this table is for avoiding).
    var file: KnownFile
    var hash: UInt64
    var pathStart: Int
    var pathCount: Int
  }

  private var pathBytes: [UInt8] = []
  private var records: [Record] = []
  /// Per slot, 0 when free, else the record number plus one in the low 32 bits and the top
  /// of its path's hash in the high 32 (compared before the path): one word, so placing or
  /// finding a path costs one cache miss in the table. A power of two at least twice the
  /// records, rebuilt as they grow.
  private var slots: [UInt64] = []

  /// Room for `count` files with paths of about `averagePath` bytes.
  init(capacity count: Int = 0, averagePath: Int = 64) {
    records.reserveCapacity(count)
    pathBytes.reserveCapacity(count * averagePath)
    rebuildSlots(forAtLeast: count)
  }

  var count: Int { records.count }
  var isEmpty: Bool { records.isEmpty }
  /// Every record number, for `entry(at:)`.
  var indices: Range<Int> { records.indices }

  /// Adds what is known of the file at `path` (`file.path` is not read). The catalogue holds a
  /// path once (`files.path` is unique), so no earlier record is looked for.
  mutating func add(path: UnsafeRawBufferPointer, _ file: KnownFile) {
    var file = file
    file.path = RawPath(bytes: [])
    records.append(
      Record(
        file: file, hash: ContentHasher.sampleHash(path), pathStart: pathBytes.count, pathCount: path.count))
    pathBytes.append(contentsOf: path)
    if records.count * 2 > slots.count {
      rebuildSlots(forAtLeast: records.count)
    } else {
      insertSlot(records.count - 1)
    }
  }

  /// The record number of `path`, or nil when it is not known.
  func index(of path: [UInt8]) -> Int? {
    path.withUnsafeBytes { index(of: $0) }
  }

  /// The record number of the path whose bytes are `path`, or nil when it is not known.
  func index(of path: UnsafeRawBufferPointer) -> Int? {
    index(of: path, hash: ContentHasher.sampleHash(path))
  }

  /// What is known of the file at record number `index`.
  func entry(at index: Int) -> KnownFile {
    let record = records[index]
    var file = record.file
    file.path = RawPath(bytes: Array(pathBytes[record.pathStart..<record.pathStart + record.pathCount]))
    return file
  }

  /// Whether the file at record number `index` needs no new reading, its status being `status`
  /// (`extractorVersion` the current reader's).
  func isUnchanged(at index: Int, status: FileStatus, extractorVersion: Int) -> Bool {
    let known = records[index].file
    return known.size == status.size && known.mtime == status.mtimeNanoseconds
      && known.ctime == status.ctimeNanoseconds && known.inode == status.inode
      && known.device == status.device && known.trusted && known.extractorVersion == extractorVersion
  }

  /// The files whose paths start with `prefix`.
  func filtered(prefix: [UInt8]) -> KnownFiles {
    var kept = KnownFiles(capacity: 0)
    for index in indices where pathStarts(at: index, with: prefix) {
      let record = records[index]
      pathBytes.withUnsafeBytes { bytes in
        kept.add(
          path: UnsafeRawBufferPointer(
            rebasing: bytes[record.pathStart..<record.pathStart + record.pathCount]),
          record.file)
      }
    }
    return kept
  }

  private func pathStarts(at index: Int, with prefix: [UInt8]) -> Bool {
    let record = records[index]
    return record.pathCount >= prefix.count
      && pathBytes[record.pathStart..<record.pathStart + prefix.count].elementsEqual(prefix)
  }

  private func index(of path: UnsafeRawBufferPointer, hash: UInt64) -> Int? {
    slots.withUnsafeBufferPointer { slots in
      records.withUnsafeBufferPointer { records in
        pathBytes.withUnsafeBytes { bytes in
          let mask = slots.count - 1
          let tag = hash >> 32
          var slot = Int(truncatingIfNeeded: hash) & mask
          while true {
            let word = slots[slot]
            if word == 0 { return nil }
            if word >> 32 == tag {
              let number = Int(word & 0xFFFF_FFFF) - 1
              let record = records[number]
              if record.pathCount == path.count
                && (path.isEmpty
                  || memcmp(bytes.baseAddress! + record.pathStart, path.baseAddress!, path.count) == 0)
              {
                return number
              }
            }
            slot = (slot + 1) & mask
          }
        }
      }
    }
  }

  private mutating func insertSlot(_ number: Int) {
    let hash = records[number].hash
    slots.withUnsafeMutableBufferPointer { slots in
      let mask = slots.count - 1
      var slot = Int(truncatingIfNeeded: hash) & mask
      while slots[slot] != 0 { slot = (slot + 1) & mask }
      slots[slot] = (hash >> 32) << 32 | UInt64(truncatingIfNeeded: number + 1)
    }
  }

  private mutating func rebuildSlots(forAtLeast count: Int) {
    var size = 16
    while size < count * 2 { size *= 2 }
    slots = [UInt64](repeating: 0, count: size)
    for number in records.indices { insertSlot(number) }
  }
}
