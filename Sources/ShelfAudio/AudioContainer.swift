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
    default: return nil
    }
  }

  /// Whether the container stores samples without loss.
  public var isLossless: Bool {
    switch self {
    case .ogg, .opus, .mp3: return false
    default: return true
    }
  }

  /// The sample format actually stored when `requested` is asked for.
  ///
  /// FLAC holds at most 24 bits; the lossy codecs have no sample format of their own.
  public func storedFormat(for requested: SampleFormat) -> SampleFormat {
    switch self {
    case .flac: return requested == .s16 ? .s16 : .s24
    case .ogg, .opus, .mp3: return .float
    default: return requested
    }
  }

  /// Extensions `shelf` recognises as audio (lowercase, without the dot).
  public static let audioExtensions: Set<String> = [
    "wav", "wave", "rf64", "aif", "aiff", "aifc", "flac", "ogg", "oga", "opus", "caf", "w64",
    "au", "snd", "mp3",
  ]
}
