public import ShelfCore

/// Where the last `shelf play` of a file, a playlist or a folder stopped, so that `--resume`
/// can start there: a track's playlist index and the seconds heard, with the size and
/// modification time of the track's file then (a file changed since starts again at 0), and,
/// under a playlist's or a folder's key, the track's file (the position is that file's alone).
public struct ResumePoint: Sendable, Equatable {
  public var track: Int
  public var position: Double
  public var size: Int64
  public var mtimeNanoseconds: Int64
  /// The absolute path of the track's file, under a playlist's or folder's key (nil in
  /// points written before shelf kept it, and under a file's own key).
  public var trackPath: RawPath?

  public init(track: Int, position: Double, size: Int64, mtimeNanoseconds: Int64, trackPath: RawPath? = nil) {
    self.track = track
    self.position = position
    self.size = size
    self.mtimeNanoseconds = mtimeNanoseconds
    self.trackPath = trackPath
  }

  /// Whether `status` is the file this point was recorded for.
  public func describes(_ status: FileStatus) -> Bool {
    status.size == size && status.mtimeNanoseconds == mtimeNanoseconds
  }
}

/// The resume points of every file and playlist played, in `$XDG_STATE_HOME/shelf/resume`
/// (`~/.local/state/shelf/resume` when unset), keyed by absolute path: state of the user's, not
/// of the catalogue, so that reader commands stay read-only. One line a key (base64 of the
/// path, track, seconds, size, mtime and, under a list's or folder's key, base64 of the track's
/// path, separated by tabs), rewritten whole and atomically; the newest `capacity` keys are
/// kept. A damaged line is ignored, never fatal.
public struct ResumePoints: Sendable {
  /// The state file.
  public let file: RawPath
  /// How many keys are kept (the oldest are dropped first).
  static let capacity = 1000
  /// The state file is never read past this size.
  static let sizeLimit: Int64 = 1 << 20

  public init(file: RawPath) { self.file = file }

  /// The state file `environment` places: nil when neither `XDG_STATE_HOME` nor `HOME` is an
  /// absolute folder.
  public init?(environment: [String: String]) {
    if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
      file = RawPath(state).appending("shelf/resume")
    } else if let home = environment["HOME"], home.hasPrefix("/") {
      file = RawPath(home).appending(".local/state/shelf/resume")
    } else {
      return nil
    }
  }

  /// The point recorded for `key`, if any.
  public func point(for key: RawPath) -> ResumePoint? {
    load().first { $0.key == key }?.point
  }

  /// Records `point` for `key` (nil forgets it), keeping the other keys.
  public func record(_ point: ResumePoint?, for key: RawPath) throws(FileError) {
    let known = load()
    var entries = known.filter { $0.key != key }
    // Forgetting what is not there writes nothing.
    guard point != nil || entries.count != known.count else { return }
    if let point { entries.append((key, point)) }
    var text: [UInt8] = []
    for (key, point) in entries.suffix(Self.capacity) {
      let position = (point.position * 1000).rounded() / 1000
      let track = point.trackPath.map { "\t" + $0.base64 } ?? ""
      text += Array(
        "\(key.base64)\t\(point.track)\t\(position)\t\(point.size)\t\(point.mtimeNanoseconds)\(track)\n".utf8)
    }
    let writer = try AtomicFileWriter(target: file, options: .init(mode: 0o600, createsFolders: true))
    do {
      try writer.write(text)
      try writer.commit()
    } catch {
      writer.discard()
      throw error
    }
  }

  /// Every well-formed line of the state file, oldest first.
  private func load() -> [(key: RawPath, point: ResumePoint)] {
    guard let handle = try? RegularFile(path: file), let bytes = try? handle.readAll(limit: Self.sizeLimit)
    else { return [] }
    var entries: [(key: RawPath, point: ResumePoint)] = []
    for line in bytes.split(separator: UInt8(ascii: "\n")) {
      let fields = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false).map {
        String(decoding: $0, as: UTF8.self)
      }
      guard fields.count == 5 || fields.count == 6, let key = Base64.decode(fields[0]), !key.isEmpty,
        let track = Int(fields[1]), track >= 0, let position = Double(fields[2]), position.isFinite,
        position >= 0, let size = Int64(fields[3]), let mtime = Int64(fields[4])
      else { continue }
      var trackPath: RawPath?
      if fields.count == 6 {
        guard let bytes = Base64.decode(fields[5]), !bytes.isEmpty else { continue }
        trackPath = RawPath(bytes: bytes)
      }
      entries.removeAll { $0.key.bytes == key }
      entries.append(
        (
          RawPath(bytes: key),
          ResumePoint(
            track: track, position: position, size: size, mtimeNanoseconds: mtime, trackPath: trackPath)
        ))
    }
    return entries
  }
}

extension ResumePoints {
  /// Where a play of `tracks` starts with `--resume`: the key is `list` when the tracks came
  /// from one playlist file or folder, else the first track's file. Under a list's key the
  /// point names its track's file: play starts at that file (at its index when that is still
  /// the file, a CUE sheet's tracks sharing one), at 0 when it changed since, and from the top
  /// when the list no longer holds it; a position is never carried to another file. Nil when
  /// nothing is recorded.
  public func start(of tracks: [PlayerTrack], list: RawPath?) -> (track: Int, position: Double)? {
    if let list {
      guard let point = point(for: list.absolute) else { return nil }
      let index: Int
      if let trackPath = point.trackPath {
        if tracks.indices.contains(point.track) && tracks[point.track].path.absolute == trackPath {
          index = point.track
        } else if let found = tracks.firstIndex(where: { $0.path.absolute == trackPath }) {
          index = found
        } else {
          return nil
        }
      } else {
        guard tracks.indices.contains(point.track) else { return nil }
        index = point.track
      }
      let unchanged = (try? FileStatus.stat(tracks[index].path)).map(point.describes) ?? false
      return (index, unchanged ? point.position : 0)
    }
    guard let first = tracks.first, let point = point(for: first.path.absolute),
      let status = try? FileStatus.stat(first.path), point.describes(status)
    else { return nil }
    return (0, point.position)
  }

  /// Records how a play of `tracks` ended: where it stopped part way, under the list's key or
  /// the track's file's; a track or a list played to its end is forgotten.
  public func record(_ summary: PlayerSummary, tracks: [PlayerTrack], list: RawPath?) throws(FileError) {
    func point(_ stop: (track: Int, position: Double), index: Int, named: Bool) -> ResumePoint? {
      guard tracks.indices.contains(stop.track), let status = try? FileStatus.stat(tracks[stop.track].path)
      else { return nil }
      return ResumePoint(
        track: index, position: stop.position, size: status.size, mtimeNanoseconds: status.mtimeNanoseconds,
        trackPath: named ? tracks[stop.track].path.absolute : nil)
    }
    if let list {
      try record(summary.stoppedAt.flatMap { point($0, index: $0.track, named: true) }, for: list.absolute)
      return
    }
    for index in summary.completed.sorted() where tracks[index].segment == nil {
      try record(nil, for: tracks[index].path.absolute)
    }
    if let stop = summary.stoppedAt, tracks.indices.contains(stop.track), tracks[stop.track].segment == nil,
      let point = point(stop, index: 0, named: false)
    {
      try record(point, for: tracks[stop.track].path.absolute)
    }
  }
}
