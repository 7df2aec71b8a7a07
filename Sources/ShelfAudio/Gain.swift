/// Software volume: scales samples in place. At 100 % nothing is touched (bit-exact output).
public enum Gain {
  /// The amplitude factor for a volume of 0…100: a squared curve, so that steps sound even
  /// (50 % is −12 dB).
  public static func factor(volume: Int) -> Float {
    let v = Float(min(100, max(0, volume))) / 100
    return v * v
  }

  /// Scales `samples` interleaved samples of `type` in `buffer` for `volume`.
  public static func apply(volume: Int, to buffer: UnsafeMutableRawPointer, samples: Int, type: PCMSampleType)
  {
    guard volume < 100 else { return }
    let g = factor(volume: volume)
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
