/// Software volume and ReplayGain: scales samples in place. At 100 % with no ReplayGain nothing
/// is touched (bit-exact output).
public enum Gain {
  /// The amplitude factor for a volume of 0…100: a squared curve, so that steps sound even
  /// (50 % is −12 dB).
  public static func factor(volume: Int) -> Float {
    let v = Float(min(100, max(0, volume))) / 100
    return v * v
  }

  /// Scales `samples` interleaved samples of `type` in `buffer` for `volume` and a ReplayGain
  /// factor (`replayGain`, 1 when none applies), in one multiplication.
  public static func apply(
    volume: Int, replayGain: Double = 1, to buffer: UnsafeMutableRawPointer, samples: Int, type: PCMSampleType
  ) {
    guard volume < 100 || replayGain != 1 else { return }
    let g = factor(volume: volume) * Float(replayGain)
    switch type {
    case .int16:
      let p = buffer.assumingMemoryBound(to: Int16.self)
      for i in 0..<samples { p[i] = Int16(clamping: Int32((Float(p[i]) * g).rounded())) }
    case .int32:
      let p = buffer.assumingMemoryBound(to: Int32.self)
      let gd = Double(g)
      for i in 0..<samples { p[i] = Int32(clamping: Int64((Double(p[i]) * gd).rounded())) }
    case .float32:
      let p = buffer.assumingMemoryBound(to: Float.self)
      for i in 0..<samples { p[i] *= g }
    }
  }
}
