internal import CSndFile

/// The descriptive tags of an audio file; nil where the file has none.
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

  /// Creates tags.
  public init(
    title: String? = nil, artist: String? = nil, album: String? = nil, date: String? = nil,
    track: String? = nil, genre: String? = nil, comment: String? = nil
  ) {
    self.title = title
    self.artist = artist
    self.album = album
    self.date = date
    self.track = track
    self.genre = genre
    self.comment = comment
  }

  /// Whether no tag is set.
  public var isEmpty: Bool {
    [title, artist, album, date, track, genre, comment].allSatisfy { $0 == nil }
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
