public import ShelfCore

/// What the catalogue needs to know about an audio file, read cheaply (no decoding).
public struct AudioFileInfo: Sendable, Equatable {
  /// Length in seconds.
  public var duration: Double
  /// Frames per second.
  public var sampleRate: Int
  /// Channels per frame.
  public var channels: Int
  /// Frames in the file (an estimate for some lossy files).
  public var frames: Int64
  /// libsndfile's name of the container, e.g. `WAV (Microsoft)`.
  public var formatName: String
  /// libsndfile's name of the encoding, e.g. `Signed 16 bit PCM`, `Vorbis`, `MPEG Layer 3`.
  public var encodingName: String
  /// Bits per sample for PCM encodings.
  public var bitsPerSample: Int?
  /// Whether the encoding is lossless.
  public var isLossless: Bool
  /// Title, artist, album, date, track, genre, comment (from ID3 for MP3).
  public var tags: AudioTags
  /// A defect found while reading that left the facts above valid for what the file holds:
  /// a WAV data chunk that declares more bytes than the file has (see `AudioFileReader.defect`).
  public var defect: AudioError? = nil

  /// Reads the format and tags of the audio file at `path`.
  ///
  /// Throws `AudioError` (missing, empty, not audio, damaged) with a one-line description.
  public static func read(path: RawPath) throws(AudioError) -> AudioFileInfo {
    try read(AudioFileReader(path: path))
  }

  /// Reads the format and tags of a file already open.
  ///
  /// Throws `AudioError` (empty, not audio, damaged) with a one-line description.
  public static func read(_ file: RegularFile) throws(AudioError) -> AudioFileInfo {
    try read(AudioFileReader(file: file))
  }

  private static func read(_ reader: AudioFileReader) -> AudioFileInfo {
    defer { reader.close() }
    let format = reader.format
    return AudioFileInfo(
      duration: format.duration, sampleRate: format.sampleRate, channels: format.channels,
      frames: format.frames, formatName: format.formatName, encodingName: format.encodingName,
      bitsPerSample: format.bitsPerSample, isLossless: format.isLossless, tags: reader.tags,
      defect: reader.defect)
  }
}
