public import ShelfAudio
public import ShelfCore
import ShelfDatabase

/// The `replay_gains` table (see `CatalogSchema.replayGainsTable`): the gains `shelf gain`
/// measured, by file identity.
enum MeasuredGains {
  /// Rows written per statement (9 parameters each).
  static let rowsPerStatement = 400

  /// Writes `gains`, replacing each file's older row, in one transaction of a store opened for
  /// writing.
  static func store(_ gains: [(ContentIdentity, ReplayGain)], into store: CatalogStore) throws {
    var latest: [ContentIdentity.FileKey: Int] = [:]
    for (index, (identity, _)) in gains.enumerated() { latest[identity.fileKey] = index }
    let rows = latest.values.sorted().map { gains[$0] }
    guard !rows.isEmpty else { return }
    func statement(_ count: Int) -> String {
      let values = Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?)", count: count).joined(separator: ", ")
      return store.dialect.insertOrReplace(
        into: "replay_gains",
        columns: [
          "device", "inode", "size", "mtime_ns", "ctime_ns", "track_gain", "track_peak", "album_gain",
          "album_peak",
        ], key: ["device", "inode"], rows: values)
    }
    try store.transaction {
      var start = 0
      while start < rows.count {
        let batch = rows[start..<min(start + rowsPerStatement, rows.count)]
        var parameters: [DatabaseValue] = []
        parameters.reserveCapacity(batch.count * 9)
        for (identity, gain) in batch {
          parameters += [
            .integer(Int64(bitPattern: identity.device)), .integer(Int64(bitPattern: identity.inode)),
            .integer(identity.size), .integer(identity.mtime), .integer(identity.ctime),
            .from(gain.trackGain), .from(gain.trackPeak), .from(gain.albumGain), .from(gain.albumPeak),
          ]
        }
        try store.connection.run(statement(batch.count), parameters)
        start += batch.count
      }
    }
  }

  /// The measured gain kept for `identity`, when its row matches it (size and times).
  static func gain(for identity: ContentIdentity, in store: CatalogStore) throws -> ReplayGain? {
    try store.connection.query(
      "SELECT \(GainColumn.selectList) FROM replay_gains WHERE device = ? AND inode = ? AND size = ? AND mtime_ns = ? AND ctime_ns = ?",
      [
        .integer(Int64(bitPattern: identity.device)), .integer(Int64(bitPattern: identity.inode)),
        .integer(identity.size), .integer(identity.mtime), .integer(identity.ctime),
      ]
    ) { row in
      func real(_ column: GainColumn) -> Double? { row.real(at: column.rawValue) }
      return ReplayGain(
        trackGain: real(.trackGain), trackPeak: real(.trackPeak), albumGain: real(.albumGain),
        albumPeak: real(.albumPeak), source: .measured)
    }.first.flatMap { $0.hasGain ? $0 : nil }
  }

  /// The columns `gain(for:in:)` reads, in the order selected.
  enum GainColumn: Int, SelectedColumn {
    case trackGain, trackPeak, albumGain, albumPeak

    var sql: String {
      switch self {
      case .trackGain: "track_gain"
      case .trackPeak: "track_peak"
      case .albumGain: "album_gain"
      case .albumPeak: "album_peak"
      }
    }
  }
}

extension CatalogStore {
  /// The ReplayGain the catalogue knows for the file at `path` as it is now (links followed):
  /// the tags its entry recorded when the entry describes the file as it is, else what `shelf
  /// gain` measured for it (kept by device and inode while its size and times are unchanged).
  /// Nil when neither is known. For the player, when the decoder found no ReplayGain tags
  /// (`AudioDecoder.tags.replayGain == nil`).
  public func replayGain(forFileAt path: RawPath) throws -> ReplayGain? {
    guard let status = try? FileStatus.stat(path) else { return nil }
    let identity = ContentIdentity(status)
    if let entry = try entry(path: path.absolute), let tagged = entry.audio?.tags.replayGain,
      entry.size == status.size, entry.mtimeNanoseconds == status.mtimeNanoseconds
    {
      return tagged
    }
    return try MeasuredGains.gain(for: identity, in: self)
  }
}
