public import ShelfCore

/// The sample rates a recording's format can hold, as its encoder takes them (libsndfile's
/// Opus, LAME, libvorbis and libFLAC; FFmpeg's AAC), so that a rate it refuses is caught before
/// anything is opened, in shelf's words rather than the encoder's.
public enum RecordingRate {
  /// The rate recorded at when none is asked for, where the format holds it.
  public static let preferred = 44100

  /// The rates `container` with `codec` (nil: its default) holds: a list, or nil with an upper
  /// bound (nil too: any rate shelf takes).
  static func allowed(_ container: AudioContainer, codec: RecordingCodec?) -> (list: [Int]?, maximum: Int?) {
    switch container {
    case .opus: return ([8000, 12000, 16000, 24000, 48000], nil)
    case .mp3: return ([8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000], nil)
    case .ogg: return (nil, 200_000)
    case .flac: return (nil, 655_350)
    case .m4a where (codec ?? .aac) == .aac:
      return ([7350, 8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 64000, 88200, 96000], nil)
    case .wav, .aiff, .caf, .w64, .au, .m4a: return (nil, nil)
    }
  }

  /// The rate to record `container` at: `requested` when the format holds it (else
  /// `.invalidRequest` naming the rates it holds), or, when none was asked for, 44,100 Hz or
  /// the nearest rate above it the format holds (Opus: 48,000 Hz).
  public static func choose(
    _ requested: Int?, container: AudioContainer, codec: RecordingCodec?, output: RawPath
  ) throws(AudioError) -> Int {
    let (list, maximum) = allowed(container, codec: codec)
    guard let requested else {
      guard let list, !list.contains(preferred) else { return preferred }
      return list.first { $0 > preferred } ?? list.last ?? preferred
    }
    let name = container.displayName(codec: codec)
    if let list, !list.contains(requested) {
      let spelled = list.dropLast().map(String.init).joined(separator: ", ") + " or \(list.last ?? 0)"
      throw AudioError(
        path: output, reason: .invalidRequest,
        message: "\(name) cannot be recorded at \(requested) Hz: it holds \(spelled) Hz")
    }
    if let maximum, requested > maximum {
      throw AudioError(
        path: output, reason: .invalidRequest,
        message: "\(name) cannot be recorded at \(requested) Hz: it holds at most \(maximum) Hz")
    }
    return requested
  }
}

extension AudioContainer {
  /// The format's name in messages: `Opus`, `MP3`, `Ogg Vorbis`, `AAC in M4A`.
  public func displayName(codec: RecordingCodec?) -> String {
    switch self {
    case .opus: return "Opus"
    case .ogg: return "Ogg Vorbis"
    case .flac: return "FLAC"
    case .m4a: return "\((codec ?? .aac).rawValue.uppercased()) in M4A"
    default: return rawValue.uppercased()
    }
  }
}
