internal import CSndFile

/// The descriptive tags of an audio file; nil where the file has none.
///
/// Several values of one tag (two artists in Vorbis comments or ID3v2.4) are joined with `; `.
public struct AudioTags: Sendable, Equatable {
  public var title: String?
  public var artist: String?
  public var album: String?
  /// The recording date as written in the file (often a year).
  public var date: String?
  /// The track number as written in the file (e.g. `3` or `3/12`).
  public var track: String?
  public var genre: String?
  public var comment: String?
  /// The album's artist (`TPE2`, `aART`, `ALBUMARTIST`, `WM/AlbumArtist`).
  public var albumArtist: String?
  /// The tracks on the disc: the total of `3/12`, or a tag of its own (`TRACKTOTAL`).
  public var trackTotal: Int?
  /// The disc number (`1` of `1/2`).
  public var disc: Int?
  /// The discs in the set (`2` of `1/2`, or `DISCTOTAL`).
  public var discTotal: Int?
  /// The file's ReplayGain tags (`REPLAYGAIN_*` in Vorbis comments, ID3v2 TXXX, APEv2 or MP4
  /// freeform atoms; Opus `R128_*_GAIN`), source `.tags`; nil when it has no usable gain. The
  /// player reads it from an open decoder (`AudioDecoder.tags.replayGain`), the catalogue
  /// keeps it with the entry's facts.
  public var replayGain: ReplayGain? = nil

  /// Creates tags.
  public init(
    title: String? = nil, artist: String? = nil, album: String? = nil, date: String? = nil,
    track: String? = nil, genre: String? = nil, comment: String? = nil, albumArtist: String? = nil,
    trackTotal: Int? = nil, disc: Int? = nil, discTotal: Int? = nil
  ) {
    self.title = title
    self.artist = artist
    self.album = album
    self.date = date
    self.track = track
    self.genre = genre
    self.comment = comment
    self.albumArtist = albumArtist
    self.trackTotal = trackTotal
    self.disc = disc
    self.discTotal = discTotal
  }

  /// Whether no tag is set.
  public var isEmpty: Bool {
    [title, artist, album, date, track, genre, comment, albumArtist].allSatisfy { $0 == nil }
      && [trackTotal, disc, discTotal].allSatisfy { $0 == nil } && replayGain == nil
  }

  /// The number in `track` (`3` of `3/12`).
  public var trackNumber: Int? { Self.numberAndTotal(track).number }

  /// The year in `date` (its first four digits), when there is one.
  public var year: Int? {
    guard let date else { return nil }
    let digits = Array(date.utf8)
    var index = 0
    while index + 4 <= digits.count {
      let slice = digits[index..<index + 4]
      if slice.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
        return Int(String(decoding: slice, as: UTF8.self))
      }
      index += 1
    }
    return nil
  }

  /// The number and total of a `N/M` position (`3/12`, `3`, `/12`); nil parts where absent.
  public static func numberAndTotal(_ text: String?) -> (number: Int?, total: Int?) {
    guard let text else { return (nil, nil) }
    let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
    func number(_ part: Substring?) -> Int? {
      guard let part else { return nil }
      let digits = part.drop { $0 == " " }.prefix { $0.isASCII && $0.isNumber }
      return Int(digits).flatMap { $0 > 0 ? $0 : nil }
    }
    return (number(parts.first), parts.count > 1 ? number(parts[1]) : nil)
  }

  /// Fills every tag this value lacks from `other` (this value's tags win).
  public func filled(from other: AudioTags) -> AudioTags {
    var out = self
    out.title = title ?? other.title
    out.artist = artist ?? other.artist
    out.album = album ?? other.album
    out.date = date ?? other.date
    out.track = track ?? other.track
    out.genre = genre ?? other.genre
    out.comment = comment ?? other.comment
    out.albumArtist = albumArtist ?? other.albumArtist
    out.trackTotal = trackTotal ?? other.trackTotal
    out.disc = disc ?? other.disc
    out.discTotal = discTotal ?? other.discTotal
    out.replayGain = replayGain ?? other.replayGain
    return out
  }

  init(sndfile handle: OpaquePointer) {
    func tag(_ kind: Int32) -> String? {
      guard let text = sf_get_string(handle, kind) else { return nil }
      return AudioTags.clean(String(cString: text))
    }
    self.init(
      title: tag(Int32(SF_STR_TITLE)), artist: tag(Int32(SF_STR_ARTIST)), album: tag(Int32(SF_STR_ALBUM)),
      date: tag(Int32(SF_STR_DATE)), track: tag(Int32(SF_STR_TRACKNUMBER)), genre: tag(Int32(SF_STR_GENRE)),
      comment: tag(Int32(SF_STR_COMMENT)))
  }

  /// Trims whitespace and NULs; empty becomes nil.
  static func clean(_ text: String) -> String? {
    let trimmed = text.unicodeScalars.drop {
      $0 == " " || $0 == "\0" || $0 == "\n" || $0 == "\r" || $0 == "\t"
    }
    var scalars = Array(trimmed)
    while let last = scalars.last, last == " " || last == "\0" || last == "\n" || last == "\r" || last == "\t"
    {
      scalars.removeLast()
    }
    if scalars.isEmpty { return nil }
    var out = String.UnicodeScalarView()
    out.append(contentsOf: scalars)
    return String(out)
  }
}
