import ShelfCore
import ShelfDatabase
import ShelfWorkers

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
  /// What is known of one file, its path lying in `pathBytes`. No field holds a reference, so
  /// appending, copying and freeing records costs no reference counting (an embedded
  /// `KnownFile`, whose path is an array, cost a retain and a release per record each time).
  private struct Record: Sendable {
    var id: Int64
    var size: Int64
    var mtime: Int64
    var ctime: Int64
    var inode: UInt64
    var device: UInt64
    var extractorVersion: Int
    var pathStart: Int
    var pathCount: Int
    var trusted: Bool
    var failedInWorker: Bool
  }

  private var pathBytes: [UInt8] = []
  private var records: [Record] = []
  /// Per slot, 0 when free, else the record number plus one in the low 32 bits and the top
  /// of its path's hash in the high 32 (compared before the path): one word, so placing or
  /// finding a path costs one cache miss in the table. A power of two at least twice the
  /// records, built by `indexPaths` once they are all added: placed in one tight loop, the
  /// table's cache misses overlap, where placing each path as its row was read cost a miss
  /// of its own (a fifth of loading /usr/share's 57,000 rows).
  private var slots: [UInt64] = []
  /// The records `slots` was built for (checked in debug builds).
  private var indexedCount = 0

  /// Room for `count` files with paths of about `averagePath` bytes.
  init(capacity count: Int = 0, averagePath: Int = 64) {
    records.reserveCapacity(count)
    pathBytes.reserveCapacity(count * averagePath)
  }

  var count: Int { records.count }
  var isEmpty: Bool { records.isEmpty }
  /// Every record number, for `entry(at:)`.
  var indices: Range<Int> { records.indices }

  /// Adds what is known of the file at `path` (`file.path` is not read); `indexPaths` makes it
  /// found. The catalogue holds a path once (`files.path` is unique), so no earlier record is
  /// looked for.
  mutating func add(path: UnsafeRawBufferPointer, _ file: KnownFile) {
    records.append(
      Record(
        id: file.id, size: file.size, mtime: file.mtime, ctime: file.ctime, inode: file.inode,
        device: file.device, extractorVersion: file.extractorVersion, pathStart: pathBytes.count,
        pathCount: path.count, trusted: file.trusted, failedInWorker: file.failedInWorker))
    pathBytes.append(contentsOf: path)
  }

  /// Makes every record added so far found by `index(of:)`.
  mutating func indexPaths() {
    var size = 16
    while size < records.count * 2 { size *= 2 }
    var table = [UInt64](repeating: 0, count: size)
    table.withUnsafeMutableBufferPointer { table in
      records.withUnsafeBufferPointer { records in
        pathBytes.withUnsafeBytes { bytes in
          let mask = size - 1
          for number in records.indices {
            let record = records[number]
            let hash = ContentHasher.sampleHash(
              UnsafeRawBufferPointer(rebasing: bytes[record.pathStart..<record.pathStart + record.pathCount]))
            var slot = Int(truncatingIfNeeded: hash) & mask
            while table[slot] != 0 { slot = (slot + 1) & mask }
            table[slot] = (hash >> 32) << 32 | UInt64(truncatingIfNeeded: number + 1)
          }
        }
      }
    }
    slots = table
    indexedCount = records.count
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
    return KnownFile(
      id: record.id,
      path: RawPath(bytes: Array(pathBytes[record.pathStart..<record.pathStart + record.pathCount])),
      size: record.size, mtime: record.mtime, ctime: record.ctime, inode: record.inode, device: record.device,
      trusted: record.trusted, extractorVersion: record.extractorVersion,
      failedInWorker: record.failedInWorker)
  }

  /// Whether the file at record number `index` needs no new reading, its status being `status`
  /// (`extractorVersion` the current reader's; `retryingFailures`: a reading that failed in a
  /// worker is made again).
  func isUnchanged(at index: Int, status: FileStatus, extractorVersion: Int, retryingFailures: Bool = false)
    -> Bool
  {
    let known = records[index]
    return known.size == status.size && known.mtime == status.mtimeNanoseconds
      && known.ctime == status.ctimeNanoseconds && known.inode == status.inode
      && known.device == status.device && known.trusted && known.extractorVersion == extractorVersion
      && !(retryingFailures && known.failedInWorker)
  }

  /// The files whose paths start with `prefix`.
  func filtered(prefix: [UInt8]) -> KnownFiles {
    var kept = KnownFiles(capacity: 0)
    for index in indices where pathStarts(at: index, with: prefix) {
      var record = records[index]
      record.pathStart = kept.pathBytes.count
      kept.pathBytes += pathBytes[records[index].pathStart..<records[index].pathStart + record.pathCount]
      kept.records.append(record)
    }
    kept.indexPaths()
    return kept
  }

  private func pathStarts(at index: Int, with prefix: [UInt8]) -> Bool {
    let record = records[index]
    return record.pathCount >= prefix.count
      && pathBytes[record.pathStart..<record.pathStart + prefix.count].elementsEqual(prefix)
  }

  private func index(of path: UnsafeRawBufferPointer, hash: UInt64) -> Int? {
    assert(indexedCount == records.count, "records added since indexPaths")
    guard !slots.isEmpty else { return nil }
    return slots.withUnsafeBufferPointer { slots in
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
}

extension KnownFile {
  /// The columns `knownFiles` reads, in the order selected; every one is NOT NULL (the last is
  /// a CASE).
  enum Column: Int, SelectedColumn {
    case id, path, size, mtime, ctime, inode, device, trusted, extractorVersion, failedInWorker

    var sql: String {
      switch self {
      case .id: "id"
      case .path: "path"
      case .size: "size"
      case .mtime: "mtime_ns"
      case .ctime: "ctime_ns"
      case .inode: "inode"
      case .device: "device"
      case .trusted: "trusted"
      case .extractorVersion: "extractor_version"
      case .failedInWorker: "CASE WHEN \(workerFailureCondition) THEN 1 ELSE 0 END"
      }
    }
  }

  /// An SQL condition on the `error` column, true for a worker's failure (what
  /// `--retry-failed` reads again), in both SQLite and PostgreSQL. The NULL test first: most
  /// rows have no error, and the `LIKE`s (a function call each in SQLite) were then 9 ms of
  /// reading /usr/share's 57,000 known files.
  static let workerFailureCondition =
    "(error IS NOT NULL AND ("
    + WorkerFailure.reasonPrefixes.map { "error LIKE '\($0)%'" }.joined(separator: " OR ") + "))"
}
