public import ShelfCore

/// A file format shelf can write (and read), chosen by name or by a file's extension.
public enum AudioContainer: String, Sendable, CaseIterable {
  /// RIFF WAVE; written as RF64 that downgrades to plain WAV when it stays under 4 GiB.
  case wav
  /// Apple/SGI AIFF.
  case aiff
  /// Free Lossless Audio Codec.
  case flac
  /// Ogg Vorbis.
  case ogg
  /// Ogg Opus.
  case opus
  /// Apple Core Audio Format.
  case caf
  /// Sony Wave64.
  case w64
  /// Sun/NeXT AU.
  case au
  /// MPEG-1 Layer III (through LAME).
  case mp3
  /// MPEG-4 audio (AAC or ALAC), written as fragmented MP4 through FFmpeg.
  case m4a

  /// The container a path's extension names, if any.
  public init?(extensionOf path: RawPath) {
    switch path.lowercasedExtension {
    case "wav", "wave", "rf64": self = .wav
    case "aif", "aiff", "aifc": self = .aiff
    case "flac": self = .flac
    case "ogg", "oga": self = .ogg
    case "opus": self = .opus
    case "caf": self = .caf
    case "w64": self = .w64
    case "au", "snd": self = .au
    case "mp3": self = .mp3
    case "m4a": self = .m4a
    default: return nil
    }
  }

  /// Whether the container stores samples without loss with `codec` (its default when nil).
  public func isLossless(codec: RecordingCodec? = nil) -> Bool {
    switch self {
    case .ogg, .opus, .mp3: return false
    case .m4a: return codec == .alac
    default: return true
    }
  }

  /// The codecs `record` can store in this container, the default first; empty where the
  /// container has one codec of its own (FLAC, Vorbis, Opus, MP3).
  public var recordingCodecs: [RecordingCodec] {
    switch self {
    case .wav, .aiff, .w64, .au: return [.pcm]
    case .caf: return [.pcm, .alac]
    case .m4a: return [.aac, .alac]
    case .flac, .ogg, .opus, .mp3: return []
    }
  }

  /// The sample format actually stored when `requested` is asked for, with `codec` (the
  /// container's default when nil).
  ///
  /// FLAC and ALAC in MP4 hold at most 24 bits; the lossy codecs have no sample format of
  /// their own; ALAC in CAF holds 16, 24 or 32 bits.
  public func storedFormat(for requested: SampleFormat, codec: RecordingCodec? = nil) -> SampleFormat {
    switch (self, codec) {
    case (.flac, _), (.m4a, .alac): return requested == .s16 ? .s16 : .s24
    case (.caf, .alac): return requested == .float ? .s24 : requested
    case (.ogg, _), (.opus, _), (.mp3, _), (.m4a, _): return .float
    default: return requested
    }
  }

  /// Extensions `shelf` plays from a folder (lowercase, without the dot): libsndfile's and
  /// FFmpeg's audio, and video files (their sound).
  public static let audioExtensions: Set<String> = [
    "wav", "wave", "rf64", "aif", "aiff", "aifc", "flac", "ogg", "oga", "opus", "caf", "w64",
    "au", "snd", "mp3",
    // Read through FFmpeg.
    "m4a", "m4b", "m4r", "mp4", "m4v", "mov", "3gp", "3g2", "aac", "adts", "amr", "awb", "ape", "wv", "mpc",
    "wma", "asf", "ac3", "eac3", "dsf", "dff", "spx", "tta", "mka", "mkv", "webm", "avi", "mp2", "alac",
  ]
}

/// A codec `record` can choose where a container holds more than one (`--codec`).
public enum RecordingCodec: String, Sendable, CaseIterable {
  /// Uncompressed samples.
  case pcm
  /// Apple Lossless.
  case alac
  /// AAC-LC (lossy), as Voice Memos records.
  case aac
}
