public import ShelfCore

/// One entry of a player's playlist: a whole file, or a part of one (a CUE sheet's track), with
/// the tags to show for it and the album it belongs to.
public struct PlayerTrack: Sendable, Equatable {
  /// The file decoded.
  public var path: RawPath
  /// The part of the file played; nil: all of it.
  public var segment: TrackSegment?
  /// Tags that replace the file's own where they are set (a CUE sheet's TITLE and PERFORMER).
  public var tags: AudioTags?
  /// What `--album-shuffle` keeps together and album gain is measured over: album and album
  /// artist when tagged, else the folder (or the CUE sheet).
  public var album: String?
  /// The gain `shelf gain` measured and the catalogue keeps, for a file without ReplayGain
  /// tags (its tags win when it has them).
  public var measuredGain: ReplayGain?
  /// Where the track lies in its album (disc, track), as tagged: the order `--album-shuffle`
  /// plays an album in. Nil when unknown.
  public var albumPosition: AlbumPosition?

  public init(
    path: RawPath, segment: TrackSegment? = nil, tags: AudioTags? = nil, album: String? = nil,
    measuredGain: ReplayGain? = nil, albumPosition: AlbumPosition? = nil
  ) {
    self.path = path
    self.albumPosition = albumPosition
    self.measuredGain = measuredGain
    self.segment = segment
    self.tags = tags
    self.album = album
  }

  /// Whole files with no tags or album of their own.
  public static func files(_ paths: [RawPath]) -> [PlayerTrack] { paths.map { PlayerTrack(path: $0) } }
}

/// A track's place in its album: disc (1 when untagged), then track number.
public struct AlbumPosition: Sendable, Equatable, Comparable {
  public var disc: Int
  public var track: Int

  public init(disc: Int, track: Int) {
    self.disc = disc
    self.track = track
  }

  /// The position `tags` give, or nil without a track number.
  public init?(_ tags: AudioTags) {
    guard let track = tags.trackNumber else { return nil }
    self.init(disc: tags.disc ?? 1, track: track)
  }

  public static func < (lhs: AlbumPosition, rhs: AlbumPosition) -> Bool {
    (lhs.disc, lhs.track) < (rhs.disc, rhs.track)
  }
}

extension [PlayerTrack] {
  /// Fills the album positions that are not known yet from the files' tags, for
  /// `--album-shuffle`; a file that cannot be read (or `skipping` names) keeps none.
  public mutating func readAlbumPositions(skipping: (RawPath) -> Bool) {
    for index in indices where self[index].albumPosition == nil && !skipping(self[index].path) {
      guard let info = try? AudioFileInfo.read(path: self[index].path) else { continue }
      self[index].albumPosition = AlbumPosition(info.tags)
    }
  }
}

/// A stretch of an audio file in CD frames (1/75 s), as a CUE sheet's INDEX lines give it:
/// converted to samples only once the file's rate is known, exactly (588 samples a frame at
/// 44.1 kHz).
public struct TrackSegment: Sendable, Equatable {
  /// The first CD frame (the track's INDEX 01).
  public var start: Int
  /// The CD frame after the last one (the next track's INDEX 01); nil: the end of the file.
  public var end: Int?

  public init(start: Int, end: Int? = nil) {
    self.start = max(0, start)
    self.end = end.map { max(self.start, $0) }
  }

  /// The segment in sample frames at `rate`.
  public func frames(atRate rate: Int) -> (start: Int64, end: Int64?) {
    func convert(_ cdFrames: Int) -> Int64 {
      let (product, overflow) = Int64(cdFrames).multipliedReportingOverflow(by: Int64(max(0, rate)))
      return overflow ? Int64.max : product / 75
    }
    return (convert(start), end.map(convert))
  }
}

/// A decoder's stream cut to a `TrackSegment`: positions, lengths and seeks are relative to
/// the segment's start, and reading stops at its end, sample-exactly, so that consecutive
/// segments of one file play gaplessly one after the other.
final class SegmentDecoder: AudioDecoder {
  let source: any AudioDecoder
  let first: Int64
  let end: Int64?
  let format: AudioStreamFormat
  var path: RawPath { source.path }
  var tags: AudioTags { source.tags }
  var naturalSampleType: PCMSampleType { source.naturalSampleType }
  var position: Int64 { max(0, source.position - first) }

  /// Cuts `source` to `segment`; throws when the segment starts past the end of the file.
  init(_ source: any AudioDecoder, segment: TrackSegment) throws(AudioError) {
    self.source = source
    var format = source.format
    let (start, end) = segment.frames(atRate: format.sampleRate)
    let total = format.frames > 0 ? format.frames : nil
    if let total, start >= total {
      throw AudioError(
        path: source.path, reason: .damaged, message: "the track starts past the end of the file")
    }
    let last = [end, total].compactMap { $0 }.min()
    first = start
    self.end = last
    format.frames = last.map { $0 - start } ?? 0
    self.format = format
    try source.seek(toFrame: start)
  }

  func read(into buffer: UnsafeMutableRawPointer, frames: Int, as type: PCMSampleType) throws(AudioError)
    -> Int
  {
    var wanted = frames
    if let end {
      let left = end - source.position
      guard left > 0 else { return 0 }
      wanted = Int(min(Int64(frames), left))
    }
    return try source.read(into: buffer, frames: wanted, as: type)
  }

  func seek(toFrame frame: Int64) throws(AudioError) {
    let length = end.map { $0 - first } ?? Int64.max - first
    try source.seek(toFrame: first + min(max(0, frame), length))
  }

  func close() { source.close() }
}

/// The album a track belongs to, as `--album-shuffle` and album gain group tracks: album and
/// album artist when tagged, else the folder (untagged files of one folder are one album).
public enum AlbumKey {
  /// The key of a tagged album (album artist, else artist, keeps two albums of one name apart);
  /// nil when the album is not tagged.
  public static func tagged(_ tags: AudioTags) -> String? {
    guard let album = tags.album, !album.isEmpty else { return nil }
    return "album:\(album)\u{1F}\(tags.albumArtist ?? tags.artist ?? "")"
  }

  /// The key of the folder holding `path`.
  public static func folder(of path: RawPath) -> String { "folder:" + path.absolute.parent.escaped }
}
