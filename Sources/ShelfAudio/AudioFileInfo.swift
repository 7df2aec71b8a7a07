public import ShelfCore

/// What the catalogue needs to know about an audio file, read cheaply (no decoding): the
/// catalogue stores it as it is, and its tags read through (`info.title`) to `tags`.
@dynamicMemberLookup
public struct AudioFileInfo: Sendable, Equatable {
  /// Length in seconds.
  public var duration: Double
  /// Frames per second.
  public var sampleRate: Int
  /// Channels per frame.
  public var channels: Int
  /// Frames (samples per channel) that decoding yields, encoder delay and padding trimmed.
  public var frames: Int64
  /// The container's name: FFmpeg's (`mov,mp4,m4a,3gp,3g2,mj2`, `mp3`, `ogg`) when read for
  /// the catalogue, libsndfile's (`WAV (Microsoft)`) when read by the player.
  public var formatName: String
  /// The encoding's long name, e.g. `AAC (Advanced Audio Coding)` or `Signed 16 bit PCM`.
  public var encodingName: String
  /// Bits per sample for PCM encodings.
  public var bitsPerSample: Int?
  /// Whether the encoding is lossless.
  public var isLossless: Bool
  /// Title, artist, album, date, track, genre, comment, album artist, disc.
  public var tags: AudioTags
  /// FFmpeg's codec name: `aac`, `alac`, `mp3`, `flac`, `vorbis`, `opus`, `pcm_s16le`, `amr_nb`, …
  public var codec: String = ""
  /// Bits per second (the average, for variable bit rates), when known.
  public var bitrate: Int? = nil
  /// True when cover art is embedded.
  public var hasArtwork: Bool = false
  /// A defect found while reading that left the facts above valid for what the file holds: a
  /// file cut short (a WAV data chunk, an MP4 sample table or a Xing header that promises more
  /// than the file has, a last MP3 or AMR frame cut off). `frames` and `duration` then count
  /// what is present.
  public var defect: AudioError? = nil
  /// shelf's short name of the container for people (`wav`, `mp4`, `ogg-vorbis`, …; see
  /// `MediaContainer.name`), which needs the MIME type the content was recognised as: empty
  /// until whoever recognised it names it (the catalogue's `format` field).
  public var container: String = ""

  /// Creates the facts of an audio file; what a reader does not know keeps its default.
  public init(
    duration: Double, sampleRate: Int, channels: Int, frames: Int64, formatName: String, encodingName: String,
    bitsPerSample: Int?, isLossless: Bool, tags: AudioTags, codec: String = "", bitrate: Int? = nil,
    hasArtwork: Bool = false, defect: AudioError? = nil, container: String = ""
  ) {
    self.duration = duration
    self.sampleRate = sampleRate
    self.channels = channels
    self.frames = frames
    self.formatName = formatName
    self.encodingName = encodingName
    self.bitsPerSample = bitsPerSample
    self.isLossless = isLossless
    self.tags = tags
    self.codec = codec
    self.bitrate = bitrate
    self.hasArtwork = hasArtwork
    self.defect = defect
    self.container = container
  }

  /// One tag or a number read from them, e.g. `info.artist` or `info.year`.
  public subscript<Value>(dynamicMember keyPath: KeyPath<AudioTags, Value>) -> Value {
    tags[keyPath: keyPath]
  }

  /// Reads the format and tags of the audio file at `path` (a video's sound track is read as
  /// audio).
  ///
  /// Throws `FFmpegError` (missing, not audio, damaged) with a one-line description.
  public static func read(path: RawPath) throws(FFmpegError) -> AudioFileInfo {
    let file: RegularFile
    do {
      file = try RegularFile(path: path)
    } catch {
      throw FFmpegError(
        path: path, call: "open", code: -(error.code ?? 5), message: error.reason, failure: error.failure)
    }
    return try read(file)
  }

  /// Reads the format and tags of a file already open, through FFmpeg (see `MediaFileInfo`).
  ///
  /// Throws `FFmpegError` (not audio, damaged) with a one-line description.
  public static func read(_ file: RegularFile) throws(FFmpegError) -> AudioFileInfo {
    switch try MediaFileInfo.read(file) {
    case .audio(let info): return info
    case .video(let video):
      guard let rate = video.sampleRate, let channels = video.channels, let codec = video.audioCodec else {
        throw FFmpegError(
          path: file.path, call: "avformat_find_stream_info", code: -22, message: "no audio track",
          failure: .badInput)
      }
      // A video's length from a lying header can be beyond any frame count: unknown (0) then.
      let frames = MediaFileInfo.frameCount(seconds: video.duration, rate: rate) ?? 0
      return AudioFileInfo(
        duration: video.duration, sampleRate: rate, channels: channels, frames: frames, formatName: "video",
        encodingName: codec, bitsPerSample: nil, isLossless: false, tags: video.tags, codec: codec)
    }
  }
}
