import ShelfCore
import ShelfDatabase

/// The identity a content hash is kept under: a file's device and inode (hard links share it)
/// and the size and times that must still be the file's for the hash to hold.
struct ContentIdentity: Hashable, Sendable {
  var device: UInt64
  var inode: UInt64
  var size: Int64
  var mtime: Int64
  var ctime: Int64

  init(device: UInt64, inode: UInt64, size: Int64, mtime: Int64, ctime: Int64) {
    self.device = device
    self.inode = inode
    self.size = size
    self.mtime = mtime
    self.ctime = ctime
  }

  /// The identity of a file as `status` describes it; `size` overrides the stored size (a
  /// backup entry's decrypted content is smaller than its encrypted stored file).
  init(_ status: FileStatus, size: Int64? = nil) {
    self.init(
      device: status.device, inode: status.inode, size: size ?? status.size, mtime: status.mtimeNanoseconds,
      ctime: status.ctimeNanoseconds)
  }

  /// The key of the catalogue's row (one per inode).
  var fileKey: FileKey { FileKey(device: device, inode: inode) }

  /// Device and inode: one file, whatever its names.
  struct FileKey: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64
  }
}

/// What is known of a content: the head-and-tail sample always, the whole hash once read.
struct ContentDigest: Sendable, Equatable {
  var sample: UInt64
  var hash: ContentHash?
}

/// The `content_hashes` table (see `CatalogSchema.contentHashesTable`): read whole before a
/// search, written in one short transaction after it.
enum ContentHashCache {
  /// Every kept digest, by file, with the identity it was computed for; room is made at once
  /// for `expecting` of them.
  static func load(_ store: CatalogStore, expecting: Int = 0) throws -> [ContentIdentity.FileKey: (
    ContentIdentity, ContentDigest
  )] {
    var rows = [ContentIdentity.FileKey: (ContentIdentity, ContentDigest)](minimumCapacity: expecting)
    try store.connection.forEachRow("SELECT \(Column.selectList) FROM content_hashes", []) { row in
      func integer(_ column: Column) -> Int64? { row.integer(at: column.rawValue) }
      guard let device = integer(.device), let inode = integer(.inode), let size = integer(.size),
        let mtime = integer(.mtime), let ctime = integer(.ctime), let sample = integer(.sample)
      else { return }
      let identity = ContentIdentity(
        device: UInt64(bitPattern: device), inode: UInt64(bitPattern: inode), size: size, mtime: mtime,
        ctime: ctime)
      let hash = row.withBlob(at: Column.hash.rawValue) { ContentHash(canonical: $0) }
      rows[identity.fileKey] = (identity, ContentDigest(sample: UInt64(bitPattern: sample), hash: hash))
    }
    return rows
  }

  /// The columns of `content_hashes`, in the order `load` selects them and `store` writes them.
  enum Column: Int, SelectedColumn {
    case device, inode, size, mtime, ctime, sample, hash

    var sql: String {
      switch self {
      case .device: "device"
      case .inode: "inode"
      case .size: "size"
      case .mtime: "mtime_ns"
      case .ctime: "ctime_ns"
      case .sample: "sample"
      case .hash: "hash"
      }
    }
  }

  /// Rows written per statement: one statement parsed for many rows (7 parameters each, far
  /// below either database's limit).
  static let rowsPerStatement = 500

  /// Writes `digests`, replacing each file's older row, in one transaction of a store opened for
  /// writing. A file digested twice (sampled, then hashed whole) is written once, as last seen.
  static func store(_ digests: [(ContentIdentity, ContentDigest)], into store: CatalogStore) throws {
    var latest: [ContentIdentity.FileKey: Int] = [:]
    for (index, (identity, _)) in digests.enumerated() { latest[identity.fileKey] = index }
    let rows = latest.values.sorted().map { digests[$0] }
    guard !rows.isEmpty else { return }
    func statement(_ count: Int) -> String {
      let values = Array(repeating: "(?, ?, ?, ?, ?, ?, ?)", count: count).joined(separator: ", ")
      return store.dialect.insertOrReplace(
        into: "content_hashes",
        columns: Column.allCases.map(\.sql),
        key: ["device", "inode"], rows: values)
    }
    try store.transaction {
      var start = 0
      while start < rows.count {
        let batch = rows[start..<min(start + rowsPerStatement, rows.count)]
        var parameters: [DatabaseValue] = []
        parameters.reserveCapacity(batch.count * 7)
        for (identity, digest) in batch {
          parameters += [
            .integer(Int64(bitPattern: identity.device)), .integer(Int64(bitPattern: identity.inode)),
            .integer(identity.size), .integer(identity.mtime), .integer(identity.ctime),
            .integer(Int64(bitPattern: digest.sample)), digest.hash.map { .blob($0.bytes) } ?? .null,
          ]
        }
        try store.connection.run(statement(batch.count), parameters)
        start += batch.count
      }
    }
  }
}
