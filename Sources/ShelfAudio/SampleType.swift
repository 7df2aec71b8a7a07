/// The in-memory sample type of an interleaved buffer handed between libsndfile and ALSA.
public enum PCMSampleType: String, Sendable, CaseIterable {
  /// Signed 16-bit integers.
  case int16
  /// Signed 32-bit integers (24-bit audio is carried left-justified in these).
  case int32
  /// 32-bit floats in −1…1.
  case float32

  /// Bytes per sample.
  public var byteWidth: Int {
    switch self {
    case .int16: return 2
    case .int32, .float32: return 4
    }
  }
}

/// A sample format as users name it (`--sample-format`): what is asked of ALSA and written to
/// the file when the container allows.
public enum SampleFormat: String, Sendable, CaseIterable {
  /// Signed 16-bit.
  case s16
  /// Signed 24-bit.
  case s24
  /// Signed 32-bit.
  case s32
  /// 32-bit float.
  case float

  /// The buffer type used to carry samples of this format.
  public var bufferType: PCMSampleType {
    switch self {
    case .s16: return .int16
    case .s24, .s32: return .int32
    case .float: return .float32
    }
  }

  /// Significant bits per sample.
  public var bits: Int {
    switch self {
    case .s16: return 16
    case .s24: return 24
    case .s32, .float: return 32
    }
  }
}
